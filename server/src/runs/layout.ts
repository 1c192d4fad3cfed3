/**
 * Where each file of a run directory lives (ARCHITECTURE.md §3): the one place that names them, so writers,
 * readers and the extension agree. Nothing else in `server/src` spells these names.
 *
 * ```
 * <run>/resolved_config.yaml          the config the run used (launch/runFolder.ts writes it)
 * <run>/status.json                   state, pid, counts, backend; rewritten atomically
 * <run>/events.jsonl                  progress, append-only
 * <run>/trajectories/<episode>.jsonl  one per episode, appended step by step
 * <run>/report.json                   the evaluation summary
 * <run>/reports/<task>/report.json    SWE-bench's per-instance report (runs/testRuns.ts writes it)
 * <run>/test_runs.jsonl               every test run, one line each (runs/testRuns.ts)
 * <run>/tests/<task>-<time>.log       the raw log of each test run
 * <run>/metrics.jsonl                 training metrics, one line per step (trainer/trainRun.ts)
 * <run>/launch.json                   how it was launched: command, arguments, folder (runs/launchRecord.ts)
 * <run>/run.lock                      the owner of the run folder: pid, host (runs/runLock.ts)
 * <run>/run.log                       the output of a run launched detached (from the editor), or of a trainer
 * <run>/preimages/<sha256>            files as they were before a candidate patch, once per content (runs/preimageStore.ts)
 * <run>/verdicts.jsonl                a verification's verdict per task, append-only (runs/verdicts.ts)
 * <run>/verification.json             a verification's summary, written at its end
 * <run>/tensorboard/events.out.tfevents.*  a training run's metrics for TensorBoard, one file per attempt (tensorboardEvents.ts)
 * <run>/step_samples.jsonl            per training step, a sample of its episodes with links to their trajectories
 * ```
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compactUtcStamp } from '../util/time.js';

export interface RunLayout {
  readonly dir: string;
  readonly resolvedConfig: string;
  readonly status: string;
  readonly events: string;
  readonly trajectories: string;
  readonly report: string;
  /** The folder of SWE-bench's per-instance reports. */
  readonly reports: string;
  /** The folder of raw test logs. */
  readonly tests: string;
  readonly testRuns: string;
  readonly metrics: string;
  readonly runLog: string;
  readonly launch: string;
  /** The lock that makes one process the run folder's owner (runs/runLock.ts). */
  readonly lock: string;
  /** The folder of patch pre-images, one file per content hash. */
  readonly preimages: string;
  /** A verification's verdicts (`gp dataset verify`), one line per task. */
  readonly verdicts: string;
  /** A verification's summary. */
  readonly verification: string;
  /** The folder of a training run's TensorBoard event files. */
  readonly tensorboard: string;
  /** Per training step, a sample of its episodes (`protocol/metrics.ts`'s `stepSamplesLineSchema`). */
  readonly stepSamples: string;
  /**
   * Absolute path of an episode's trajectory: `trajectories/<episode>.jsonl`, or in a run folder an
   * earlier version wrote, the name that version gave an attempt's trajectory when only it exists.
   */
  trajectory(episodeId: string): string;
  /** The same path relative to the run directory, as reports record it. */
  trajectoryRelative(episodeId: string): string;
  /** SWE-bench's per-instance report of an instance (an episode id or a task id), relative to the run directory. */
  instanceReportRelative(id: string): string;
  /** A test run's raw log, relative to the run directory: the task, the start time and a tag that keeps runs apart. */
  testLogRelative(taskId: string, startedAt: string, tag: string): string;
  /** A run-relative path (as records hold them) made absolute. */
  resolve(relative: string): string;
}

const names = {
  resolvedConfig: 'resolved_config.yaml',
  status: 'status.json',
  events: 'events.jsonl',
  trajectories: 'trajectories',
  report: 'report.json',
  reports: 'reports',
  tests: 'tests',
  testRuns: 'test_runs.jsonl',
  metrics: 'metrics.jsonl',
  runLog: 'run.log',
  launch: 'launch.json',
  lock: 'run.lock',
  preimages: 'preimages',
  verdicts: 'verdicts.jsonl',
  verification: 'verification.json',
  tensorboard: 'tensorboard',
  stepSamples: 'step_samples.jsonl',
} as const;

