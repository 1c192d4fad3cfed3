/**
 * The config of a command that runs tasks' tests (`gp task test`, `gp dataset verify`): `--config`
 * or `--config-file`, the config flags, and `--backend` as an override of `sandbox.backend`,
 * resolved through `loadConfig` and its findings printed as every command prints them.
 */
import type { ConfigFlags, ExperimentConfig, Override } from '../config/index.js';
import { loadConfig } from '../launch/index.js';
import { printConfigFindings } from './configFindings.js';
import type { Io } from './output.js';

export interface TestCommandConfigRequest {
  /** `gp task test`, for the messages. */
  readonly command: string;
  readonly flags: ConfigFlags;
  /** `--config`, when given (the same as `--config-file`). */
  readonly config: string | undefined;
  readonly backend: string | undefined;
  readonly cwd: string;
  /** What was not done when the config has errors ("no task was run"). */
  readonly nothingDone: string;
}

/** The resolved config (and the overrides `--yaml-only` ignored), or the exit code (2) after saying why there is none. */
export async function loadTestCommandConfig(
  request: TestCommandConfigRequest,
  io: Io,
): Promise<{ config: ExperimentConfig; ignored: readonly Override[] } | number> {
  // `--backend` is an override of `sandbox.backend`, checked by the config schema like any other.
  const flags =
    request.backend === undefined
      ? request.flags
      : {
          ...request.flags,
          overrides: [...request.flags.overrides, { flag: `--backend ${request.backend}`, path: ['sandbox', 'backend'], value: request.backend }],
        };
  const configFile = request.config ?? request.flags.configFile;
  // Without a YAML the defaults' placeholder paths are not worth a disk check (as in gp rollout).
  const configLoad = await loadConfig({ file: configFile, flags, cwd: request.cwd, disk: configFile !== undefined });
  if (configLoad.kind === 'unreadable') {
    io.err(`${configLoad.file}: ${configLoad.message}.`);
    return 2;
  }
  printConfigFindings(configFile ?? request.command, configLoad.resolution, io);
  const config = configLoad.resolution.config;
  if (configLoad.resolution.verdict === 'errors' || config === undefined) {
    io.err(`${request.command}: the config has errors; ${request.nothingDone}.`);
    return 2;
  }
  return { config, ignored: configLoad.resolution.ignored };
}
