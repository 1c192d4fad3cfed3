/**
 * The default dataset and model paths (`datasets/r2e_gym/…`, `models/…`) are placeholders for a
 * full training setup, not files a config that never mentions them uses: a rollout takes its tasks
 * on its command line and reaches its models through endpoints, so `configs/experiments/
 * embedded_model.yaml`, which writes no path, must not open with warnings about a default dataset.
 *
 * The rule, for the findings of the paths-exist rule (`preflight/pathRules.ts`):
 * - a path the config names (the file writes it, or a flag sets it) is checked as written;
 * - a config that names no path at all gets no finding about the defaults;
 * - a config that names some path describes a training setup, so `gp train` would read the
 *   defaults of the others (the validation set beside a named training set): their findings stay,
 *   saying that the default applies, and sit on the `paths:` key where the missing setting goes
 *   (`findingAnchor.ts`), with the rule's fixes, which write the setting there.
 */
import type { Finding, KeyPath } from '../protocol/index.js';
import { formatKeyPath, hasAt } from '../util/keyPath.js';
import { flagFor, type Override } from './overrides.js';

/** The codes of the findings about a path's value on disk. */
const pathCodes: ReadonlySet<string> = new Set(['preflight/path-missing', 'preflight/path-is-folder', 'preflight/model-not-local']);

function isPathsKey(path: KeyPath): boolean {
  return path[0] === 'paths';
}

/** Whether the file (`value`, the parsed YAML) or a flag names the setting at `path`. */
function names(value: unknown, applied: readonly Override[], path: KeyPath): boolean {
  return hasAt(value, path) || flagFor(path, applied) !== undefined;
}

/** Whether the file or a flag names any path of the `paths` section. */
function namesAnyPath(value: unknown, applied: readonly Override[]): boolean {
  const paths = typeof value === 'object' && value !== null ? (value as { paths?: unknown }).paths : undefined;
  const written = typeof paths === 'object' && paths !== null && Object.keys(paths).length > 0;
  return written || applied.some((o) => isPathsKey(o.path));
}

/** The findings as the rule above keeps and words them; findings of other codes pass unchanged. */
export function withoutPlaceholderPaths(value: unknown, applied: readonly Override[], findings: readonly Finding[]): Finding[] {
  const anyNamed = namesAnyPath(value, applied);
  return findings.flatMap((f) => {
    if (!pathCodes.has(f.code) || !isPathsKey(f.path) || names(value, applied, f.path)) return [f];
    if (!anyNamed) return [];
    return [{ ...f, message: `${formatKeyPath(f.path)} is not set, so its default applies: ${f.message}` }];
  });
}
