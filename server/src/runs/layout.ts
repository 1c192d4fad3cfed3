/**
 * Where each file of a run directory lives (DESIGN §2): one place that names them, so writers,
 * readers and the extension agree.
 *
 * ```
 * <run>/resolved_config.yaml        the config the run used (config/resolve.ts writes it)
 * <run>/status.json                 state, pid, counts; rewritten atomically
 * <run>/events.jsonl                progress, append-only
 * <run>/trajectories/<episode>.jsonl  one per episode, appended step by step
 * <run>/report.json                 the evaluation summary
 * <run>/reports/<task>/report.json  SWE-bench's per-instance report (testing/runTests.ts writes it)
 * <run>/test_runs.jsonl, tests/     every test run and its raw log (testing/runTests.ts)
 * ```
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

export interface RunLayout {
  readonly dir: string;
  readonly resolvedConfig: string;
  readonly status: string;
  readonly events: string;
  readonly trajectories: string;
  readonly report: string;
  /** Absolute path of an episode's trajectory. */
  trajectory(episodeId: string): string;
  /** The same path relative to the run directory, as reports record it. */
  trajectoryRelative(episodeId: string): string;
  /** SWE-bench's per-instance report of an episode, relative to the run directory. */
  instanceReportRelative(episodeId: string): string;
}

export function runLayout(dir: string): RunLayout {
  return {
    dir,
    resolvedConfig: join(dir, 'resolved_config.yaml'),
    status: join(dir, 'status.json'),
    events: join(dir, 'events.jsonl'),
    trajectories: join(dir, 'trajectories'),
    report: join(dir, 'report.json'),
    trajectory: (episodeId) => join(dir, 'trajectories', episodeFileName(episodeId)),
    trajectoryRelative: (episodeId) => join('trajectories', episodeFileName(episodeId)),
    instanceReportRelative: (episodeId) => join('reports', instanceFolderName(episodeId), 'report.json'),
  };
}

const safeChars = /[^A-Za-z0-9._-]+/g;

/**
 * The trajectory file name of an episode: the id with every character outside `[A-Za-z0-9._-]`
 * replaced. When that changed the id, a short hash of the id follows, so `a/b` and `a_b` (or
 * `task#2` and `task_2`) never share a file.
 */
export function episodeFileName(episodeId: string): string {
  const safe = episodeId.replace(safeChars, '_').replace(/^\.+/, '_').slice(0, 120);
  if (safe === episodeId) return `${safe}.jsonl`;
  const hash = createHash('sha256').update(episodeId).digest('hex').slice(0, 8);
  return `${safe}-${hash}.jsonl`;
}

/**
 * The folder name `writeInstanceReport` (testing/runTests.ts) gives an instance; kept equal to it,
 * and a test compares the two, so a resumed run finds the reports an earlier process wrote.
 */
export function instanceFolderName(id: string): string {
  return id.replace(/[^a-zA-Z0-9_.-]+/g, '_').slice(0, 80);
}
