/**
 * The run folder a launch writes into: its name (`<experiment>-<command>-<UTC stamp>` unless the
 * config names it), its place under `logging.output_dir`, the run record kept in the resolved
 * config, and the atomic write of `resolved_config.yaml`. The file names come from
 * `runs/layout.ts`, the one place that names a run's files.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { renderConfigYaml, type ExperimentConfig, type Override } from '../config/index.js';
import { runLayout, type RunLayout } from '../runs/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { compactUtcStamp, isoTimestamp } from '../util/time.js';

export interface RunFolder {
  readonly name: string;
  readonly dir: string;
  readonly layout: RunLayout;
  /** The resolved config with the run recorded in its `run` section. */
  readonly config: ExperimentConfig;
}

export interface RunFolderRequest {
  /** The command launching (`train`, `eval`, `rollout`, `resolve`); part of the default name. */
  readonly command: string;
  readonly now: Date;
  /** The command line as typed, recorded in the resolved config. */
  readonly commandLine: string;
  readonly ignored: readonly Override[];
}

export function planRunFolder(config: ExperimentConfig, request: RunFolderRequest): RunFolder {
  const outputDir = config.logging.output_dir;
  const name = config.logging.wandb.run_name ?? defaultRunName(config.experiment.name, request.command, request.now, outputDir);
  const dir = join(outputDir, name);
  const layout = runLayout(dir);
  return {
    name,
    dir,
    layout,
    config: {
      ...config,
      run: {
        name,
        dir,
        config_path: layout.resolvedConfig,
        command: request.commandLine,
        created_at: isoTimestamp(request.now),
        ignored_overrides: request.ignored.map((o) => o.flag),
      },
    },
  };
}

/** The run moved to `dir` (from `--run-dir` or `--resume`), its record in the config updated to match. */
export function moveRunFolder(run: RunFolder, dir: string): RunFolder {
  const name = basename(dir);
  const layout = runLayout(dir);
  const record = run.config.run;
  return {
    name,
    dir,
    layout,
    config: { ...run.config, ...(record === undefined ? {} : { run: { ...record, name, dir, config_path: layout.resolvedConfig } }) },
  };
}

/** Writes the resolved config into its run folder; returns the file's path. */
export async function writeResolvedConfig(run: RunFolder, sourceFile: string): Promise<string> {
  await mkdir(run.dir, { recursive: true });
  const header = `# Resolved by gp from ${sourceFile} at ${run.config.run?.created_at ?? ''}.\n# Defaults, the YAML and command-line overrides merged; this is what the run used.\n`;
  await writeFileAtomic(run.layout.resolvedConfig, header + renderConfigYaml(run.config));
  return run.layout.resolvedConfig;
}

function defaultRunName(experiment: string, command: string, now: Date, outputDir: string): string {
  const base = `${experiment.replace(/[^A-Za-z0-9._-]/g, '_')}-${command}-${compactUtcStamp(now)}`;
  // Two launches in the same second still get folders of their own.
  let name = base;
  for (let i = 2; existsSync(join(outputDir, name)); i++) name = `${base}-${i}`;
  return name;
}

/** `dir`, or `dir-2`, `dir-3`, … when it is taken: a launch that must never write into an existing folder. */
export function unusedFolder(dir: string): string {
  let candidate = dir;
  for (let i = 2; existsSync(candidate); i++) candidate = join(dirname(dir), `${basename(dir)}-${i}`);
  return candidate;
}
