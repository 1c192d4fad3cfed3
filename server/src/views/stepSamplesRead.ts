/**
 * A training run's per-step sample tables (`step_samples.jsonl`, written by
 * `trainer/trainRun.ts`) read for the metrics page: the steps that have a table and one step's
 * table. A resumed run writes a step again from its checkpoint; the last table of a step is the
 * one that trained, so it wins. Lines that are not tables are problems with their line numbers.
 */
import { readFile } from 'node:fs/promises';
import { stepSamplesLineSchema, type StepSamplesLine } from '../protocol/metrics.js';
import { parseJsonLines, runLayout } from '../runs/index.js';

export interface StepSamplesRead {
  readonly steps: number[];
  readonly samples: StepSamplesLine | null;
  readonly problems: string[];
}

/** The table of `step` (the latest when null) and every step that has one; nothing when the file is absent. */
export async function readStepSamples(dir: string, step: number | null): Promise<StepSamplesRead> {
  const path = runLayout(dir).stepSamples;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { steps: [], samples: null, problems: [] };
    throw error;
  }
  const parsed = parseJsonLines(text, stepSamplesLineSchema);
  const byStep = new Map<number, StepSamplesLine>();
  for (const line of parsed.records) byStep.set(line.step, line);
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const wanted = step ?? steps.at(-1);
  return { steps, samples: wanted === undefined ? null : (byStep.get(wanted) ?? null), problems: parsed.problems.map((p) => `step_samples.jsonl ${p}`) };
}
