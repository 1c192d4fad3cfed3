/**
 * Writes and reads the `_verl.parquet` file rLLM hands to Verl (docs/upstream-contracts.md#verl-parquet-rows), with
 * hyparquet-writer and hyparquet. The physical schema below matches what pandas/pyarrow write for
 * rLLM's own rows: every field OPTIONAL, the prompt a three-level LIST of structs, strings UTF8
 * and the index an INT64. Rows are parsed with `verlRowSchema` on the way out, so a drift between
 * this schema and the protocol's fails the read-back check rather than a training run.
 */
import { open } from 'node:fs/promises';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema, type FileMetaData, type SchemaElement } from 'hyparquet';
import { fileWriter, parquetWriteRows } from 'hyparquet-writer';
import { verlColumns, verlRowSchema, type VerlRow } from '../protocol/datasetRegistry.js';

function text(name: string): SchemaElement {
  return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' };
}

/** The parquet schema of a `_verl.parquet` file, depth-first as parquet stores it. */
export const verlParquetSchema: readonly SchemaElement[] = [
  { name: 'root', num_children: verlColumns.length },
  // prompt: list<struct<role: string, content: string>>, in the standard three-level LIST layout.
  { name: 'prompt', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
  text('role'),
  text('content'),
  // reward_model: struct<style: string, ground_truth: string (always null)>.
  { name: 'reward_model', repetition_type: 'OPTIONAL', num_children: 2 },
  text('style'),
  text('ground_truth'),
  // extra_info: struct<task_id, split, index: int64, data_source, task>.
  { name: 'extra_info', repetition_type: 'OPTIONAL', num_children: 5 },
  text('task_id'),
  text('split'),
  { name: 'index', type: 'INT64', repetition_type: 'OPTIONAL' },
  text('data_source'),
  text('task'),
];

/** Rows per row group: what Hugging Face's converted files use, and what bounds the writer's memory. */
export const defaultRowGroupSize = 1000;

export type VerlParquetErrorCode = 'verl/unreadable' | 'verl/unexpected-columns' | 'verl/invalid-row';

/** A `_verl.parquet` file that cannot be read as one; `row` is the 0-based row that failed, if any. */
export class VerlParquetError extends Error {
  constructor(
    readonly code: VerlParquetErrorCode,
    message: string,
    readonly path: string,
    readonly row?: number,
  ) {
    super(message);
    this.name = 'VerlParquetError';
  }
}

/** The row as parquet stores it: the index is an INT64, which the writer takes as a bigint. */
function toParquetRow(row: VerlRow): Record<string, unknown> {
  return { ...row, extra_info: { ...row.extra_info, index: BigInt(row.extra_info.index) } };
}

async function* parquetRows(rows: AsyncIterable<VerlRow> | Iterable<VerlRow>): AsyncGenerator<Record<string, unknown>> {
  for await (const row of rows) yield toParquetRow(row);
}

export interface WriteVerlOptions {
  readonly rowGroupSize?: number;
  /** Text columns after Verl's, read from each row by name (`gp train`'s `data_source`, `agent_name`). */
  readonly extraTextColumns?: readonly string[];
}

/**
 * Writes `rows` to `path` (created or truncated), pulling them one row group at a time so memory
 * stays bounded by the group, and flushes the file to disk before returning. The caller chooses a
 * temporary path and renames it: a failure here can leave a partial file behind.
 */
export async function writeVerlParquet(path: string, rows: AsyncIterable<VerlRow> | Iterable<VerlRow>, options: WriteVerlOptions = {}): Promise<void> {
  const extra = options.extraTextColumns ?? [];
  const [root, ...rest] = verlParquetSchema;
  await parquetWriteRows({
    writer: fileWriter(path),
    rows: parquetRows(rows),
    columns: [...verlColumns, ...extra].map((name) => ({ name })),
    schema: [{ ...(root as SchemaElement), num_children: verlColumns.length + extra.length }, ...rest, ...extra.map(text)],
    rowGroupSize: options.rowGroupSize ?? defaultRowGroupSize,
  });
  // hyparquet-writer appends with writeFileSync and never syncs; without this a crash right after
  // the rename could leave a registered name pointing at an empty or torn file.
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Opens a parquet file and reads its footer, turning a non-parquet file into a typed error. */
export async function openParquet(path: string): Promise<{ file: Awaited<ReturnType<typeof asyncBufferFromFile>>; metadata: FileMetaData }> {
  try {
    const file = await asyncBufferFromFile(path);
    return { file, metadata: await parquetMetadataAsync(file) };
  } catch (error) {
    throw new VerlParquetError('verl/unreadable', `${path} cannot be read as parquet: ${(error as Error).message}`, path);
  }
}

function checkColumns(path: string, metadata: FileMetaData): void {
  const names = parquetSchema(metadata).children.map((child) => child.element.name);
  if (names.length !== verlColumns.length || names.some((name, i) => name !== verlColumns[i])) {
    throw new VerlParquetError(
      'verl/unexpected-columns',
      `${path} has the columns ${names.join(', ') || '(none)'}; a Verl file for rLLM has exactly ${verlColumns.join(', ')}.`,
      path,
    );
  }
}

/**
 * hyparquet returns INT64 values as bigints; the protocol's index is a number. An index beyond
 * 2^53 cannot come from a file we wrote, so it is left as a bigint and fails the schema.
 */
function fromParquetRow(raw: Record<string, unknown>): unknown {
  const info = raw['extra_info'];
  if (typeof info !== 'object' || info === null) return raw;
  const index: unknown = (info as Record<string, unknown>)['index'];
  if (typeof index !== 'bigint' || index > BigInt(Number.MAX_SAFE_INTEGER)) return raw;
  return { ...raw, extra_info: { ...info, index: Number(index) } };
}

function parseRow(path: string, raw: Record<string, unknown>, row: number): VerlRow {
  const parsed = verlRowSchema.safeParse(fromParquetRow(raw));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the row';
  throw new VerlParquetError('verl/invalid-row', `${path}: row ${row}: ${where}: ${issue?.message ?? 'not a Verl row'}`, path, row);
}

/**
 * Reads the rows of a `_verl.parquet` file in order, one row group at a time, each parsed with
 * `verlRowSchema`. Throws a VerlParquetError when the file is not parquet, has other columns than
 * rLLM's three, or holds a row that does not parse.
 */
export async function* readVerlRows(path: string): AsyncGenerator<VerlRow> {
  const { file, metadata } = await openParquet(path);
  checkColumns(path, metadata);
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let raws: Record<string, unknown>[];
    try {
      raws = await parquetReadObjects({ file, metadata, rowStart: start, rowEnd: end });
    } catch (error) {
      throw new VerlParquetError('verl/unreadable', `${path}: rows ${start}–${end - 1} cannot be decoded: ${(error as Error).message}`, path, start);
    }
    for (const [offset, raw] of raws.entries()) yield parseRow(path, raw, start + offset);
    start = end;
  }
}
