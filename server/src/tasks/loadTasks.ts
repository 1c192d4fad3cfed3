/**
 * Reads a dataset file into typed tasks for running them (the validator, `jsonl.ts`, is for
 * reporting every problem; this is for using the rows that are valid). Legacy shapes are
 * normalised first. A row that is not a valid task becomes a problem with its line and column,
 * and the other rows are still returned.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { normalizeTask } from './normalize.js';
import { taskEntrySchema, type TaskEntry } from './schema.js';

export interface LoadedTask {
  task: TaskEntry;
  /** 1-based line of the row in its file. */
  line: number;
}

export interface LoadedTasks {
  tasks: LoadedTask[];
  /** `file:line:col message` for each row that could not be used. */
  problems: string[];
}

function positionOf(error: SyntaxError, text: string): number {
  const m = /position (\d+)/.exec(error.message);
  if (m) return Number(m[1]) + 1;
  return text.length + 1;
}

/** Reads a JSONL file (or a `.json` file with one task or a list of tasks). */
export async function loadTasks(file: string): Promise<LoadedTasks> {
  const out: LoadedTasks = { tasks: [], problems: [] };
  const take = (raw: unknown, line: number) => {
    const parsed = taskEntrySchema.safeParse(normalizeTask(raw).value);
    if (parsed.success) out.tasks.push({ task: parsed.data, line });
    else {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'the row';
      out.problems.push(`${file}:${line}:1 ${where}: ${issue?.message ?? 'not a valid task'} (run gp dataset validate ${file} for every problem)`);
    }
  };
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  let whole = '';
  const isJson = file.endsWith('.json');
  for await (const text of rl) {
    line++;
    if (isJson) {
      whole += `${text}\n`;
      continue;
    }
    if (text.trim() === '') continue;
    try {
      take(JSON.parse(text), line);
    } catch (error) {
      out.problems.push(`${file}:${line}:${positionOf(error as SyntaxError, text)} invalid JSON: ${(error as Error).message}`);
    }
  }
  if (isJson) {
    try {
      const value: unknown = JSON.parse(whole);
      (Array.isArray(value) ? value : [value]).forEach((row) => take(row, 1));
    } catch (error) {
      out.problems.push(`${file}:1:1 invalid JSON: ${(error as Error).message}`);
    }
  }
  return out;
}
