/**
 * A mini-swe-agent `.traj.json` file opened for the viewer (docs/field-formats.md §4): the current
 * shape (`trajectory_format: "mini-swe-agent-1.1"`, an object with `info` and `messages`) and the
 * oldest (a bare list of messages). The conversation becomes steps (`chatSteps.ts`); an assistant
 * message's command is its `extra.actions`, or, in files older than those extras, the one
 * fenced block of its text that mini-swe-agent itself executes. mini-swe-agent records no reward.
 */
import { miniSweAgentTrajectorySchema } from '../protocol/sweAgent.js';
import type { ForeignStep } from '../protocol/episodeView.js';
import type { JsonDocument } from '../util/jsonDocument.js';
import { chatSteps } from './chatSteps.js';
import type { ForeignEpisode } from './foreignEpisode.js';
import { agentInfoFacts, arr, boundedRecord, issueOf, located, num, problemsByStep, rec, str } from './foreignText.js';
import type { OpenedEpisode } from './openedEpisode.js';

/** The block mini-swe-agent executes (`mswea_bash_command`, or `bash` in its older prompts). */
const commandBlock = /```(?:mswea_bash_command|bash)\s*\n([\s\S]*?)\n```/g;

export function readMiniSweAgent(doc: JsonDocument, fileName: string): OpenedEpisode {
  const bare = Array.isArray(doc.value);
  const root = rec(doc.value) ?? {};
  const messages = bare ? (doc.value as unknown[]) : arr(root['messages']);
  const checked = miniSweAgentTrajectorySchema.safeParse(doc.value);
  const issues = (checked.success ? [] : checked.error.issues).map((i) => {
    const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    return { path, text: located(doc, path, i.message) };
  });
  const steps = chatSteps(messages, { listPath: bare ? '' : 'messages', problems: problemsByStep(issues, bare ? [] : ['messages']), actionsOf, enrich });
  const info = rec(root['info']) ?? {};
  const format = str(root['trajectory_format']);
  const firstUser = steps.find((s) => s.source === 'user');
  const timed = steps.some((s) => s.timestamp !== null);
  const episode: ForeignEpisode = {
    format: {
      name: 'mini-swe-agent',
      version: bare ? 'a list of messages (the oldest shape)' : (format ?? 'messages without trajectory_format'),
      lacks: [
        'No rewards: mini-swe-agent records none, per step or per episode.',
        bare
          ? 'No outcome: this oldest shape keeps only the messages (no exit status, no submission, no cost).'
          : 'No outcome: mini-swe-agent records its exit status and the submission, not whether the tests passed.',
        timed ? 'No step durations: only when each reply came.' : 'No times: this file records no time stamps.',
      ],
      facts: agentInfoFacts(info),
      submission: str(info['submission']),
    },
    taskId: fileName.replace(/\.traj\.json$|\.json$/, ''),
    episodeId: null,
    agent: ['mini-swe-agent', str(info['mini_version']), str(rec(rec(info['config'])?.['model'])?.['model_name'])].filter((x) => x !== null).join(' '),
    startedAt: steps.find((s) => s.timestamp !== null)?.timestamp ?? null,
    issue: firstUser === undefined ? null : issueOf(firstUser.message),
    steps,
    problems: [...doc.syntaxErrors.map((e) => `not valid JSON: ${e}`), ...issues.map((i) => i.text)],
  };
  return { kind: 'foreign', episode };
}

function actionsOf(message: Record<string, unknown>): ForeignStep['toolCalls'] {
  const listed = arr(rec(message['extra'])?.['actions']).flatMap((a) => {
    const command = str(rec(a)?.['command']);
    return command === null ? [] : [{ id: null, name: 'bash', arguments: command }];
  });
  if (listed.length > 0) return listed;
  const text = str(message['content']) ?? '';
  return [...text.matchAll(commandBlock)].map((m) => ({ id: null, name: 'bash', arguments: m[1] ?? '' }));
}

/** The time, cost and token usage mini-swe-agent keeps in a reply's `extra`. */
function enrich(step: ForeignStep, message: Record<string, unknown>): ForeignStep {
  const extra = rec(message['extra']);
  if (extra === null) return step;
  const usage = rec(rec(extra['response'])?.['usage']);
  const time = num(extra['timestamp']);
  const { response: _response, actions: _actions, ...rest } = extra;
  return {
    ...step,
    timestamp: time === null ? str(extra['timestamp']) : new Date(time * 1000).toISOString(),
    metrics: { ...step.metrics, promptTokens: num(usage?.['prompt_tokens']), completionTokens: num(usage?.['completion_tokens']), costUsd: num(extra['cost']) },
    extra: Object.keys(rest).length === 0 ? null : boundedRecord(rest),
  };
}
