/**
 * Which of our document kinds a file is, by the glob settings (the same globs the extension uses to
 * choose which documents to synchronise). A workspace-relative glob such as `configs/x.yaml` matches
 * at any depth, as the extension's document selector does.
 */
import picomatch from 'picomatch';
import type { Settings } from '../protocol/index.js';

export type DocKind = 'experiment' | 'dataset' | 'other';

const matchers = new Map<string, (path: string) => boolean>();

function matcher(globs: readonly string[]): (path: string) => boolean {
  const key = globs.join('\u0000');
  let m = matchers.get(key);
  if (!m) {
    const anchored = globs.map((g) => (g.startsWith('/') || g.startsWith('**/') ? g : `**/${g}`));
    m = picomatch(anchored, { dot: true });
    matchers.set(key, m);
  }
  return m;
}

/**
 * The gold patches `gp dataset prepare` writes beside a dataset (`gold_predictions_<name>.jsonl`,
 * SWE-bench's predictions: `{instance_id, model_patch}` per line) are not tasks, though the dataset
 * globs match them: checked as tasks every line would be an error, and the Tasks view would list
 * them as a file of invalid lines.
 */
const goldPredictions = /(^|\/)gold_predictions_[^/]*\.jsonl$/;

export function classify(fsPath: string, settings: Pick<Settings, 'experimentGlobs' | 'datasetGlobs'>): DocKind {
  const path = fsPath.replace(/\\/g, '/');
  if (matcher(settings.datasetGlobs)(path)) return goldPredictions.test(path) ? 'other' : 'dataset';
  if (matcher(settings.experimentGlobs)(path)) return 'experiment';
  return 'other';
}
