/**
 * The task entry, the core noun: its schema, normalisation of older shapes, JSONL validated line by
 * line with positions, loading task files (and saying what is wrong with a path given as one), the
 * paged index the Tasks view reads, and the rules for a task's image name and gold test lists.
 */
export {
  taskEntrySchema,
  taskEntryJsonSchema,
  sandboxBackends,
  legacyDockerBackends,
  suggestedTaskId,
  taskIdProblem,
  type TaskEntry,
  type TaskEntryInput,
} from './schema.js';
export { normalizeTask, legacyToCanonical, isLegacyShape, legacyDefaultWorkdir, type Normalized } from './normalize.js';
export { validateLine, maxFindingsPerLine, type LineFinding, type LineResult, type LineOptions, type RelatedLine } from './lineValidator.js';
export { validateJsonl, splitLines, DatasetCheck, type JsonlFinding, type JsonlReport, type JsonlSummary, type JsonlOptions } from './jsonl.js';
export { validateJsonlFile, maxLineBytes, type FileOptions } from './jsonlFile.js';
export { applyJsonEdit, applyJsonEdits } from './jsonEdits.js';
export { swebenchWorkdir } from './semanticChecks.js';
export { loadTasks, type LoadedTask, type LoadedTasks } from './loadTasks.js';
export { taskFileProblem } from './taskFileArgument.js';
export { isBuildOnlyImageName } from './imageNames.js';
export { decodeTestList, type TestListResult } from './testLists.js';
export { findSyntaxError, locate } from './jsonScanner.js';
export { schemaErrors } from './taskValidator.js';
export { emptyDatasetFinding, sampleNotText, textNotText } from './textCheck.js';
export { indexTaskFile, taskTitle, TaskIndexCache, type IndexedTask, type TaskFileIndex, type TaskPage } from './taskIndex.js';
