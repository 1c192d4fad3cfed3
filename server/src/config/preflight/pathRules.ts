/**
 * Dataset and model paths that do not exist. A missing path is a warning, not an error, because
 * the file may be produced later (`gp dataset prepare`) or live only on the training machine; when
 * a close name exists (a misspelt folder or file), the warning asks "did you mean" and offers it
 * as the preferred fix. A dataset path that names a folder is an error (`preflight/path-is-folder`),
 * since every command would fail to read it, and offers the dataset files inside as fixes.
 *
 * Model paths double as Hugging Face model names (Verl passes `model.path` to `from_pretrained`).
 * A missing value shaped like `owner/name` whose first segment is not a local folder is therefore
 * reported as information (`preflight/model-not-local`): the backend will download it. When that
 * first segment does exist (such as `models/` in `models/Qwen3-14B`), the person meant a local
 * folder and the warning stands.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, parse, relative, sep } from 'node:path';
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type Fix, type KeyPath } from '../../protocol/index.js';
import { existence, resolvePath } from './files.js';
import { isLocal } from './gpus.js';
import { setFix, type DiskRule } from './rule.js';
import { formatKeyPath } from '../../util/keyPath.js';
import { closest } from '../../util/closest.js';

const HUB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

interface Checked {
  readonly path: KeyPath;
  readonly value: string;
  readonly isModel: boolean;
}

function checkedPaths(config: ExperimentConfig): Checked[] {
  const p = config.paths;
  const out: Checked[] = [{ path: ['paths', 'dataset_train'], value: p.dataset_train, isModel: false }];
  if (p.dataset_val !== null) out.push({ path: ['paths', 'dataset_val'], value: p.dataset_val, isModel: false });
  // A model served over an OpenAI-compatible endpoint is a name the server knows, not a path here.
  if (isLocal(config, 'planner')) {
    out.push({ path: ['paths', 'planner_model'], value: p.planner_model, isModel: true });
    if (p.planner_tokenizer !== null) out.push({ path: ['paths', 'planner_tokenizer'], value: p.planner_tokenizer, isModel: true });
  }
  if (isLocal(config, 'cgm')) {
    out.push({ path: ['paths', 'cgm_model'], value: p.cgm_model, isModel: true });
    if (p.cgm_tokenizer !== null) out.push({ path: ['paths', 'cgm_tokenizer'], value: p.cgm_tokenizer, isModel: true });
  }
  return out;
}

async function looksLikeHubName(value: string, baseDir: string): Promise<boolean> {
  const owner = value.split('/')[0];
  if (!HUB_NAME.test(value) || owner === undefined) return false;
  const local = await existence(join(baseDir, owner));
  return !local.exists;
}

/** Entries of a folder, or none when it cannot be listed. */
async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Dataset files are JSONL (`tasks/loadTasks.ts` reads one task per line). */
function isDatasetFile(entry: Dirent): boolean {
  return entry.isFile() && /\.jsonl$/i.test(entry.name);
}

/** Most fixes offered for one finding: a quick-fix menu longer than this is read, not clicked. */
const maxPathFixes = 5;

/** A dataset path that names a folder: a finding naming the dataset files inside, each a fix. */
async function folderFinding(item: Checked, resolved: string): Promise<Finding> {
  const files = (await entries(resolved))
    .filter(isDatasetFile)
    .map((e) => e.name)
    .sort();
  const inside =
    files.length === 0
      ? 'it holds no .jsonl file'
      : `it holds ${files
          .slice(0, maxPathFixes)
          .map((f) => `\`${f}\``)
          .join(', ')}${files.length > maxPathFixes ? ` and ${files.length - maxPathFixes} more` : ''}`;
  return finding({
    code: 'preflight/path-is-folder',
    severity: 'error',
    message: `${formatKeyPath(item.path)} points to the folder ${resolved}, but a dataset is a JSONL file of tasks, one per line; ${inside}. Name one of its files.`,
    path: item.path,
    fixes: files.slice(0, maxPathFixes).map((f, i) => {
      const file = `${item.value.replace(/\/+$/, '')}/${f}`;
      return setFix(`Use \`${file}\``, [[item.path, file]], i === 0 && files.length === 1);
    }),
  });
}

/**
 * "Did you mean": the path with each segment that does not exist replaced by the closest entry
 * of its folder (a misspelt folder and a misspelt file alike), written as the person wrote it,
 * relative or absolute; undefined when some segment has no close entry.
 */
async function closestExisting(item: Checked, baseDir: string): Promise<string | undefined> {
  const resolved = resolvePath(baseDir, item.value);
  const segments = resolved.split(sep).filter((x) => x !== '');
  let at = parse(resolved).root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string; // i < segments.length.
    const last = i === segments.length - 1;
    const options = (await entries(at)).filter((e) => (!last ? e.isDirectory() : item.isModel ? e.isDirectory() : isDatasetFile(e)));
    const name = options.some((e) => e.name === segment)
      ? segment
      : closest(
          segment,
          options.map((e) => e.name),
        );
    if (name === undefined) return undefined;
    at = join(at, name);
  }
  if (at === resolved) return undefined;
  return isAbsolute(item.value) ? at : relative(baseDir, at);
}

async function check(item: Checked, baseDir: string): Promise<Finding[]> {
  const resolved = resolvePath(baseDir, item.value);
  const found = await existence(resolved);
  if (found.exists && found.isDirectory && !item.isModel) return [await folderFinding(item, resolved)];
  if (found.exists) return [];
  if (item.isModel && (await looksLikeHubName(item.value, baseDir))) {
    return [
      finding({
        code: 'preflight/model-not-local',
        severity: 'info',
        message: `${formatKeyPath(item.path)} (${item.value}) is not a local folder, so it is treated as a Hugging Face model name and downloaded at launch; the GPU memory estimate is skipped. Download it into a folder to check it here.`,
        path: item.path,
      }),
    ];
  }
  const fixes: Fix[] = [];
  const near = await closestExisting(item, baseDir);
  if (near !== undefined) fixes.push(setFix(`Did you mean \`${near}\`?`, [[item.path, near]], true));
  if (item.path[1] === 'dataset_val') fixes.push(setFix('Train without validation: set paths.dataset_val to null', [[item.path, null]]));
  return [
    finding({
      code: 'preflight/path-missing',
      severity: 'warning',
      message: `${formatKeyPath(item.path)} points to ${resolved}, which ${found.reason}.${near === undefined ? '' : ` Did you mean \`${near}\`?`} ${
        item.isModel ? 'Download the model there or correct the path.' : 'Prepare the dataset (gp dataset prepare) or correct the path.'
      }`,
      path: item.path,
      fixes,
    }),
  ];
}

export const pathsExistRule: DiskRule = {
  name: 'paths-exist',
  async check(config, baseDir) {
    const results = await Promise.all(checkedPaths(config).map((item) => check(item, baseDir)));
    return results.flat();
  },
};
