/**
 * `gp dataset register FILE --name N --split S`: writes the parquet file rLLM and Verl read and
 * records it in the registry, then reads it back to check every row.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { RegisterError, registerDataset } from '../datasets/index.js';
import { parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { plural, type Io } from './output.js';

export const datasetRegisterUsage = `gp dataset register FILE --name N --split S [--root DIR] [--source ID]
               [--description TEXT] [--json]
      Write DIR/N/S_verl.parquet (columns prompt, reward_model, extra_info) from a task
      file and record it in DIR/registry.json (rLLM's layout; DIR defaults to
      $RLLM_HOME/datasets, else ~/.rllm/datasets). Every row is read back and checked.`;

const command: CommandUsage = { name: 'dataset register', usage: datasetRegisterUsage };

/** rLLM keeps its registry under `$RLLM_HOME/datasets` (default `~/.rllm`); registering there needs no copying. */
export const datasetRegisterOptions = {
  name: { type: 'string' },
  split: { type: 'string' },
  root: { type: 'string' },
  source: { type: 'string' },
  description: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function defaultRegistryRoot(): string {
  return join(process.env['RLLM_HOME'] ?? join(homedir(), '.rllm'), 'datasets');
}

export async function datasetRegister(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const parsed = parseCommandArgs(command, argv, datasetRegisterOptions, io);
  if (!parsed.ok) return parsed.exit;
  const v = parsed.values;
  const errors = parsed.errors;
  if (parsed.positionals.length !== 1) errors.push('name exactly one task file.');
  if (v.name === undefined) errors.push('--name is required (e.g. graph_planner_repoenv).');
  if (v.split === undefined) errors.push('--split is required (e.g. train, val or eval).');
  const file = parsed.positionals[0];
  if (errors.length > 0 || file === undefined || v.name === undefined || v.split === undefined) return usageError(command, io, errors);
  try {
    const result = await registerDataset({
      file: resolve(cwd, file),
      name: v.name,
      split: v.split,
      root: resolve(cwd, v.root ?? defaultRegistryRoot()),
      ...(v.source !== undefined ? { source: v.source } : {}),
      ...(v.description !== undefined ? { description: v.description } : {}),
    });
    if (v.json === true) io.out(JSON.stringify(result, null, 2));
    else {
      io.out(`Registered ${v.name}/${v.split}: ${plural(result.rows, 'row')}, every one read back and checked.`);
      io.out(`Verl file: ${result.verlPath} (sha256 ${result.sha256.slice(0, 16)}…)`);
      io.out(`Registry: ${result.registryPath}`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof RegisterError)) throw error;
    io.err(`gp dataset register: ${error.message}`);
    for (const p of error.problems.slice(0, 50)) io.err(`  ${p}`);
    if (error.problems.length > 50) io.err(`  … and ${error.problems.length - 50} more.`);
    io.err('Nothing was written.');
    return 1;
  }
}
