/** `report.json`: the evaluation summary of a run, checked and written atomically. */
import { readFile } from 'node:fs/promises';
import { runReportSchema, type RunReport } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { checkRecord } from './jsonLines.js';

export async function writeReport(path: string, report: RunReport): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(checkRecord(runReportSchema, report, path), null, 2)}\n`);
}

/** The report, or undefined when there is none or it is not a valid report. */
export async function readReport(path: string): Promise<RunReport | undefined> {
  try {
    const parsed = runReportSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
