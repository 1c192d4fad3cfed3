/**
 * Datasets: Hugging Face download, the registry of converters `gp dataset prepare` consults
 * (R2E-Gym, SWE-bench, Harbor task folders), SWE-bench's specification tables as a task's Python
 * environment, gold patches, the certified dataset a verification writes, splits, image manifests,
 * and registration for the trainer as Verl parquet.
 */
export { collectImages, formatPlace, writeManifest, readManifest, type ImageCollection, type Manifest } from './manifest.js';
export { prepareDataset, PrepareError, type DatasetKind, type PrepareOptions, type PrepareProgress } from './prepare.js';
export { openRowSource, formatSourcePlace, DatasetInputError, type RowSource, type SourceItem, type SourcePlace } from './rowSource.js';
export { listParquetFiles, pickSplit, HubError, type ParquetFileRef, type ParquetListing } from './hfHub.js';
export { downloadParquetFiles, type DownloadedFile, type DownloadProgress } from './hfDownload.js';
export { writeTrainingParquet, type TrainingRow } from './trainingParquet.js';
export { verlRowFor } from './register.js';
export { withAbsolutePaths } from './taskPaths.js';
export { registerDataset, readVerlRows, RegisterError, type RegisterOptions, type RegisterResult } from './register.js';
export { convertR2eRow } from './r2eConvert.js';
export {
  datasetConverter,
  datasetConverters,
  registerDatasetConverter,
  rowConverter,
  type ConverterDefaults,
  type ConvertSetup,
  type DatasetConverter,
  type FolderConverter,
  type RowConverter,
} from './converters.js';
export { convertSwebenchRow } from './swebenchConvert.js';
export { envSpecsFrom, envSpecKey, pythonEnvFromSpec, type SpecPythonEnv } from './swebenchEnv.js';
export type { SplitRule } from './splits.js';
export { defaultGoldFile, readGoldPatches, type GoldPatches } from './goldPatches.js';
export { certifiedTask, isCertifiable, writeCertifiedDataset, type CertifiedInput } from './certifiedDataset.js';
export { withPathsMoved } from './taskPaths.js';
export { prepareHarborDataset, harborTaskFolders, type HarborPrepareOptions } from './harborPrepare.js';
export { readHarborTask, type HarborTask, type HarborTaskRead } from './harborTask.js';
