/**
 * The registry of dataset converters: each format `gp dataset prepare` reads, by the name a person
 * types (`gp dataset prepare r2e-gym`). A format of rows (parquet, JSONL or JSON, downloaded from
 * Hugging Face or given with --from) brings the columns a file must have, the command's defaults
 * and how one row becomes a task; `prepare.ts` and `cli/datasetPrepareCommand.ts` consult it and
 * name no format themselves. A format of task folders (Harbor) is prepared by its own command. A
 * new format is its module (as `r2eConvert.ts`) and one line in `builtInConverters` below; tests
 * add their own through `registerDatasetConverter`, which hands back the call that removes it.
 */
import type { Conversion, ConvertContext } from './conversion.js';
import type { Row } from './fields.js';
import type { PrepareOptions } from './prepare.js';
import { r2eGymConverter } from './r2eConvert.js';
import type { SplitRule } from './splits.js';
import { swebenchConverter } from './swebenchConvert.js';
import type { RepoFileReader } from './swebenchTable.js';

/** What the command uses when a flag is not given. */
export interface ConverterDefaults {
  /** The Hugging Face dataset id. */
  readonly dataset: string;
  readonly split: string;
  /** The output folder, relative to the working directory. */
  readonly out: string;
  readonly splitRule: SplitRule;
}

/** What a row's conversion may use besides the row: the preparation's options and the clones under --repos. */
export interface ConvertSetup {
  readonly options: PrepareOptions;
  readonly repoFiles: (repo: string) => RepoFileReader | undefined;
}

/** A format whose tasks are rows. */
export interface RowConverter {
  readonly kind: string;
  readonly source: 'rows';
  /** Its name in messages (`Is it a SWE-bench file?`). */
  readonly title: string;
  /** Columns a parquet source must have, as groups of alternatives (any one column of a group will do). */
  readonly requiredColumns: readonly (readonly string[])[];
  readonly defaults: ConverterDefaults;
  convert(row: Row, convertContext: ConvertContext, setup: ConvertSetup): Conversion;
}

/** A format whose tasks are folders, prepared by a command of its own with its own flags. */
export interface FolderConverter {
  readonly kind: string;
  readonly source: 'folders';
  readonly title: string;
}

export type DatasetConverter = RowConverter | FolderConverter;

/**
 * Every built-in format, each registered once, in the order messages list them. Harbor's folders
 * are prepared by `gp dataset prepare harbor` (`harborPrepare.ts`, `cli/harborPrepareCommand.ts`);
 * its entry says only that, so this module need not import that one, which imports `prepare.ts`.
 */
const builtInConverters: readonly DatasetConverter[] = [r2eGymConverter, swebenchConverter, { kind: 'harbor', source: 'folders', title: 'Harbor' }];

const registered = new Map<string, DatasetConverter>(builtInConverters.map((converter) => [converter.kind, converter]));

/** Adds a format (a test's fake, say) and returns the call that removes it again. */
export function registerDatasetConverter(converter: DatasetConverter): () => void {
  if (registered.has(converter.kind)) throw new Error(`A dataset converter named ${converter.kind} is already registered.`);
  registered.set(converter.kind, converter);
  return () => {
    // Only its own entry: a later registration under the same name is not this call's to remove.
    if (registered.get(converter.kind) === converter) registered.delete(converter.kind);
  };
}

/** The format a person named, or undefined when none has that name. */
export function datasetConverter(kind: string): DatasetConverter | undefined {
  return registered.get(kind);
}

/** Every format, in registration order. */
export function datasetConverters(): DatasetConverter[] {
  return [...registered.values()];
}

/** The row format of a name the command accepted; an unknown one is a bug. */
export function rowConverter(kind: string): RowConverter {
  const converter = registered.get(kind);
  if (converter?.source !== 'rows') throw new Error(`No row converter is registered as ${kind}.`);
  return converter;
}
