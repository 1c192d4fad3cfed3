/**
 * The experiment config's `sandbox` section as options for opening task sandboxes. The sandbox
 * folder knows nothing of configs; its time and output limits come from here, so each default is
 * the config schema's (`sandbox.command_timeout`, `sandbox.output_limit`, `sandbox.test_timeout`).
 */
import { experimentConfigSchema, parseMemorySize, type ExperimentConfig } from '../config/index.js';
import type { SandboxBackendName } from '../protocol/index.js';
import type { SandboxLimits } from '../protocol/sandbox.js';
import type { TaskSandboxOptions } from '../sandbox/index.js';

export type LaunchSandboxOptions = TaskSandboxOptions & {
  readonly commandTimeoutMs: number;
  readonly outputLimitBytes: number;
  readonly testTimeoutMs: number;
};

/** The limits each sandbox is opened with: `sandbox.memory`, `sandbox.cpus` and `sandbox.pids`. */
export function sandboxLimitsFromConfig(config: ExperimentConfig['sandbox']): SandboxLimits {
  const memory = config.memory === null ? null : (parseMemorySize(config.memory) ?? null);
  return { memoryBytes: memory === null ? null : Math.round(memory), cpus: config.cpus, pids: config.pids };
}

export function sandboxOptionsFromConfig(config: ExperimentConfig['sandbox'], run: string): LaunchSandboxOptions {
  return {
    run,
    backend: config.backend as SandboxBackendName,
    limits: sandboxLimitsFromConfig(config),
    commandTimeoutMs: Math.round(config.command_timeout * 1000),
    // The schema's pattern admits only sizes parseMemorySize reads, so the fallback never applies.
    outputLimitBytes: Math.round(parseMemorySize(config.output_limit) ?? Number.NaN),
    testTimeoutMs: Math.round(config.test_timeout * 1000),
    allowedMountRoots: config.allowed_mount_roots,
    capabilities: config.capabilities,
    unknownBase: config.unknown_base,
  };
}

/** The sandbox options of a config with nothing set: the schema's defaults, for callers without a config. */
export function defaultSandboxOptions(run = 'adhoc'): LaunchSandboxOptions {
  return sandboxOptionsFromConfig(experimentConfigSchema.parse({}).sandbox, run);
}
