/**
 * Parquet rows as a stream, one row group at a time, on top of hyparquet. The footer is checked
 * and the metadata read when the file is opened, so a truncated download fails before any row is
 * converted; each row group is then fetched and decoded only when the previous one has been
 * consumed, so memory is bounded by one row group however large the file is.
 *
 * hyparquet decodes text with a lenient `TextDecoder`, which turns invalid UTF-8 into U+FFFD
 * without a word. Text columns are decoded here with a fatal decoder instead, so a value whose raw
 * bytes are invalid is found (and only such a value: a real U+FFFD in valid text passes) and its
 * row becomes a `dataset/non-utf8` problem naming the column.
 */
import { isUtf8 } from 'node:buffer';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DatasetInputError, firstInvalidUtf8, onceSource, throwIfAborted, type RowSource, type SourceItem, type SourcePlace } from './sourceItems.js';
import { errorMessage } from '../util/errors.js';

const magic = 'PAR1';
/** The head magic plus the footer's metadata length and tail magic. */
const minimumSize = 12;

const truncatedHint = 'Download it again: `gp dataset prepare` replaces a cached file whose size is wrong and resumes interrupted downloads.';
const damagedHint = 'Delete the file and download it again.';

/** A text value whose bytes are not valid UTF-8: the lenient decoding, and where the first bad byte is. */
class UndecodableText {
  constructor(
    readonly text: string,
    readonly badByte: number,
  ) {}
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/** hyparquet's `stringFromBytes` for columns declared as text, with invalid bytes marked rather than replaced. */
function stringFromBytes(bytes: Uint8Array | undefined): string | UndecodableText | undefined {
  if (!bytes) return bytes;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return new UndecodableText(lenientUtf8.decode(bytes), firstInvalidUtf8(bytes));
  }
}

/**
 * Turns a decoded value into plain data: 64-bit integers become numbers when they are safe and
 * decimal strings when they are not; bytes of a column not declared as text become a string when
 * they are valid UTF-8 (writers that omit the annotation) and stay bytes otherwise (real binary);
 * `undefined` becomes `null`.
 * Containers are rewritten in place: hyparquet made them for this row alone. `bad` collects the
 * paths of undecodable text.
 */
function plain(value: unknown, path: string, bad: { path: string; badByte: number }[]): unknown {
  // hyparquet gives `undefined` for some nulls (a null list); JSON sources have `null` there.
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number.MIN_SAFE_INTEGER <= value && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof UndecodableText) {
    bad.push({ path, badByte: value.badByte });
    return value.text;
  }
  if (value instanceof Uint8Array) return isUtf8(value) ? lenientUtf8.decode(value) : value;
  if (value instanceof BigInt64Array || value instanceof BigUint64Array) return Array.from(value, (v, i) => plain(v, `${path}[${i}]`, bad));
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plain(value[i], `${path}[${i}]`, bad);
    return value;
  }
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = plain(record[key], `${path}.${key}`, bad);
  return record;
}

function rowItem(row: Record<string, unknown>, place: SourcePlace): SourceItem {
  const bad: { path: string; badByte: number }[] = [];
  for (const key of Object.keys(row)) row[key] = plain(row[key], key, bad);
  const [first] = bad;
  if (first === undefined) return { kind: 'row', value: row, place };
  const names = bad.map((b) => `\`${b.path}\``).join(', ');
  const where = `${bad.length === 1 ? 'column' : 'columns'} ${names}`;
  return {
    kind: 'problem',
    place,
    code: 'dataset/non-utf8',
    message: `The text in ${where} is not valid UTF-8 (first bad byte at byte ${first.badByte + 1} of \`${first.path}\`), so the row was not read. Re-encode the source data as UTF-8.`,
  };
}

/** Wraps hyparquet's file reader so reads stop when the signal fires and a short read is an error. */
function guardedBuffer(inner: AsyncBuffer, file: string, signal: AbortSignal | undefined): AsyncBuffer {
  return {
    byteLength: inner.byteLength,
    async slice(start, end) {
      throwIfAborted(signal, file);
      const bytes = await inner.slice(start, end);
      const wanted = (end ?? inner.byteLength) - start;
      if (bytes.byteLength < wanted) {
        throw new DatasetInputError(
          'dataset/truncated',
          { file },
          `the file became shorter while it was read (is a download still writing to it?). Wait for it to finish, then run again.`,
        );
      }
      return bytes;
    },
  };
}

function text(bytes: ArrayBuffer): string {
  return new TextDecoder('latin1').decode(bytes);
}

