/**
 * The certified dataset `gp dataset verify --out FILE` writes: the tasks whose verification
 * certified them, each with its flaky tests left out of FAIL_TO_PASS and PASS_TO_PASS (as
 * SWE-bench's validation leaves them out) and a `certification` saying how it was checked.
 * Tasks that did not certify are left out; the verification's verdicts say why.
 */
import { dirname } from 'node:path';
import type { Certification, TaskVerdict } from '../protocol/verify.js';
import { decodeTestList, type TaskEntry } from '../tasks/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { withPathsMoved } from './taskPaths.js';

export interface CertifiedInput {
  readonly task: TaskEntry;
  readonly verdict: TaskVerdict;
}

/** Whether a verdict puts its task in the certified dataset: certified, or flaky with a FAIL_TO_PASS test left. */
export function isCertifiable(task: TaskEntry, verdict: TaskVerdict): boolean {
  if (verdict.status === 'certified') return true;
  if (verdict.status !== 'flaky') return false;
  const fail = decodeTestList(task.FAIL_TO_PASS ?? [], 'FAIL_TO_PASS');
  return fail.ok && fail.tests.some((t) => !verdict.flaky.includes(t));
}

/** The certified row of one task; `fromDir` is its dataset's folder, `toDir` the certified file's. */
export function certifiedTask(input: CertifiedInput, run: string, fromDir: string, toDir: string): TaskEntry {
  const { task, verdict } = input;
  const flaky = new Set(verdict.flaky);
  const list = (value: TaskEntry['FAIL_TO_PASS'], name: 'FAIL_TO_PASS' | 'PASS_TO_PASS') => {
    const decoded = decodeTestList(value ?? [], name);
    return decoded.ok ? decoded.tests.filter((t) => !flaky.has(t)) : [];
  };
  const certification: Certification = {
    status: verdict.status === 'flaky' ? 'flaky' : 'certified',
    run,
    verified_at: verdict.started_at,
    repeats: verdict.repeats,
    removed_flaky: [...verdict.flaky],
  };
  const moved = withPathsMoved(task, fromDir, toDir);
  return { ...moved, FAIL_TO_PASS: list(task.FAIL_TO_PASS, 'FAIL_TO_PASS'), PASS_TO_PASS: list(task.PASS_TO_PASS, 'PASS_TO_PASS'), certification };
}

/** Writes the certified rows as JSONL, atomically; returns how many. */
export async function writeCertifiedDataset(file: string, inputs: readonly CertifiedInput[], run: string, fromDir: string): Promise<number> {
  const rows = inputs.filter((i) => isCertifiable(i.task, i.verdict)).map((i) => JSON.stringify(certifiedTask(i, run, fromDir, dirname(file))));
  await writeFileAtomic(file, rows.length === 0 ? '' : `${rows.join('\n')}\n`);
  return rows.length;
}
