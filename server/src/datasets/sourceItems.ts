/**
 * The vocabulary shared by the row readers (`rowSource.ts`, `parquetRows.ts`, `jsonlRows.ts`,
 * `jsonRows.ts`): where a row came from, a row or a per-row problem, the error for a file that
 * cannot be read at all, and the small helpers their messages need.
 */

/** Where a row came from: a 1-based line for JSONL; a 0-based row index (and its row group) for parquet; a 0-based item for JSON lists. */
export interface SourcePlace {
  readonly file: string;
  readonly line?: number;
  readonly row?: number;
  readonly rowGroup?: number;
  readonly item?: number;
}

export type SourceItem =
  | { readonly kind: 'row'; readonly value: Record<string, unknown>; readonly place: SourcePlace }
  | { readonly kind: 'problem'; readonly place: SourcePlace; readonly column?: number; readonly code: string; readonly message: string };

export interface RowSource {
  readonly file: string;
  readonly format: 'parquet' | 'jsonl' | 'json';
  /** Top-level column names for parquet (from the schema, before reading any row); undefined otherwise. */
  readonly columns: readonly string[] | undefined;
  /** Row count when the format knows it up front (parquet metadata), else undefined. */
  readonly rowCount: number | undefined;
  /** Yields rows in file order. Can be iterated once. */
  rows(): AsyncIterable<SourceItem>;
}

/** `file:line:col`, `file row 17 (row group 2)`, or `file[3]` — for messages. */
export function formatSourcePlace(place: SourcePlace, column?: number): string {
  if (place.line !== undefined) return column === undefined ? `${place.file}:${place.line}` : `${place.file}:${place.line}:${column}`;
  if (place.row !== undefined) return `${place.file} row ${place.row}${place.rowGroup === undefined ? '' : ` (row group ${place.rowGroup})`}`;
  if (place.rowGroup !== undefined) return `${place.file} (row group ${place.rowGroup})`;
  if (place.item !== undefined) return `${place.file}[${place.item}]`;
  return place.file;
}

/**
 * The file cannot be read at all (missing, truncated, not the format its name says). The message
 * starts with the place, so it can be printed as it is; `detail` is the message without it.
 */
export class DatasetInputError extends Error {
  override readonly name = 'DatasetInputError';
  readonly detail: string;

  constructor(
    readonly code: string,
    readonly place: SourcePlace,
    detail: string,
    readonly column?: number,
  ) {
    super(`${formatSourcePlace(place, column)}: ${detail}`);
    this.detail = detail;
  }
}

/** Throws the error every reader uses for an interrupted read, so callers see one code for it. */
export function throwIfAborted(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted) throw new DatasetInputError('dataset/aborted', { file }, 'reading was interrupted.');
}

/** Shared with the text-file check, which decides whether a file is text before any parser runs. */
export { firstInvalidUtf8 } from '../util/textFile.js';

/** The 1-based UTF-16 column of a byte offset in a line whose bytes before it are valid UTF-8. */
export function columnOfByte(bytes: Buffer, offset: number): number {
  return bytes.toString('utf8', 0, offset).length + 1;
}

export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

export const utf8Hint = 'Re-encode the file as UTF-8 (for example `iconv -f latin1 -t utf-8`).';

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

export function isAbort(error: unknown): boolean {
  return errorCode(error) === 'ABORT_ERR' || (error instanceof Error && error.name === 'AbortError');
}

/** A source whose rows can be iterated once; a second iteration is a bug in the caller. */
export function onceSource(
  file: string,
  format: RowSource['format'],
  read: () => AsyncIterable<SourceItem>,
  known: { columns?: readonly string[]; rowCount?: number } = {},
): RowSource {
  let used = false;
  return {
    file,
    format,
    columns: known.columns,
    rowCount: known.rowCount,
    rows() {
      if (used) throw new Error(`The rows of ${file} were already read; open the file again to read them again.`);
      used = true;
      return read();
    },
  };
}
