/**
 * The parquet files `gp train` hands Verl: the rows of a registered `_verl.parquet` (one per task,
 * the whole task in `extra_info.task`) plus the two columns Verl's agent loop needs, `data_source`
 * (the key its metrics are grouped by) and `agent_name` (which registered agent loop runs the row,
 * docs/upstream-contracts.md#verl-parquet-rows). Written to a temporary file, synced and renamed.
 */
import { open, rename, rm } from 'node:fs/promises';
import type { SchemaElement } from 'hyparquet';
import { fileWriter, parquetWriteRows } from 'hyparquet-writer';
import { verlColumns, type VerlRow } from '../protocol/datasetRegistry.js';
import { verlParquetSchema } from './verlParquet.js';

export interface TrainingRow extends VerlRow {
  readonly data_source: string;
  readonly agent_name: string;
}

function text(name: string): SchemaElement {
  return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' };
}

const trainingColumns = [...verlColumns, 'data_source', 'agent_name'] as const;
const [root, ...rest] = verlParquetSchema;
const trainingSchema: SchemaElement[] = [{ ...(root as SchemaElement), num_children: trainingColumns.length }, ...rest, text('data_source'), text('agent_name')];

export async function writeTrainingParquet(path: string, rows: readonly TrainingRow[]): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await parquetWriteRows({
      writer: fileWriter(tmp),
      rows: rows.map((row) => ({ ...row, extra_info: { ...row.extra_info, index: BigInt(row.extra_info.index) } })),
      columns: trainingColumns.map((name) => ({ name })),
      schema: trainingSchema,
    });
    const handle = await open(tmp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
