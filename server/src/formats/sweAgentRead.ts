/**
 * A SWE-agent `.traj` file opened for the viewer (docs/field-formats.md §3). Each entry of its
 * `trajectory` is an agent step: the model's response, its thought, the action as the one tool call
 * (named by the action's first word, with the rest of the command as its argument) and the observation;
 * the system prompt and the issue come first, from `history`. A demonstration file, which has only
 * `history`, is read as a conversation. SWE-agent records no reward and no verdict, only an exit
 * status and the submitted patch, and the viewer says so.
 */
import { sweAgentTrajectorySchema } from '../protocol/sweAgent.js';
import type { ForeignStep } from '../protocol/episodeView.js';
import type { JsonDocument } from '../util/jsonDocument.js';
import { chatSteps } from './chatSteps.js';
import { blankStep, type ForeignEpisode } from './foreignEpisode.js';
import { agentInfoFacts, arr, bounded, boundedRecord, issueOf, located, num, problemsByStep, rec, str } from './foreignText.js';
import type { OpenedEpisode } from './openedEpisode.js';

export function readSweAgent(doc: JsonDocument, fileName: string): OpenedEpisode {
  const root = rec(doc.value) ?? {};
  const checked = sweAgentTrajectorySchema.safeParse(doc.value);
  const issues = (checked.success ? [] : checked.error.issues).map((i) => {
    const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    return { path, text: located(doc, path, i.message) };
  });
  const history = arr(root['history']);
  const trajectory = Array.isArray(root['trajectory']) ? root['trajectory'] : undefined;
  let steps: ForeignStep[];
  if (trajectory === undefined) {
    steps = chatSteps(history, { listPath: 'history', problems: problemsByStep(issues, ['history']) });
  } else {
    // The system prompt and the issue: the history's messages before the first action.
    const firstAction = history.findIndex((h) => rec(h)?.['role'] === 'assistant');
    const preamble = chatSteps(firstAction < 0 ? history : history.slice(0, firstAction), {
      listPath: 'history',
      problems: problemsByStep(issues, ['history']),
    });
    const byStep = problemsByStep(issues, ['trajectory']);
    steps = [...preamble, ...trajectory.map((raw, i) => trajectoryStep(raw, i, preamble.length + i + 1, byStep.get(i) ?? []))];
  }
  const info = rec(root['info']) ?? {};
  const firstUser = steps.find((s) => s.source === 'user');
  const episode: ForeignEpisode = {
    format: {
      name: 'swe-agent',
      version:
        trajectory === undefined
          ? '.traj (history only: a demonstration)'
          : `.traj${str(info['swe_agent_version']) === null ? '' : ` (SWE-agent ${str(info['swe_agent_version'])})`}`,
      lacks: [
        'No rewards: SWE-agent records none, per step or per episode.',
        'No outcome: SWE-agent records its exit status and the submitted patch, not whether the tests passed.',
        'No time stamps: only each action’s execution time.',
        ...(trajectory === undefined ? ['No actions or observations apart from the conversation: a demonstration holds only its history.'] : []),
      ],
      facts: agentInfoFacts(info),
      submission: str(info['submission']),
    },
    taskId: fileName.replace(/\.traj$/, ''),
    episodeId: null,
    agent: 'SWE-agent',
    startedAt: null,
    issue: firstUser === undefined ? null : issueOf(firstUser.message),
    steps,
    problems: [...doc.syntaxErrors.map((e) => `not valid JSON: ${e}`), ...issues.map((i) => i.text)],
  };
  return { kind: 'foreign', episode };
}

function trajectoryStep(raw: unknown, index: number, step: number, problems: string[]): ForeignStep {
  const s = rec(raw) ?? {};
  const action = str(s['action']) ?? '';
  const seconds = num(s['execution_time']);
  const state: Record<string, string> = {};
  for (const [key, value] of Object.entries(rec(s['state']) ?? {})) state[key] = typeof value === 'string' ? value : JSON.stringify(bounded(value));
  const thought = str(s['thought']);
  const response = str(s['response']) ?? '';
  return {
    ...blankStep(step, 'agent', `trajectory[${index}]`, response),
    // The thought is the response without its command block; shown apart only when it says something else.
    reasoning: thought !== null && !response.includes(thought.trim()) ? thought : null,
    toolCalls: action.trim() === '' ? [] : [commandCall(action)],
    results: [{ callId: null, content: str(s['observation']) ?? '', subagents: [] }],
    durationMs: seconds === null ? null : seconds * 1000,
    state,
    extra: boundedRecord(s['extra_info']),
    problems,
  };
}

/** `open "/repo/a.py"` as the command `open` with the rest of the line as its argument. */
function commandCall(action: string): ForeignStep['toolCalls'][number] {
  const trimmed = action.trim();
  const name = trimmed.split(/\s+/, 1)[0] ?? trimmed;
  return { id: null, name, arguments: trimmed.slice(name.length).trim() };
}
