/**
 * The experiment config: its schema and defaults, YAML read with positions (on a worker thread
 * for a large file), one merge of defaults, YAML and flags, the preflight rules, where each finding
 * sits in the YAML, the quick fixes and Fix All as YAML edits, the GPU memory estimate, sandbox
 * capacity, and the config-to-Verl table. It resolves and checks a config; turning one into engine
 * objects is `launch/`'s job (ARCHITECTURE.md §4.16).
 */
export { ConfigCheckWorker, offThreadBytes, type OffThreadResult } from './checkWorker.js';
export { checkConfigDisk, checkConfigText, checkSource, locate, locateDiskFindings, typedConfig, type ConfigCheck, type LocatedFinding } from './check.js';
export { rangeOf } from './findingAnchor.js';
export { closest } from '../util/closest.js';
export { describeRange, experimentJsonSchema, buildExperimentJsonSchema, schemaAt, typesOf, type JsonSchemaNode } from './jsonSchema.js';
export { applyOverrides, configFlagHelp, parseConfigFlags, type ConfigFlags, type Override } from './overrides.js';
export { preflight, preflightDisk, rayCpusNeeded, rayGpusNeeded, modelSettingKeys, usesModels } from './preflight.js';
export { renderConfigYaml, resolveConfig, verdictOf, type Resolution, type ResolveInput, type Verdict } from './resolve.js';
export { parseMemorySize } from './memoryEstimate.js';
export { experimentConfigSchema, sectionSchemas, type ExperimentConfig } from './schema.js';
export { validateAgainstSchema } from './validate.js';
export { flattenVerlOverrides, overridesVerlKey, verlMappedFields, verlOverrideLeaves, type VerlMappedField, type VerlOverrideLeaf } from './verlMapping.js';
export { applyYamlEdits, editsToTextEdit, formatValue, smallestEdit, type TextEdit } from './yamlEdit.js';
export { applyPreferredFixes, type PreferredFixes } from './preferredFixes.js';
export { clipToLine, locatePath, parseYamlSource, type OffsetRange, type YamlSource } from './yamlSource.js';
export { capacityFinding, concurrentEpisodes, type ClusterCapacity } from './sandboxCapacity.js';
