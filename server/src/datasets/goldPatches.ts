/**
 * Gold patches for verification, in SWE-bench's predictions shape (`{instance_id, model_patch}`,
 * one per line, or a JSON array of them), as `gp dataset prepare` writes them beside its tasks
 * (`gold_predictions_<split>.jsonl` next to `<split>.jsonl`). They are kept apart from the tasks so
 * that no agent can read them.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface GoldPatches {
  readonly patches: Map<string, string>;
  /** `file:line:col what` for each entry that could not be used. */
  readonly problems: string[];
}

/** The predictions file `gp dataset prepare` writes beside a dataset file, when there is one. */
export function defaultGoldFile(datasetFile: string): string | undefined {
  const stem = basename(datasetFile).replace(/\.jsonl$/, '');
  const candidate = join(dirname(datasetFile), `gold_predictions_${stem}.jsonl`);
  return existsSync(candidate) ? candidate : undefined;
}

function take(file: string, line: number, value: unknown, out: GoldPatches): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.problems.push(`${file}:${line}:1 not an object: each prediction is {"instance_id": …, "model_patch": …}`);
    return;
  }
  const record = value as Record<string, unknown>;
  const id = record['instance_id'];
  const patch = record['model_patch'];
  if (typeof id !== 'string' || id === '') out.problems.push(`${file}:${line}:1 instance_id: a non-empty string is required`);
  else if (typeof patch !== 'string') out.problems.push(`${file}:${line}:1 model_patch: a string is required for ${id}`);
  else if (out.patches.has(id)) out.problems.push(`${file}:${line}:1 instance_id: ${id} appears twice; the first is used`);
  else out.patches.set(id, patch);
}

export async function readGoldPatches(file: string): Promise<GoldPatches> {
  const text = await readFile(file, 'utf8');
  const out: GoldPatches = { patches: new Map(), problems: [] };
  if (text.trimStart().startsWith('[')) {
    let array: unknown;
    try {
      array = JSON.parse(text);
    } catch (error) {
      out.problems.push(`${file}:1:1 not JSON (${error instanceof Error ? error.message : String(error)})`);
      return out;
    }
    (Array.isArray(array) ? array : []).forEach((value, i) => take(`${file}[${i}]`, 1, value, out));
    return out;
  }
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      take(file, i + 1, JSON.parse(raw), out);
    } catch (error) {
      out.problems.push(`${file}:${i + 1}:1 not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  });
  return out;
}
