/**
 * A verification's files in its run folder (`gp dataset verify`): `verdicts.jsonl`, one checked
 * line per task appended as each task ends (a torn last line from a crash is dropped, so a resume
 * reads every complete verdict), and `verification.json`, the summary written atomically at the end.
 */
import { readFile } from 'node:fs/promises';
import { taskVerdictSchema, verificationSummarySchema, type TaskVerdict, type VerificationSummary } from '../protocol/verify.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { JsonLinesWriter, checkRecord, parseJsonLines } from './jsonLines.js';
import { runLayout } from './layout.js';

export function verdictWriter(runDir: string): JsonLinesWriter<typeof taskVerdictSchema> {
  return new JsonLinesWriter(runLayout(runDir).verdicts, taskVerdictSchema);
}

/** The latest verdict per task in a run folder (none when it has no file yet), and lines that could not be read. */
export async function readVerdicts(runDir: string): Promise<{ verdicts: Map<string, TaskVerdict>; problems: string[] }> {
  let text: string;
  try {
    text = await readFile(runLayout(runDir).verdicts, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { verdicts: new Map(), problems: [] };
    throw error;
  }
  const parsed = parseJsonLines(text, taskVerdictSchema);
  const verdicts = new Map<string, TaskVerdict>();
  for (const verdict of parsed.records) verdicts.set(verdict.task_id, verdict);
  return { verdicts, problems: parsed.problems };
}

export async function writeVerificationSummary(runDir: string, summary: VerificationSummary): Promise<void> {
  const path = runLayout(runDir).verification;
  await writeFileAtomic(path, `${JSON.stringify(checkRecord(verificationSummarySchema, summary, path), null, 2)}\n`);
}