export function runLayout(dir: string): RunLayout {
  return {
    dir,
    resolvedConfig: join(dir, names.resolvedConfig),
    status: join(dir, names.status),
    events: join(dir, names.events),
    trajectories: join(dir, names.trajectories),
    report: join(dir, names.report),
    reports: join(dir, names.reports),
    tests: join(dir, names.tests),
    testRuns: join(dir, names.testRuns),
    metrics: join(dir, names.metrics),
    runLog: join(dir, names.runLog),
    launch: join(dir, names.launch),
    lock: join(dir, names.lock),
    preimages: join(dir, names.preimages),
    verdicts: join(dir, names.verdicts),
    verification: join(dir, names.verification),
    tensorboard: join(dir, names.tensorboard),
    stepSamples: join(dir, names.stepSamples),
    trajectory: (episodeId) => join(dir, trajectoryRelative(dir, episodeId)),
    trajectoryRelative: (episodeId) => trajectoryRelative(dir, episodeId),
    // SWE-bench names the per-instance report `report.json`, like the run's own summary one level up.
    instanceReportRelative: (id) => join(names.reports, instanceFolderName(id), names.report),
    testLogRelative: (taskId, startedAt, tag) => join(names.tests, `${instanceFolderName(taskId)}-${compactUtcStamp(new Date(startedAt))}-${tag}.log`),
    resolve: (relative) => join(dir, relative),
  };
}

const safeChars = /[^A-Za-z0-9._-]+/g;

/**
 * An id as one file name of at most `max` characters: every character outside `[A-Za-z0-9._-]`
 * replaced, and leading dots too, so no id names `.`, `..` or a hidden file. When that changed the
 * id, a short hash of the id follows, so `a/b` and `a_b` (or `task#2` and `task_2`) never share a
 * name. The task schema already refuses such ids (tasks/schema.ts); this holds for every other way
 * an id arrives (a trajectory, the environment service).
 */
function safeFileName(id: string, max: number): string {
  const safe = id.replace(safeChars, '_').replace(/^\.+/, '_').slice(0, max);
  if (safe === id) return safe;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${safe}-${hash}`;
}

/** A task id that is already a file name, then `#` and an attempt number: `rollout/plan.ts`'s `<task>#<n>`. */
const attemptId = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,110}#[1-9]\d{0,8}$/;

/**
 * The trajectory file name of an episode: its id, which is also its name wherever a person reads
 * it (`protocol/episodeName.ts`), so the trajectory viewer's tab shows the same name as the Runs
 * view. An attempt's `#` is kept: it is a plain character in a file name on Linux, macOS and
 * Windows and in a shell word. Any other id is made safe by `safeFileName`, whose names never
 * contain `#`, so `task#2` and `task_2` still get two files.
 */
export function episodeFileName(episodeId: string): string {
  return attemptId.test(episodeId) ? `${episodeId}.jsonl` : `${safeFileName(episodeId, 120)}.jsonl`;
}

/** The name versions before issue 27 gave every trajectory: an attempt's `task#2` became `task_2-<hash>`. */
export function legacyEpisodeFileName(episodeId: string): string {
  return `${safeFileName(episodeId, 120)}.jsonl`;
}

/**
 * An episode's trajectory relative to the run folder. Only an attempt's name changed, so only
 * then is the disk asked whether an earlier version's file is there instead; a resumed run of an
 * older version then goes on with the file it began.
 */
function trajectoryRelative(dir: string, episodeId: string): string {
  const name = episodeFileName(episodeId);
  const legacy = legacyEpisodeFileName(episodeId);
  if (legacy === name || existsSync(join(dir, names.trajectories, name)) || !existsSync(join(dir, names.trajectories, legacy)))
    return join(names.trajectories, name);
  return join(names.trajectories, legacy);
}

/**
 * The folder name of an instance's report (and the prefix of its test logs). A resumed run finds
 * the reports an earlier process wrote because both name the folder with this function.
 */
export function instanceFolderName(id: string): string {
  return safeFileName(id, 80);
}
