/**
 * The findings about a dataset file as a whole: a file that is not text gets one error (where its
 * first offending byte is, and what to do) instead of one finding per "line" of binary noise, and a
 * file without a single task line gets one warning instead of passing silently.
 */
import { finding } from '../protocol/index.js';
import { classifyBytes, classifyText, describeNotText, type NotText } from '../util/textFile.js';
import type { JsonlFinding } from './jsonl.js';

/** How much of a file decides whether it is text, like git's look at the first 8,000 bytes, but wider. */
export const textSampleBytes = 64 * 1024;

const what = 'a dataset JSONL file';

function notTextFinding(problem: NotText, line: number, column: number): JsonlFinding {
  return {
    ...finding({ code: 'jsonl/not-text', severity: 'error', message: describeNotText(problem, what), path: [] }),
    line,
    start: column,
    end: column + 1,
  };
}

/**
 * The `jsonl/not-text` finding for a file whose first bytes are `sample`, or undefined when they
 * are text. Text in another encoding counts as text here: each of its undecodable bytes gets the
 * per-line `jsonl/encoding` finding, on its line.
 */
export function sampleNotText(sample: Uint8Array): JsonlFinding | undefined {
  const kind = classifyBytes(sample.subarray(0, textSampleBytes), true);
  if (kind.kind !== 'not-text') return undefined;
  const offset = kind.problem.byteOffset;
  let line = 0;
  for (let i = sample.indexOf(0x0a); i >= 0 && i < offset; i = sample.indexOf(0x0a, i + 1)) line++;
  const lineStart = offset === 0 ? 0 : sample.lastIndexOf(0x0a, offset - 1) + 1;
  const column = new TextDecoder().decode(sample.subarray(lineStart, offset)).length;
  return notTextFinding(kind.problem, line, column);
}

/** The same for a document already decoded (an editor buffer), where undecodable bytes are U+FFFD. */
export function textNotText(text: string): JsonlFinding | undefined {
  const kind = classifyText(text);
  if (kind.kind !== 'not-text') return undefined;
  const offset = kind.problem.charOffset;
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return notTextFinding(kind.problem, line, offset - (before.lastIndexOf('\n') + 1));
}

/** `jsonl/empty`: the file has no line with anything on it, so no tasks. */
export function emptyDatasetFinding(): JsonlFinding {
  return {
    ...finding({
      code: 'jsonl/empty',
      severity: 'warning',
      message:
        'The file has no tasks: it is empty or only blank lines. Write one task per line, each a JSON object (docs/reference/configuration.md, "Dataset task entry", lists the keys).',
      path: [],
    }),
    line: 0,
    start: 0,
    end: 0,
  };
}
