/**
 * What a converter makes of one source row: a task with its instance file (and, for SWE-bench,
 * the gold patch, which is kept apart for evaluation and never put where an agent could read it),
 * or a skip with the reason that is counted in the report.
 */
import type { ConversionNote, InstanceFile, SkipReason } from '../protocol/datasetPrepare.js';
import type { TaskEntryInput } from '../tasks/index.js';

export type Conversion =
  | {
      readonly kind: 'task';
      readonly task: TaskEntryInput;
      readonly instance: InstanceFile;
      readonly goldPatch?: string;
      readonly notes: readonly ConversionNote[];
      /** Why the task got no python_env although its repository and version are known (SWE-bench's tables could not give one). */
      readonly envProblem?: string;
    }
  | { readonly kind: 'skip'; readonly reason: SkipReason; readonly message: string };

/** Where the converter is and what to call things; the same for every row of one prepare run. */
export interface ConvertContext {
  /** The dataset id, e.g. `R2E-Gym/R2E-Gym-Lite`; becomes the task's `data_source`. */
  readonly dataset: string;
  /** The split the rows came from. */
  readonly split: string;
  /** The row's place in its source file, for the instance file and messages. */
  readonly place: string;
  /** A `max_steps` to write on every task; when absent only rows that carry one get it. */
  readonly maxSteps?: number;
}

export function skip(reason: SkipReason, message: string): Conversion {
  return { kind: 'skip', reason, message };
}

/** The instance file's path relative to the task JSONL's folder, as `sandbox.r2e_ds_json` holds it. */
export function instanceRelativePath(safeTaskId: string): string {
  return `instances/${safeTaskId}.json`;
}

/** The first meaningful line of an issue text, shortened, for a title when the row has none. */
export function titleFromText(text: string, max = 100): string {
  // Line by line from the top: issue texts run to kilobytes and the title is near the start.
  let line = '';
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf('\n', start);
    const raw = text.slice(start, end === -1 ? text.length : end);
    const cleaned = raw
      .replace(/^\s*(#+|\*\*|title:)\s*/i, '')
      .replace(/\*\*$/, '')
      .trim();
    if (cleaned.length > 0 && !/^\[\/?ISSUE\]$/i.test(cleaned)) {
      line = cleaned;
      break;
    }
    if (end === -1) break;
    start = end + 1;
  }
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}
