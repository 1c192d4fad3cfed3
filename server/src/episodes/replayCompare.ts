/**
 * Comparing a replayed step with its recording, for `gp trajectory replay`. What legitimately
 * differs between two executions is taken out first: durations, temporary paths, object addresses,
 * clock times, the test runner's timing lines and output tails, pre-image hashes (a replay keeps
 * none) and where repair candidates came from (a replay feeds the recorded candidates back as the
 * action's own).
 * Everything else must be equal: the reward, done and termination reason, and the observation both
 * as structured data and as the text the model read.
 */
import type { Observation } from '../protocol/observation.js';

export interface StepRecord {
  readonly observation: Observation;
  readonly reward: number;
  readonly done: boolean;
  readonly terminationReason: string | undefined;
}

export interface Difference {
  /** What differs: `reward`, `done`, `observation.last.candidates[0].tests.passed`, `observation.text line 12`. */
  readonly where: string;
  readonly recorded: string;
  readonly replayed: string;
}

/** Keys whose values vary from one execution to the next. */
const volatileKeys = new Set(['duration_ms', 'tail', 'preimages', 'source']);

/**
 * What a program prints differently on each run although nothing it computed changed: temporary
 * folders of sandboxes (`/tmp/gp-<task>-XXXXXX`), of Python's `tempfile` and of pytest's
 * `tmp_path`; timing phrases of test runners; object addresses in a default `repr`
 * (`<invoicing.Invoice object at 0x7fa4c2d3e5b0>`, `<function f at 0x…>`), which differ with every
 * process; and clock times (`2026-11-25T19:47:37.123Z`, `2026-11-25 19:47:37,123`). A short hex
 * number (`0xff`) is data, not an address, and is kept, as is a date without a time.
 */
const volatileText: [RegExp, string][] = [
  [/\/tmp\/gp-[^\s/'"]+/g, '<sandbox>'],
  [/\/tmp\/pytest-of-[^\s/'"]+\/pytest-\d+/g, '<pytest-tmp>'],
  [/\/tmp\/tmp[a-z0-9_]{6,}/g, '<tmp>'],
  [/\b0x[0-9a-fA-F]{8,16}\b/g, '0x<address>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<timestamp>'],
  [/\bin \d+(?:\.\d+)?\s?s\b/g, 'in <time>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|s)\b(?= *(?:\(|\]|,|$))/gm, '<time>'],
];

export function normaliseText(text: string): string {
  return volatileText.reduce((t, [pattern, replacement]) => t.replace(pattern, replacement), text);
}

function normalise(value: unknown): unknown {
  if (typeof value === 'string') return normaliseText(value);
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([key]) => !volatileKeys.has(key))
        .map(([key, v]) => [key, normalise(v)]),
    );
  }
  return value;
}

/** The first difference between two normalised values, depth first, with its path. */
function firstDifference(recorded: unknown, replayed: unknown, path: string): Difference | undefined {
  if (recorded === replayed) return undefined;
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 400));
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
      const d = firstDifference(recorded[i], replayed[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (
    recorded !== null &&
    replayed !== null &&
    typeof recorded === 'object' &&
    typeof replayed === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(replayed)
  ) {
    const a = recorded as Record<string, unknown>;
    const b = replayed as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const d = firstDifference(a[key], b[key], `${path}.${key}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return { where: path, recorded: show(recorded), replayed: show(replayed) };
}

/** The first way the replayed step differs from the recording, or undefined when they agree. */
export function compareStep(recorded: StepRecord, replayed: StepRecord): Difference | undefined {
  if (Math.abs(recorded.reward - replayed.reward) > 1e-9) return { where: 'reward', recorded: String(recorded.reward), replayed: String(replayed.reward) };
  if (recorded.done !== replayed.done) return { where: 'done', recorded: String(recorded.done), replayed: String(replayed.done) };
  if (recorded.terminationReason !== replayed.terminationReason)
    return { where: 'termination reason', recorded: recorded.terminationReason ?? '(none)', replayed: replayed.terminationReason ?? '(none)' };
  const { text: recordedText, ...recordedData } = recorded.observation;
  const { text: replayedText, ...replayedData } = replayed.observation;
  const structured = firstDifference(normalise(recordedData), normalise(replayedData), 'observation');
  if (structured !== undefined) return structured;
  const a = normaliseText(recordedText).split('\n');
  const b = normaliseText(replayedText).split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return { where: `observation text, line ${i + 1}`, recorded: a[i] ?? '(no line)', replayed: b[i] ?? '(no line)' };
  }
  return undefined;
}
