/** The task entry: its schema, normalisation of older shapes, and JSONL validation. */
export { taskEntrySchema, taskEntryJsonSchema, sandboxBackends, legacyDockerBackends, type TaskEntry, type TaskEntryInput } from './schema.js';
export { normalizeTask, legacyToCanonical, isLegacyShape, legacyDefaultWorkdir, type Normalized } from './normalize.js';
export { validateLine, maxFindingsPerLine, type LineFinding, type LineResult, type LineOptions, type RelatedLine } from './lineValidator.js';
export { validateJsonl, splitLines, DatasetCheck, type JsonlFinding, type JsonlReport, type JsonlSummary, type JsonlOptions } from './jsonl.js';
export { validateJsonlFile, maxLineBytes, type FileOptions } from './jsonlFile.js';
export { applyEdit, applyEdits } from './applyEdits.js';
export { swebenchWorkdir } from './semanticChecks.js';
export { loadTasks, type LoadedTask, type LoadedTasks } from './loadTasks.js';
