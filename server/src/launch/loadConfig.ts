/**
 * Reading and resolving the config of a command: the one road from an experiment YAML (or none)
 * and the command-line flags to a typed config with its findings. `gp config check`,
 * `gp config resolve`, `gp rollout`, `gp eval` and `gp task test` all come through here, so they
 * read the file the same way, run the same checks once, and reach the same verdict on it.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { checkConfigDisk, resolveConfig, verdictOf, type ConfigFlags, type Resolution } from '../config/index.js';
import { runLayout } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';

export interface ConfigRequest {
  /** The YAML file as the person named it; undefined runs on the defaults and the flags alone. */
  readonly file: string | undefined;
  readonly flags: ConfigFlags;
  readonly cwd: string;
  /** Also run the rules that read the disk (paths exist, GPU memory from a model's config.json). */
  readonly disk: boolean;
}

export type LoadedConfig =
  | { readonly kind: 'unreadable'; readonly file: string; readonly message: string }
  | {
      readonly kind: 'resolved';
      /** The absolute path of the YAML, or undefined when the command ran on defaults. */
      readonly path: string | undefined;
      readonly resolution: Resolution;
    };

export async function loadConfig(request: ConfigRequest): Promise<LoadedConfig> {
  let text = '';
  const path = request.file === undefined ? undefined : resolve(request.cwd, request.file);
  if (path !== undefined) {
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      return { kind: 'unreadable', file: request.file ?? path, message: `cannot read it (${errorMessage(error)})` };
    }
  }
  const resolution = resolveConfig({ text, flags: request.flags, baseDir: request.cwd });
  if (!request.disk || resolution.config === undefined) return { kind: 'resolved', path, resolution };
  const disk = await checkConfigDisk(resolution, request.cwd);
  const findings = [...resolution.findings, ...disk];
  return { kind: 'resolved', path, resolution: { ...resolution, findings, verdict: verdictOf(findings) } };
}

/**
 * Whether a launch from `file` checks the paths it names on the disk: a YAML a person wrote, yes; a
 * run's `resolved_config.yaml` (a fork, a re-launch) writes out every path, the defaults' unused
 * placeholders too, so checking them would warn of files the run never reads.
 */
export function checksDisk(file: string | undefined): boolean {
  return file !== undefined && basename(file) !== basename(runLayout('/').resolvedConfig);
}
