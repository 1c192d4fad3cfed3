/**
 * An ATIF document (any version, v1.0 to v1.8) opened for the viewer. The document is checked
 * against the version it names (`protocol/atif.ts`) and every violation is kept with its JSON path
 * and line; the steps are then read field by field, each taken only when it has its type, so an
 * invalid file still shows everything that can be shown. Our own export carries our records whole
 * and is read back as our episode (`atifExport.ts`, `ourEpisodeOfAtif`).
 */
import { atifMinor, atifTrajectorySchema, atifVersions } from '../protocol/atif.js';
import type { ForeignStep } from '../protocol/episodeView.js';
import type { JsonDocument } from '../util/jsonDocument.js';
import { ourEpisodeOfAtif } from './atifExport.js';
import { buildEpisodeModel } from '../episodes/index.js';
import { blankStep, type ForeignEpisode } from './foreignEpisode.js';
import { arr, bounded, boundedRecord, contentOf, issueOf, len, located, num, problemsByStep, rec, str } from './foreignText.js';
import type { OpenedEpisode } from './openedEpisode.js';

export function readAtif(doc: JsonDocument): OpenedEpisode {
  const root = rec(doc.value) ?? {};
  const version = str(root['schema_version']);
  const known = atifMinor(version) !== undefined;
  const checked = atifTrajectorySchema.safeParse(doc.value);
  const issues = (checked.success ? [] : checked.error.issues).map((i) => ({
    path: i.path.filter((p): p is string | number => typeof p !== 'symbol'),
    message: i.message,
  }));
  const placed = issues.map((i) => ({ path: i.path, text: located(doc, i.path, i.message) }));
  const problems = [...doc.syntaxErrors.map((e) => `not valid JSON: ${e}`), ...placed.map((p) => p.text)];
  const own = ourEpisodeOfAtif(doc.value);
  if (own !== undefined) {
    const model = buildEpisodeModel({ ...own, problems: [...own.problems, ...problems] });
    return {
      kind: 'ours',
      model,
      format: {
        name: 'atif',
        version: version ?? 'unknown',
        lacks: [],
        facts: ['written by gp trajectory export: every step of the Graph Planner episode is kept whole'],
        submission: null,
      },
    };
  }
  const stepProblems = problemsByStep(placed, ['steps']);
  const steps = arr(root['steps']).map((raw, i) => atifStep(raw, i, stepProblems.get(i) ?? []));
  const agent = rec(root['agent']);
  const firstUser = steps.find((s) => s.source === 'user');
  const episode: ForeignEpisode = {
    format: {
      name: 'atif',
      version: known && version !== null ? version : `${version ?? 'no schema_version'} (read as ${atifVersions.at(-1) ?? ''})`,
      lacks: lacksOf(steps),
      facts: factsOf(root),
      submission: null,
    },
    taskId: str(rec(root['extra'])?.['task_id']),
    episodeId: str(root['trajectory_id']) ?? str(root['session_id']),
    agent:
      agent === null ? null : [str(agent['name']), str(agent['version']), str(agent['model_name'])].filter((x) => x !== null && x !== '').join(' ') || null,
    startedAt: steps.find((s) => s.timestamp !== null)?.timestamp ?? null,
    issue: firstUser === undefined ? null : issueOf(firstUser.message),
    steps,
    problems,
  };
  return { kind: 'foreign', episode };
}

function atifStep(raw: unknown, index: number, problems: string[]): ForeignStep {
  const s = rec(raw) ?? {};
  const sourceText = str(s['source']);
  const source = sourceText === 'system' || sourceText === 'user' || sourceText === 'agent' ? sourceText : 'agent';
  const message = contentOf(s['message']);
  const step = blankStep(index + 1, source, `steps[${index}]`, message.text);
  const metrics = rec(s['metrics']);
  const extra = boundedRecord(s['extra']);
  const results = arr(rec(s['observation'])?.['results']).map((r) => {
    const result = rec(r) ?? {};
    const content = contentOf(result['content']);
    step.media.push(...content.media);
    const subagents = arr(result['subagent_trajectory_ref']).map((ref) => {
      const x = rec(ref) ?? {};
      return str(x['trajectory_path']) ?? str(x['trajectory_id']) ?? str(x['session_id']) ?? '?';
    });
    return { callId: str(result['source_call_id']), content: content.text, subagents };
  });
  return {
    ...step,
    timestamp: str(s['timestamp']),
    model: str(s['model_name']),
    reasoning: str(s['reasoning_content']),
    toolCalls: arr(s['tool_calls']).map((c) => {
      const call = rec(c) ?? {};
      // The arguments as the file has them, even when they break the rules (a list): the problem says so.
      return { id: str(call['tool_call_id']), name: str(call['function_name']) ?? '?', arguments: bounded(call['arguments']) };
    }),
    results,
    media: [...message.media, ...step.media],
    metrics: {
      promptTokens: num(metrics?.['prompt_tokens']),
      completionTokens: num(metrics?.['completion_tokens']),
      cachedTokens: num(metrics?.['cached_tokens']),
      costUsd: num(metrics?.['cost_usd']),
      promptTokenIds: len(metrics?.['prompt_token_ids']),
      completionTokenIds: len(metrics?.['completion_token_ids']),
      logprobs: len(metrics?.['logprobs']),
    },
    // ATIF has no reward field; a reward is shown only when the step's extras carry one.
    reward: num(extra?.['reward']) ?? num(rec(metrics?.['extra'])?.['reward']),
    copiedContext: s['is_copied_context'] === true,
    extra,
    problems,
  };
}

function lacksOf(steps: readonly ForeignStep[]): string[] {
  const lacks: string[] = [];
  if (steps.every((s) => s.reward === null)) lacks.push('No rewards: ATIF has no reward field, and this file’s extras carry none.');
  else if (steps.some((s) => s.source === 'agent' && s.reward === null))
    lacks.push('Rewards only where a step’s extras carry one: ATIF itself has no reward field.');
  lacks.push('No outcome: ATIF does not say whether the task was resolved.');
  lacks.push(
    steps.some((s) => s.timestamp !== null)
      ? 'No step durations: ATIF records when a step happened, not how long it took.'
      : 'No times: this file records no time stamps.',
  );
  return lacks;
}

function factsOf(root: Record<string, unknown>): string[] {
  const facts: string[] = [];
  const m = rec(root['final_metrics']);
  if (m !== null) {
    const tokens = [
      num(m['total_prompt_tokens']) !== null && `${num(m['total_prompt_tokens'])} prompt`,
      num(m['total_completion_tokens']) !== null && `${num(m['total_completion_tokens'])} completion`,
      num(m['total_cached_tokens']) !== null && `${num(m['total_cached_tokens'])} cached`,
    ].filter(Boolean);
    if (tokens.length > 0) facts.push(`tokens: ${tokens.join(', ')}`);
    const cost = num(m['total_cost_usd']);
    if (cost !== null) facts.push(`cost $${cost.toFixed(4)}`);
    const total = num(m['total_steps']);
    if (total !== null) facts.push(`${total} steps by its own count`);
  }
  const notes = str(root['notes']);
  if (notes !== null && notes !== '') facts.push(`notes: ${notes}`);
  const subagents = arr(root['subagent_trajectories']).length;
  if (subagents > 0) facts.push(`${subagents} embedded subagent ${subagents === 1 ? 'trajectory' : 'trajectories'} (not shown here)`);
  const continued = str(root['continued_trajectory_ref']);
  if (continued !== null) facts.push(`continued in ${continued}`);
  return facts;
}
