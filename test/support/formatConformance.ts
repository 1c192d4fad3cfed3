/**
 * Runs test/support/format_conformance.py with the trainer environment's Python (python/setup.sh
 * pins the formats' packages there), so a test can ask the formats' own code whether it accepts
 * files we wrote.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { trainerPython } from '../../server/src/cluster/trainerEnvironment.js';

const inspectSampleRead = z.object({
  id: z.union([z.string(), z.number()]),
  epoch: z.number(),
  scores: z.record(z.string(), z.unknown()),
  messages: z.number(),
  roles: z.array(z.string()),
  tool_calls: z.number(),
  metadata: z.array(z.string()),
  error: z.string().nullable(),
});
const verdictSchema = z.object({
  file: z.string(),
  ok: z.boolean(),
  error: z.string().optional(),
  /** atif: the steps the validated document has. */
  steps: z.number().optional(),
  /** inspect: what `read_eval_log` read of the log and of each sample. */
  status: z.string().optional(),
  task: z.string().optional(),
  samples: z.array(inspectSampleRead).optional(),
  accuracy: z.number().nullable().optional(),
});
export type FormatVerdict = z.infer<typeof verdictSchema>;

/** What the format's own reader says of each file, in the order given. */
export function formatVerdicts(format: 'atif' | 'inspect', files: readonly string[], root: string): FormatVerdict[] {
  const python = trainerPython(undefined);
  const run = spawnSync(python, [join(root, 'test', 'support', 'format_conformance.py'), format, ...files], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0)
    throw new Error(
      `${python} could not run the ${format} conformance check (exit ${run.status}): ${run.stderr.trim().split('\n').slice(-3).join(' ')}; run bash python/setup.sh`,
    );
  return run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => verdictSchema.parse(JSON.parse(l)));
}
