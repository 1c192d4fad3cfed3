/**
 * Preflight: the checks that catch a run that would fail or train the wrong thing before it
 * starts (ARCHITECTURE.md §4.4, §4.6). `preflight` is pure and synchronous because the editor runs it on
 * every keystroke; `preflightDisk` holds the rules that read files. Callers that want both (the
 * CLI, `gp train`) concatenate the two lists.
 *
 * Neither throws: a rule that throws is a bug in that rule, and it becomes one
 * `preflight/internal` warning while the other rules still report.
 */
import type { ExperimentConfig } from './schema.js';
import { finding, type Finding } from '../protocol/index.js';
import { gpuBatchRule, groupSizeRule, miniBatchRule } from './preflight/batchRules.js';
import { endpointRule } from './preflight/backendRules.js';
import { deviceIndexRule, deviceMapSizeRule } from './preflight/deviceMapRules.js';
import { wandbBackendRule, wandbOfflineRule } from './preflight/loggingRules.js';
import { memoryEstimateRule } from './preflight/memoryRule.js';
import { embeddedModelRule, promptFilesRule } from './preflight/modelRules.js';
import { replicasRule, sharedDevicesRule, tensorParallelRule, workflowParallelRule } from './preflight/parallelRules.js';
import { pathsExistRule } from './preflight/pathRules.js';
import { applicableFindings } from './preflight/applicable.js';
import { negativePenaltyRule } from './preflight/penaltyRules.js';
import { rayCpuRule, rayGpuRule } from './preflight/rayRules.js';
import type { DiskRule, Rule } from './preflight/rule.js';
import { errorMessage } from '../util/errors.js';

export type { DiskRule, Rule } from './preflight/rule.js';
export { rayCpusNeeded, rayGpusNeeded } from './preflight/rayRules.js';
export { modelSettingKeys, usesModels } from './preflight/applicable.js';

/** The synchronous rules, in the order their findings are listed. */
export const preflightRules: readonly Rule[] = [
  tensorParallelRule,
  sharedDevicesRule,
  replicasRule,
  deviceIndexRule,
  deviceMapSizeRule,
  miniBatchRule,
  gpuBatchRule,
  groupSizeRule,
  rayGpuRule,
  rayCpuRule,
  workflowParallelRule,
  negativePenaltyRule,
  wandbBackendRule,
  wandbOfflineRule,
  endpointRule,
  embeddedModelRule,
];

export const preflightDiskRules: readonly DiskRule[] = [pathsExistRule, memoryEstimateRule, promptFilesRule];

export function preflight(config: ExperimentConfig): Finding[] {
  return applicableFindings(config, runRules(config, preflightRules));
}

export async function preflightDisk(config: ExperimentConfig, baseDir: string): Promise<Finding[]> {
  return applicableFindings(config, await runDiskRules(config, baseDir, preflightDiskRules));
}

/** Runs rules one by one so that a rule that throws costs only its own findings. */
export function runRules(config: ExperimentConfig, rules: readonly Rule[]): Finding[] {
  return rules.flatMap((rule) => {
    try {
      return [...rule.check(config)];
    } catch (error) {
      return [internalFinding(rule.name, error)];
    }
  });
}

export async function runDiskRules(config: ExperimentConfig, baseDir: string, rules: readonly DiskRule[]): Promise<Finding[]> {
  const results = await Promise.all(
    rules.map(async (rule) => {
      try {
        return [...(await rule.check(config, baseDir))];
      } catch (error) {
        return [internalFinding(rule.name, error)];
      }
    }),
  );
  return results.flat();
}

function internalFinding(ruleName: string, error: unknown): Finding {
  const detail = errorMessage(error);
  return finding({
    code: 'preflight/internal',
    severity: 'warning',
    message: `The preflight rule ${ruleName} failed (${detail}); this is a bug in Graph Planner, please report it. The other checks still ran.`,
    path: [],
  });
}
