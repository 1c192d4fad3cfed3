/**
 * One way to read dataset rows from parquet, JSONL (`.jsonl`, `.jsonl.gz`) and JSON (`.json`,
 * `.json.gz`) files, as a stream of rows and per-row problems, each with the place it came from.
 * A bad row is a `problem` item that the caller counts before going on; a file that cannot be read
 * at all is a `DatasetInputError` whose message names the file, the place and what to do. Parquet
 * is read one row group at a time (`parquetRows.ts`) and JSONL one line at a time, so memory is
 * bounded by a row group or a line; JSON files are small and are read whole.
 *
 * The readers live in `parquetRows.ts`, `jsonlRows.ts` and `jsonRows.ts`; what they share is in
 * `sourceItems.ts`.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { readJson } from './jsonRows.js';
import { readJsonl } from './jsonlRows.js';
import { openParquetSource } from './parquetRows.js';
import { DatasetInputError, errorCode, onceSource, throwIfAborted, type RowSource, type SourceItem } from './sourceItems.js';
import { errorMessage } from '../util/errors.js';

export { DatasetInputError, formatSourcePlace, type RowSource, type SourceItem, type SourcePlace } from './sourceItems.js';

/**
 * The JSONL checker's limit (`tasks/jsonlFile.ts`), repeated rather than imported because that
 * module compiles the task schema when it loads, which a plain row reader does not need.
 */
const defaultMaxLineBytes = 64 * 1024 * 1024;

export interface RowSourceOptions {
  readonly signal?: AbortSignal;
  /** JSONL lines longer than this many bytes are reported and skipped (default 64 MiB, as the JSONL checker). */
  readonly maxLineBytes?: number;
}

// ---------------------------------------------------------------------------------------------
// Opening: the file must exist and be a regular file; the name says the format.

type Format = { readonly format: 'parquet' | 'jsonl' | 'json'; readonly gzip: boolean };

function formatOf(file: string): Format | undefined {
  const name = file.toLowerCase();
  if (name.endsWith('.parquet')) return { format: 'parquet', gzip: false };
  if (name.endsWith('.jsonl')) return { format: 'jsonl', gzip: false };
  if (name.endsWith('.jsonl.gz')) return { format: 'jsonl', gzip: true };
  if (name.endsWith('.json')) return { format: 'json', gzip: false };
  if (name.endsWith('.json.gz')) return { format: 'json', gzip: true };
  return undefined;
}

async function fileSize(file: string): Promise<number> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const where = isAbsolute(file) ? '' : ` (looked for ${resolve(file)})`;
      throw new DatasetInputError(
        'dataset/not-found',
        { file },
        `no such file${where}. Check the path, or run \`gp dataset prepare\` to download the dataset.`,
      );
    }
    throw new DatasetInputError('dataset/unreadable', { file }, `cannot be read (${errorMessage(error)}). Check the path and its permissions.`);
  }
  if (!info.isFile())
    throw new DatasetInputError(
      'dataset/not-a-file',
      { file },
      `is ${info.isDirectory() ? 'a folder' : 'not a regular file'}; pass a .parquet, .jsonl or .json file.`,
    );
  return info.size;
}

/** Opens `file` for reading its rows; rejects with a `DatasetInputError` when it cannot be read at all. */
export async function openRowSource(file: string, options: RowSourceOptions = {}): Promise<RowSource> {
  const { signal } = options;
  throwIfAborted(signal, file);
  const size = await fileSize(file);
  const kind = formatOf(file);
  if (kind === undefined) {
    throw new DatasetInputError(
      'dataset/unknown-format',
      { file },
      'the file name does not say its format; accepted are .parquet, .jsonl, .jsonl.gz, .json and .json.gz. Rename the file if its content is one of these.',
    );
  }
  if (kind.format === 'parquet') return openParquetSource(file, size, signal);
  if (kind.format === 'jsonl') return onceSource(file, 'jsonl', () => readJsonl(file, kind.gzip, signal, options.maxLineBytes ?? defaultMaxLineBytes));
  const items = await readJson(file, size, kind.gzip, signal);
  return onceSource(file, 'json', () => yieldAll(items));
}

async function* yieldAll(items: readonly SourceItem[]): AsyncGenerator<SourceItem> {
  yield* items;
}
