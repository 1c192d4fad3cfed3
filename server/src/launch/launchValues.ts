/**
 * The values a launch will really get, for the editor's review list (issue 27): each from the
 * resolution `gp` itself reaches (flags over the file over the defaults). The typed config drops
 * an invalid value for its default, which the run never reaches because the error refuses it; so a
 * value with an error is shown as it was written, beside that error, not as the default.
 */
import type { Resolution } from '../config/index.js';
import type { LaunchValue, LaunchValues } from '../protocol/launch.js';
import { getAt } from '../util/keyPath.js';

type Path = readonly string[];

const paths = {
  agent: ['rollout', 'agent'],
  backend: ['sandbox', 'backend'],
  parallel: ['rollout', 'parallel'],
  attempts: ['rollout', 'attempts'],
  dataset: ['paths', 'dataset_train'],
} as const satisfies Record<keyof LaunchValues, Path>;

export function launchValues(resolution: Resolution): LaunchValues {
  return {
    agent: launchValue(resolution, paths.agent),
    backend: launchValue(resolution, paths.backend),
    parallel: launchValue(resolution, paths.parallel),
    attempts: launchValue(resolution, paths.attempts),
    dataset: launchValue(resolution, paths.dataset),
  };
}

function samePath(a: readonly (string | number)[], b: Path): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

function shown(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function launchValue(resolution: Resolution, path: Path): LaunchValue {
  const error = resolution.findings.find((f) => f.severity === 'error' && samePath(f.path, path));
  // The last flag that set the path wins, as it does when the overrides are applied.
  const flag = [...resolution.applied].reverse().find((o) => samePath(o.path, path));
  const written = flag !== undefined ? flag.value : getAt(resolution.source.value, path);
  const from = flag !== undefined ? 'flag' : written !== undefined ? 'file' : 'default';
  if (error !== undefined || resolution.config === undefined) {
    return { value: shown(written), from, error: error?.message ?? null };
  }
  return { value: shown(getAt(resolution.config, path)), from, error: null };
}
