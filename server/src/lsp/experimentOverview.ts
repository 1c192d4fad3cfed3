/**
 * The experiment overview of one checked document: the Verl settings a launch would pass (the rows
 * of the config → Verl table in `config/verlMapping.ts`, then the `verl_overrides` leaves, which
 * Verl applies last), the GPU layout and the findings with the quick fixes the editor offers for
 * each (`offeredFixes`, as the light bulb asks). The GPU layout is shown only for a config whose
 * runs use models (`usesModels`, the rule preflight leaves its GPU notes out by), as are the
 * settings that name the model and its split (`modelSettingKeys`); the layout's verdicts
 * are preflight's own findings, so the overview never says what preflight does not. Pure: it reads only the `checkConfigText`
 * result, so it is computed per request from the cached check and unit-tested without a server.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  formatValue,
  overridesVerlKey,
  rangeOf,
  rayCpusNeeded,
  rayGpusNeeded,
  verlMappedFields,
  verlOverrideLeaves,
  type ConfigCheck,
  type ExperimentConfig,
  type LocatedFinding,
  type OffsetRange,
  type VerlMappedField,
  type VerlOverrideLeaf,
  modelSettingKeys,
  usesModels,
} from '../config/index.js';
import { getAt, hasAt } from '../util/keyPath.js';
import { offeredFixes } from './yamlCodeActions.js';
import type { ExperimentOverview, GpuLayout, KeyPath, ModelPlacement, OverviewFinding, OverviewRange, VerlOverride, VerlSetting } from '../protocol/index.js';

/**
 * `extraFindings` are findings the caller has located beside the check (the disk rules' results,
 * when they are current). `version` is the document version, or null for a file read from disk.
 */
export function experimentOverview(check: ConfigCheck, uri: string, version: number | null, extraFindings: readonly LocatedFinding[] = []): ExperimentOverview {
  const lines = TextDocument.create(uri, 'yaml', 0, check.source.text);
  const toRange = (r: OffsetRange): OverviewRange => ({ start: lines.positionAt(r.start), end: lines.positionAt(r.end) });
  const all = [...check.findings, ...extraFindings];
  const findings = sortFindings(all.map((f) => overviewFinding(f, toRange, check.source.text)));
  const config = check.config;
  if (config === undefined) {
    const reason =
      check.source.value === undefined
        ? 'The document does not parse as a YAML mapping; fix the syntax errors below first.'
        : 'The document does not read as an experiment config; fix the errors below first.';
    return { uri, version, parsed: false, reason, settings: [], overrides: [], gpus: null, findings };
  }
  const keyRange = (path: readonly (string | number)[]): OverviewRange => toRange(rangeOf(check.source, [...path], 'key'));
  const leaves = verlOverrideLeaves(config.verl_overrides);
  const overrides = leaves.map((leaf): VerlOverride => ({
    key: leaf.key,
    value: formatValue(leaf.value),
    range: keyRange(['verl_overrides', ...leaf.path]),
  }));
  const models = usesModels(config);
  const fields = models ? verlMappedFields : verlMappedFields.filter((field) => !modelSettingKeys.has(field.path.join('.')));
  const settings = fields.map((field) => verlSetting(field, check, all, leaves, keyRange));
  return { uri, version, parsed: true, settings, overrides, gpus: models ? gpuLayout(config, all) : null, findings };
}

function verlSetting(
  field: VerlMappedField,
  check: ConfigCheck,
  findings: readonly LocatedFinding[],
  overrides: readonly VerlOverrideLeaf[],
  keyRange: (path: readonly (string | number)[]) => OverviewRange,
): VerlSetting {
  const written = hasAt(check.source.value, field.path);
  // A value the schema rejects is pruned before defaults are applied, so the default is what runs.
  const rejected = written && findings.some((f) => f.severity === 'error' && f.code.startsWith('schema/') && samePath(f.path, field.path));
  const setting: VerlSetting = {
    key: field.path.join('.'),
    mapsTo: field.mapsTo,
    value: formatValue(getAt(check.config, field.path) ?? null),
    source: rejected ? 'invalid' : written ? 'file' : 'default',
    overridden: overridesVerlKey(field.mapsTo, overrides),
  };
  return written ? { ...setting, range: keyRange(field.path) } : setting;
}

function gpuLayout(config: ExperimentConfig, findings: readonly LocatedFinding[]): GpuLayout {
  const { backends, parallel, resources } = config;
  const planner = placement(backends.planner_backend, backends.device_map_planner, parallel.tensor_parallel_planner);
  const cgm = placement(backends.cgm_backend, backends.device_map_cgm, parallel.tensor_parallel_cgm);
  const bothLocal = planner.backend === 'local' && cgm.backend === 'local';
  const overlap = bothLocal ? unique(backends.device_map_planner.filter((i) => backends.device_map_cgm.includes(i))) : [];
  // Whether the models share GPUs is the shared-devices rule's verdict (preflight/parallelRules.ts):
  // on the GPUs both maps name, else on those the trainer picks because they do not fit apart.
  const sharing = findings.some((f) => f.code === 'preflight/shared-devices');
  // Every index either map names, as the device-index rule checks them (preflight/deviceMapRules.ts).
  const named = [...backends.device_map_planner, ...backends.device_map_cgm];
  return {
    numNodes: resources.num_nodes,
    gpusPerNode: resources.num_gpus,
    planner,
    cgm,
    replicas: parallel.replicas,
    sharedGpus: sharing ? overlap : [],
    sharedByTrainer: sharing && overlap.length === 0,
    missingGpus: unique(named.filter((i) => i >= resources.num_gpus)),
    rayGpus: { have: resources.ray_num_gpus, need: rayGpusNeeded(config) },
    rayCpus: { have: resources.ray_num_cpus, need: rayCpusNeeded(config) },
  };
}

function placement(backend: 'local' | 'openai' | 'embedded', map: readonly number[], tensorParallel: number): ModelPlacement {
  return { backend, deviceMap: map.length === 0 ? null : [...map], tensorParallel };
}

function overviewFinding(f: LocatedFinding, toRange: (r: OffsetRange) => OverviewRange, text: string): OverviewFinding {
  // The overview has three groups; a hint is a note like an info.
  const severity = f.severity === 'hint' ? 'info' : f.severity;
  const fixes = offeredFixes(text, f.fixes).map(({ fix }) => ({ title: fix.title, preferred: fix.preferred === true }));
  return { code: f.code, severity, message: f.message, range: toRange(f.range), fixes };
}

const severityOrder = { error: 0, warning: 1, info: 2 } as const;

function sortFindings(findings: OverviewFinding[]): OverviewFinding[] {
  return findings.sort((a, b) => severityOrder[a.severity] - severityOrder[b.severity] || a.range.start.line - b.range.start.line);
}

function samePath(a: KeyPath, b: readonly string[]): boolean {
  return a.length === b.length && a.every((seg, i) => String(seg) === b[i]);
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)].sort((x, y) => x - y);
}
