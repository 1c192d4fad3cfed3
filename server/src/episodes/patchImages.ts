/**
 * A patch of an episode as whole files before and after: a repair step's candidate, or the final
 * patch. The before side is the pre-image the run recorded (runs/preimageStore.ts); the after side
 * is the diff applied to it (util/unifiedDiff.ts). The final patch is made against the base commit,
 * and the base version of each file it touches is the first pre-image recorded for that file: every
 * change to the repository goes through a candidate, so no file changes before its first candidate.
 */
import { dirname } from 'node:path';
import type { Preimage } from '../protocol/observation.js';
import type { PatchFileImage } from '../protocol/episodeView.js';
import { parseUnifiedDiff } from '../protocol/unifiedDiff.js';
import { applyHunks } from '../util/unifiedDiff.js';
import type { EpisodeModel } from './episodeModel.js';
import { readPreimage } from '../runs/index.js';

export interface PatchRef {
  /** A repair step, or null for the final patch. */
  readonly step: number | null;
  readonly candidate: number | null;
}

export type PatchImages =
  | { readonly ok: true; readonly title: string; readonly passed: boolean | null; readonly diff: string; readonly files: PatchFileImage[] }
  | { readonly ok: false; readonly message: string };

/** The run directory of a trajectory at `<run>/trajectories/<episode>.jsonl`. */
export function runDirOfTrajectory(trajectory: string): string {
  return dirname(dirname(trajectory));
}

export async function patchImages(trajectory: string, model: EpisodeModel, ref: PatchRef): Promise<PatchImages> {
  const found = findPatch(model, ref);
  if (!found.ok) return found;
  const runDir = runDirOfTrajectory(trajectory);
  const files: PatchFileImage[] = [];
  for (const file of parseUnifiedDiff(found.diff)) {
    files.push(await fileImage(runDir, file, found.preimages, found.notKept));
  }
  if (files.length === 0) return { ok: false, message: `${found.title}: the patch names no file.` };
  return { ok: true, title: found.title, passed: found.passed, diff: found.diff, files };
}

type Found =
  | { ok: true; title: string; passed: boolean | null; diff: string; preimages: ReadonlyMap<string, Preimage>; notKept?: string }
  | { ok: false; message: string };

function findPatch(model: EpisodeModel, ref: PatchRef): Found {
  if (ref.step === null) {
    if (model.end === undefined) return { ok: false, message: 'The episode has no final patch yet: it has not ended.' };
    if (model.end.patch === '') return { ok: false, message: 'The episode ended without changing the repository.' };
    return {
      ok: true,
      title: `Final patch · ${model.end.resolved ? 'resolved' : 'not resolved'}`,
      passed: model.end.resolved,
      diff: model.end.patch,
      preimages: firstPreimages(model),
    };
  }
  const view = model.steps.find((s) => s.step === ref.step);
  const last = view?.record.observation.last;
  if (last?.kind !== 'repair') return { ok: false, message: `Step ${ref.step} is not a repair step.` };
  const candidate = last.candidates.find((c) => c.index === (ref.candidate ?? last.kept ?? 0));
  if (candidate === undefined) return { ok: false, message: `Step ${ref.step} has no candidate #${(ref.candidate ?? 0) + 1}.` };
  if (candidate.diff === '')
    return {
      ok: false,
      message: `Candidate #${candidate.index + 1} of step ${ref.step} has no diff${candidate.error === undefined ? '' : ` (${candidate.error.code}: ${candidate.error.message})`}.`,
    };
  const passed = candidate.tests?.passed ?? null;
  const outcome =
    candidate.error !== undefined ? `refused (${candidate.error.code})` : passed === null ? 'not tried' : passed ? 'tests passed' : 'tests failed';
  return {
    ok: true,
    title: `Step ${ref.step} · candidate #${candidate.index + 1} · ${outcome}`,
    passed,
    diff: candidate.diff,
    preimages: new Map((candidate.preimages ?? []).map((p) => [p.path, p])),
    ...(candidate.error !== undefined && candidate.preimages === undefined
      ? { notKept: `candidate #${candidate.index + 1} was refused before it was tried (${candidate.error.code}), so its files were not kept` }
      : {}),
  };
}

/** The first pre-image recorded for each file over the episode: its content at the base commit. */
function firstPreimages(model: EpisodeModel): Map<string, Preimage> {
  const first = new Map<string, Preimage>();
  for (const view of model.steps) {
    const last = view.record.observation.last;
    if (last?.kind !== 'repair') continue;
    for (const c of last.candidates) for (const p of c.preimages ?? []) if (!first.has(p.path)) first.set(p.path, p);
  }
  return first;
}

async function fileImage(
  runDir: string,
  file: ReturnType<typeof parseUnifiedDiff>[number],
  preimages: ReadonlyMap<string, Preimage>,
  notKept: string | undefined,
): Promise<PatchFileImage> {
  const base = { oldPath: file.oldPath, newPath: file.newPath, status: file.status };
  const name = file.newPath ?? file.oldPath ?? '(unnamed)';
  if (file.binary) return { ...base, before: null, after: null, problem: `${name} is a binary change; only the diff can be shown.` };
  let before = '';
  if (file.oldPath !== null) {
    const pre = preimages.get(file.oldPath);
    if (pre === undefined)
      return {
        ...base,
        before: null,
        after: null,
        problem:
          notKept !== undefined
            ? `${notKept}.`
            : `the run recorded no pre-image of ${file.oldPath} (trajectories written before pre-images were kept have none).`,
      };
    if (pre.skipped !== undefined) return { ...base, before: null, after: null, problem: `the pre-image of ${file.oldPath} was not kept: ${pre.skipped}.` };
    if (pre.sha256 === null)
      return { ...base, before: null, after: null, problem: `${file.oldPath} did not exist before this patch, yet the patch changes it.` };
    const content = await readPreimage(runDir, pre.sha256);
    if (content === undefined)
      return { ...base, before: null, after: null, problem: `the pre-image of ${file.oldPath} is missing from ${runDir}/preimages (deleted?).` };
    before = content.toString('utf8');
  }
  const applied = applyHunks(before, file.hunks);
  if (!applied.ok) return { ...base, before, after: null, problem: `the patch does not apply to the recorded ${file.oldPath ?? name}: ${applied.reason}.` };
  return { ...base, before: file.oldPath === null ? null : before, after: file.newPath === null ? null : applied.text, problem: null };
}
