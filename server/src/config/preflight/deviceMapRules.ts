/**
 * Device maps name the GPU indices each model uses on a node. An index at or above num_gpus does
 * not exist (an error); a map whose length differs from the model's tensor parallel size is
 * probably a leftover from an earlier layout (a warning).
 */
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type Fix, type KeyPath } from '../../protocol/index.js';
import { gpusPerNodeFor, NUM_GPUS, raiseGpusFix } from './gpus.js';
import { related, setFix, type Rule } from './rule.js';

type Role = 'planner' | 'cgm';
const ROLES: readonly Role[] = ['planner', 'cgm'];

function mapKey(role: Role): 'device_map_planner' | 'device_map_cgm' {
  return role === 'planner' ? 'device_map_planner' : 'device_map_cgm';
}

function tpKey(role: Role): 'tensor_parallel_planner' | 'tensor_parallel_cgm' {
  return role === 'planner' ? 'tensor_parallel_planner' : 'tensor_parallel_cgm';
}

function outOfRange(config: ExperimentConfig, role: Role): Finding[] {
  const key = mapKey(role);
  const map = config.backends[key];
  const gpus = config.resources.num_gpus;
  const bad = map.filter((index) => index >= gpus);
  if (bad.length === 0) return [];
  const path: KeyPath = ['backends', key];
  const kept = map.filter((index) => index < gpus);
  const range = gpus === 0 ? 'the run has no GPUs' : `indices run from 0 to ${gpus - 1}`;
  // Every finding offers the same fixes, which drop or cover all bad indices at once, so applying
  // one never leaves a stale edit behind in the others.
  const fixes: Fix[] = [
    setFix(`Drop GPU ${[...new Set(bad)].join(', ')} from ${key}`, [[path, kept]], true),
    raiseGpusFix(config, gpusPerNodeFor(config, (Math.max(...bad) + 1) * config.resources.num_nodes, config.parallel.tensor_parallel_planner)),
  ];
  return map.flatMap((index, position) =>
    index < gpus
      ? []
      : [
          finding({
            code: 'preflight/device-index-out-of-range',
            severity: 'error',
            message: `${key} names GPU ${index}, which does not exist: num_gpus is ${gpus}, so ${range}. Drop the index or raise num_gpus.`,
            path: [...path, position],
            related: [related(NUM_GPUS, `GPUs per node: ${gpus}`)],
            fixes,
          }),
        ],
  );
}

/** A map of `want` indices: the first `want` of the map, or the map plus the lowest free GPUs. */
function resized(map: readonly number[], want: number, gpus: number): number[] | undefined {
  if (map.length >= want) return map.slice(0, want);
  const used = new Set(map);
  const extra: number[] = [];
  for (let i = 0; i < gpus && map.length + extra.length < want; i++) {
    if (!used.has(i)) extra.push(i);
  }
  return map.length + extra.length === want ? [...map, ...extra] : undefined;
}

function sizeMismatch(config: ExperimentConfig, role: Role): Finding[] {
  const key = mapKey(role);
  const map = config.backends[key];
  const tp = config.parallel[tpKey(role)];
  // The planner's map may list the GPUs of every replica rather than of one.
  const accepted = role === 'planner' ? [tp, tp * config.parallel.replicas] : [tp];
  if (map.length === 0 || accepted.includes(map.length)) return [];
  const path: KeyPath = ['backends', key];
  const tpPath: KeyPath = ['parallel', tpKey(role)];
  const fixes: Fix[] = [];
  const proposal = resized(map, tp, config.resources.num_gpus);
  if (proposal !== undefined) fixes.push(setFix(`Set ${key} to [${proposal.join(', ')}]`, [[path, proposal]], true));
  fixes.push(setFix(`Set ${tpKey(role)} to ${map.length}`, [[tpPath, map.length]], proposal === undefined));
  return [
    finding({
      code: 'preflight/device-map-size-mismatch',
      severity: 'warning',
      message: `${key} lists ${map.length} GPU${map.length === 1 ? '' : 's'} but ${tpKey(role)} is ${tp}, so ${
        map.length > tp ? 'some listed GPUs stay idle' : 'the model is split across GPUs the map does not name'
      }. Make the map as long as the tensor parallel size.`,
      path,
      related: [related(tpPath, `tensor parallel ${tp}`)],
      fixes,
    }),
  ];
}

export const deviceIndexRule: Rule = {
  name: 'device-index',
  check: (config) => ROLES.flatMap((role) => outOfRange(config, role)),
};

export const deviceMapSizeRule: Rule = {
  name: 'device-map-size',
  check: (config) => ROLES.flatMap((role) => sizeMismatch(config, role)),
};
