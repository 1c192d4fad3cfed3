/**
 * What `gp dataset register` writes for rLLM and Verl: the rows of `<root>/<name>/<split>_verl.parquet`
 * and the registry `<root>/registry.json`. Mirrors rLLM's `rllm/data/dataset.py` (HEAD): the three
 * columns of `apply_verl_postprocessing` and the v2 registry of `DatasetRegistry`
 * (docs/upstream-contracts.md#rllm-dataset-registration, docs/original-system.md#g6-registration). These schemas are the single source of truth: the
 * writer builds values of these types, and every reader (our read-back check, the tests) parses
 * what it reads with them.
 */
import { z } from 'zod';

/**
 * Dataset and split names become a folder and a file name under the registry root, so they are
 * limited to characters that are safe in paths on every system; names made only of dots are
 * refused because `.` and `..` would leave the dataset's folder.
 */
export const datasetNamePattern = /^[A-Za-z0-9_.-]+$/;

export function isDatasetName(value: string): boolean {
  return datasetNamePattern.test(value) && !/^\.+$/.test(value);
}

const datasetName = z.string().refine(isDatasetName, { message: 'use only letters, digits, "_", "." and "-" (and not only dots)' });

/** The registry's file name inside the root, as rLLM names it. */
export const registryFileName = 'registry.json';

/** The file Verl's `data.train_files` / `data.val_files` point at, as rLLM names it. */
export function verlFileName(split: string): string {
  return `${split}_verl.parquet`;
}

// ---------------------------------------------------------------------------------------------
// The `_verl.parquet` row.

/** One chat message of the `prompt` column. */
export const verlMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});

/**
 * The `reward_model` column. rLLM computes rewards in the environment, not with Verl's reward
 * function, so there is no ground truth; the column exists because Verl's dataset expects it.
 */
export const verlRewardModelSchema = z.strictObject({
  style: z.literal('rule'),
  ground_truth: z.null(),
});

/**
 * The `extra_info` column, which rLLM hands to the environment (`EnvClass.from_dict(extra_info)`).
 * `task` is the whole task entry as a JSON string, not a nested struct: parquet readers (pyarrow,
 * which Verl reads through) unify the nested objects of all rows into one struct type, adding a
 * null for every key a row does not have, and they fail outright when a key's type differs between
 * rows (FAIL_TO_PASS is a list in some datasets and a JSON-encoded string in others). The
 * environment would then not get back the object that was registered. A JSON string round-trips
 * exactly; the trainer-side adapter decodes it.
 */
export const verlExtraInfoSchema = z.strictObject({
  task_id: z.string().min(1),
  /** The split the row was registered under (not the task's own `split` field, which is provenance). */
  split: datasetName,
  /** The row's 0-based position in the file; stored as a parquet INT64. */
  index: z.int().min(0),
  /** The task's `data_source`, or null when it has none. */
  data_source: z.string().nullable(),
  /** The task entry as JSON (see above). */
  task: z.string().min(2),
});

export const verlRowSchema = z.strictObject({
  prompt: z.array(verlMessageSchema).min(1),
  reward_model: verlRewardModelSchema,
  extra_info: verlExtraInfoSchema,
});
export type VerlRow = z.infer<typeof verlRowSchema>;
export type VerlMessage = z.infer<typeof verlMessageSchema>;

/** Exactly the columns rLLM writes, in its order; a file with any other column is not ours. */
export const verlColumns = ['prompt', 'reward_model', 'extra_info'] as const;

// ---------------------------------------------------------------------------------------------
// The registry.

/**
 * A split entry as any writer leaves it. rLLM writes `{path, num_examples, fields}` with `path`
 * relative to the root; we write the fields of `registeredSplitSchema`. Unknown keys are kept so
 * that merging our entry never drops what rLLM or another tool recorded.
 */
export const registrySplitSchema = z.looseObject({
  path: z.string().min(1),
});

/** The split entry `gp dataset register` writes. */
export const registeredSplitSchema = z.strictObject({
  /**
   * The file rLLM's `load_dataset` reads. We register no separate `<split>.parquet` of raw rows, so
   * it names the Verl file, which holds every task in `extra_info.task`. rLLM's
   * `get_verl_data_path()` derives `…_verl.parquet` from this path and so finds nothing for our
   * entries; trainers are given `verl_path` directly.
   */
  path: z.string().min(1),
  /** Absolute path of the `_verl.parquet` file to give Verl as `data.train_files` or `data.val_files`. */
  verl_path: z.string().min(1),
  rows: z.int().min(0),
  /** SHA-256 of the parquet file, hex; tells a run which exact file it trained on. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  registered_at: z.iso.datetime(),
});
export type RegisteredSplit = z.infer<typeof registeredSplitSchema>;

export const registryMetadataSchema = z.looseObject({
  source: z.string().optional(),
  description: z.string().optional(),
});

export const registryDatasetSchema = z.looseObject({
  metadata: registryMetadataSchema.optional(),
  splits: z.record(z.string(), registrySplitSchema),
});

/** `registry.json`, rLLM's v2 shape. A v1 registry (`{name: {split: path}}`) does not parse. */
export const datasetRegistrySchema = z.looseObject({
  version: z.literal(2),
  datasets: z.record(z.string(), registryDatasetSchema),
});
export type DatasetRegistry = z.infer<typeof datasetRegistrySchema>;
