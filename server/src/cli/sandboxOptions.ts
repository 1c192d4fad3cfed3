/**
 * The experiment config's `sandbox` section as options for opening task sandboxes, with command
 * line flags on top. Kept in the CLI layer because the sandbox folder knows nothing of configs.
 */
import { parseMemorySize } from '../config/memoryEstimate.js';
import type { ExperimentConfig } from '../config/index.js';
import type { SandboxBackendName } from '../protocol/sandbox.js';
import type { TaskSandboxOptions } from '../sandbox/index.js';

export function sandboxOptionsFromConfig(config: ExperimentConfig['sandbox'], run: string): TaskSandboxOptions & { testTimeoutMs: number } {
  const memory = config.memory === null ? null : (parseMemorySize(config.memory) ?? null);
  return {
    run,
    backend: config.backend as SandboxBackendName,
    limits: { memoryBytes: memory === null ? null : Math.round(memory), cpus: config.cpus, pids: config.pids },
    commandTimeoutMs: Math.round(config.command_timeout * 1000),
    outputLimitBytes: Math.round(parseMemorySize(config.output_limit) ?? 1_048_576),
    testTimeoutMs: Math.round(config.test_timeout * 1000),
  };
}
