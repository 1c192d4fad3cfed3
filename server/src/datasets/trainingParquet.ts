/**
 * The parquet files `gp train` hands Verl: the rows of a registered `_verl.parquet` (one per task,
 * the whole task in `extra_info.task`) plus the two columns Verl's agent loop needs, `data_source`
 * (the key its metrics are grouped by) and `agent_name` (which registered agent loop runs the row,
 * docs/upstream-contracts.md#verl-parquet-rows). Written to a temporary file, synced and renamed.
 */
import { rename, rm } from 'node:fs/promises';
import type { VerlRow } from '../protocol/datasetRegistry.js';
import { writeVerlParquet } from './verlParquet.js';

export interface TrainingRow extends VerlRow {
  readonly data_source: string;
  readonly agent_name: string;
}

export async function writeTrainingParquet(path: string, rows: readonly TrainingRow[]): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await writeVerlParquet(tmp, rows, { extraTextColumns: ['data_source', 'agent_name'] });
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
