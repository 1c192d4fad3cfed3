/**
 * Dataset and model paths that do not exist. A missing path is a warning, not an error, because
 * the file may be produced later (`gp dataset prepare`) or live only on the training machine.
 *
 * Model paths double as Hugging Face model names (Verl passes `model.path` to `from_pretrained`).
 * A missing value shaped like `owner/name` whose first segment is not a local folder is therefore
 * reported as information (`preflight/model-not-local`): the backend will download it. When that
 * first segment does exist (such as `models/` in `models/Qwen3-14B`), the person meant a local
 * folder and the warning stands.
 */
import { join } from 'node:path';
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type Fix, type KeyPath } from '../../protocol/index.js';
import { existence, resolvePath } from './files.js';
import { isLocal } from './gpus.js';
import { setFix, type DiskRule } from './rule.js';
import { formatKeyPath } from '../../util/keyPath.js';

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

async function check(item: Checked, baseDir: string): Promise<Finding[]> {
  const resolved = resolvePath(baseDir, item.value);
  const found = await existence(resolved);
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
  if (item.path[1] === 'dataset_val') fixes.push(setFix('Train without validation: set paths.dataset_val to null', [[item.path, null]]));
  return [
    finding({
      code: 'preflight/path-missing',
      severity: 'warning',
      message: `${formatKeyPath(item.path)} points to ${resolved}, which ${found.reason}. ${
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
