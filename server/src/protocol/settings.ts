/**
 * The extension's settings (the `graphPlanner.*` block of package.json). `npm run schemas`
 * generates `contributes.configuration` from this schema and a test fails when they drift. The
 * server receives them per resource through `workspace/configuration`, never as globals.
 */
import { z } from 'zod';

export const settingsSchema = z.object({
  experimentGlobs: z
    .array(z.string())
    .default(['**/configs/**/*.{yaml,yml}', '**/*.gp.yaml'])
    .meta({ description: 'Glob patterns of experiment YAML files that Graph Planner checks.' }),
  datasetGlobs: z
    .array(z.string())
    .default(['**/datasets/**/*.jsonl'])
    .meta({ description: 'Glob patterns of dataset JSONL files that Graph Planner checks.' }),
  validationDelayMs: z.int().min(0).max(2000).default(15).meta({ description: 'Debounce after an edit before diagnostics are recomputed, in milliseconds.' }),
  preflightDiskChecks: z
    .boolean()
    .default(true)
    .meta({ description: 'Check that dataset and model paths exist and estimate GPU memory from model config.json files.' }),
  largeDatasetBytes: z
    .int()
    .min(1)
    .default(50 * 1024 * 1024)
    .meta({ description: 'Dataset files at least this large (bytes) are validated from disk by the server instead of through the editor.' }),
  serverPath: z
    .string()
    .nullable()
    .default(null)
    .meta({ description: 'Path of a language server bundle to run instead of the one shipped with the extension (for development).' }),
  runRoots: z.array(z.string()).default([]).meta({
    description:
      'More folders that hold run folders, for the Runs view and task outcomes (absolute, or relative to the workspace folder). The `logging.output_dir` of every experiment in the workspace is always included.',
  }),
  codeLens: z.boolean().default(true).meta({ description: 'Show `▶ Rollout · ▶ Evaluate` above the first key of an experiment YAML.' }),
  trace: z
    .enum(['off', 'messages', 'verbose'])
    .default('off')
    .meta({ description: 'Trace the communication between VS Code and the Graph Planner server in the output channel.' }),
});
export type Settings = z.infer<typeof settingsSchema>;
export const defaultSettings: Settings = settingsSchema.parse({});