/** Checks the magic bytes at both ends; returns the length of the footer's metadata. */
async function checkEnds(buffer: AsyncBuffer, file: string, size: number): Promise<number> {
  const head = text(await buffer.slice(0, Math.min(size, 64)));
  if (size < minimumSize) {
    if (magic.startsWith(head) || head.startsWith(magic)) {
      throw new DatasetInputError('dataset/truncated', { file }, `is only ${size} bytes long, so the file is truncated. ${truncatedHint}`);
    }
  }
  if (!head.startsWith(magic)) {
    if (head.startsWith('version https://git-lfs')) {
      throw new DatasetInputError(
        'dataset/not-parquet',
        { file },
        'is a Git LFS pointer, not the data. Run `git lfs pull` in its repository, or download the dataset with `gp dataset prepare`.',
      );
    }
    throw new DatasetInputError(
      'dataset/not-parquet',
      { file },
      `does not start with the parquet magic bytes PAR1, so it is not a parquet file. ${damagedHint} If it holds JSONL or JSON, give it that extension.`,
    );
  }
  const tail = await buffer.slice(size - 8, size);
  if (text(tail.slice(4)) !== magic) {
    throw new DatasetInputError(
      'dataset/truncated',
      { file },
      `ends without the parquet footer, so the file is truncated (${size} bytes) or not parquet. ${truncatedHint}`,
    );
  }
  const metadataLength = new DataView(tail).getUint32(0, true);
  if (metadataLength > size - minimumSize) {
    throw new DatasetInputError(
      'dataset/truncated',
      { file },
      `its footer says the metadata is ${metadataLength} bytes, more than the file holds (${size} bytes): the file is truncated or damaged. ${damagedHint}`,
    );
  }
  return metadataLength;
}

interface Group {
  readonly index: number;
  readonly rowStart: number;
  readonly rowEnd: number;
}

/** The row ranges of the groups; a column chunk that lies past the data section means missing bytes. */
function groupsOf(metadata: FileMetaData, file: string, dataEnd: number): Group[] {
  const groups: Group[] = [];
  let rowStart = 0;
  metadata.row_groups.forEach((group, index) => {
    const rowEnd = rowStart + Number(group.num_rows);
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      const place: SourcePlace = { file, rowGroup: index };
      if (meta === undefined)
        throw new DatasetInputError('dataset/corrupt-parquet', place, `a column of row group ${index} has no metadata, so the file is damaged. ${damagedHint}`);
      // The same start hyparquet reads from: the dictionary page when there is one.
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      const end = start + Number(meta.total_compressed_size);
      if (start < magic.length || end > dataEnd) {
        const column = meta.path_in_schema.join('.');
        throw new DatasetInputError(
          'dataset/truncated',
          place,
          `column \`${column}\` of row group ${index} (rows ${rowStart}–${rowEnd - 1}) lies at bytes ${start}–${end}, outside the data, which ends at byte ${dataEnd}: bytes are missing from the file. ${damagedHint}`,
        );
      }
    }
    groups.push({ index, rowStart, rowEnd });
    rowStart = rowEnd;
  });
  return groups;
}

/** A failure while decoding one row group: the group is damaged, or uses something unsupported. */
function groupError(error: unknown, file: string, group: Group): DatasetInputError {
  if (error instanceof DatasetInputError) return error;
  const detail = errorMessage(error);
  const place: SourcePlace = { file, rowGroup: group.index };
  const rows = `row group ${group.index} (rows ${group.rowStart}–${group.rowEnd - 1})`;
  if (/unsupported|not supported|no compressor/i.test(detail)) {
    return new DatasetInputError(
      'dataset/unsupported-parquet',
      place,
      `${rows} uses something this reader does not support (${detail}). Re-save the file with pyarrow or pandas using snappy or zstd compression.`,
    );
  }
  return new DatasetInputError(
    'dataset/corrupt-parquet',
    place,
    `${rows} cannot be decoded (${detail}): the file is damaged or truncated; the rows before this group were read. ${damagedHint}`,
  );
}

/**
 * Yields the rows of each group in turn. Damage inside a group's bytes is found only when that
 * group is decoded, so the earlier groups' rows are yielded first and then the iteration throws a
 * `DatasetInputError` naming the group.
 */
async function* readGroups(
  buffer: AsyncBuffer,
  metadata: FileMetaData,
  groups: readonly Group[],
  file: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<SourceItem> {
  for (const group of groups) {
    throwIfAborted(signal, file);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({
        file: buffer,
        metadata,
        rowStart: group.rowStart,
        rowEnd: group.rowEnd,
        compressors,
        // Columns not declared as text stay bytes here; `plain` decodes those that are valid UTF-8.
        utf8: false,
        parsers: { stringFromBytes },
      });
    } catch (error) {
      throw groupError(error, file, group);
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row !== undefined) yield rowItem(row, { file, row: group.rowStart + i, rowGroup: group.index });
    }
  }
}

/** Opens a parquet file of `size` bytes: checks its ends and reads its metadata, but no rows yet. */
export async function openParquetSource(file: string, size: number, signal?: AbortSignal): Promise<RowSource> {
  const buffer = guardedBuffer(await asyncBufferFromFile(file), file, signal);
  const metadataLength = await checkEnds(buffer, file, size);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    if (error instanceof DatasetInputError) throw error;
    const detail = errorMessage(error);
    throw new DatasetInputError(
      'dataset/corrupt-parquet',
      { file },
      `its metadata cannot be read (${detail}): the file is damaged or truncated. ${damagedHint}`,
    );
  }
  const groups = groupsOf(metadata, file, size - 8 - metadataLength);
  const columns = parquetSchema(metadata).children.map((child) => child.element.name);
  return onceSource(file, 'parquet', () => readGroups(buffer, metadata, groups, file, signal), { columns, rowCount: Number(metadata.num_rows) });
}
