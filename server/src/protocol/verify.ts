/**
 * `gp dataset verify`: what a run folder of a verification holds for each task (one line of
 * `verdicts.jsonl`) and the certificate a certified dataset's rows carry. Read by the CLI, the
 * resume of a verification and the Tasks view, which shows each task's certification.
 */
import { z } from 'zod';
import { graderFindingSchema } from './graderSurface.js';
import { openedBackendSchema } from './sandbox.js';
import { strictnessRuleSchema } from './testReport.js';

/**
 * - `certified`: with no patch the task does not resolve, with the gold patch it is RESOLVED_FULL,
 *   every time, and no test changed its outcome between repeats;
 * - `flaky`: the same, once the tests named in `flaky` are left out of grading (they changed
 *   outcome between identical runs); the certified dataset keeps the task without them;
 * - `gold-fails`: the gold patch does not resolve the task (`failing` names the tests);
 * - `empty-passes`: the task resolves with no patch at all;
 * - `gold-does-not-apply`: the gold patch does not apply at the base commit;
 * - `gold-protected`: the gold patch changes the grader-facing surface (testing/graderSurface.ts:
 *   the task's tests, the runner's configuration, start-up hooks, package metadata, a shadowing
 *   module) and `--allow-protected` was not given, so it was not graded (`protected_paths` says which);
 * - `not-gradable`: a run could not be graded (`reason` says why);
 * - `no-gold`: the task has no gold patch or no FAIL_TO_PASS tests, so nothing can be certified;
 * - `cannot-run`: its sandbox cannot be opened (a missing environment, an unknown base: `reason`);
 * - `infrastructure`: the machine failed (the Docker daemon went away); a resume runs it again.
 */
export const verdictStatuses = [
  'certified',
  'flaky',
  'gold-fails',
  'empty-passes',
  'gold-does-not-apply',
  'gold-protected',
  'not-gradable',
  'no-gold',
  'cannot-run',
  'infrastructure',
] as const;
export const verdictStatusSchema = z.enum(verdictStatuses);
export type VerdictStatus = z.infer<typeof verdictStatusSchema>;

/** One test run of a verification: which patch, which repeat, what it graded and where its log is. */
export const verifyRunSchema = z.object({
  patch: z.enum(['empty', 'gold']),
  repeat: z.number().int().min(1),
  /** SWE-bench's resolution, or `not-gradable`. */
  resolution: z.enum(['RESOLVED_FULL', 'RESOLVED_PARTIAL', 'RESOLVED_NO', 'not-gradable']),
  durationMs: z.number().nonnegative(),
  /** The strictness rules (testReport.ts) that decided this run's grade where the harness's would differ. */
  strictness: z.array(strictnessRuleSchema).optional(),
  /** The raw log, relative to the run folder. */
  logPath: z.string().optional(),
});
export type VerifyRun = z.infer<typeof verifyRunSchema>;

export const taskVerdictSchema = z.object({
  kind: z.literal('verdict'),
  task_id: z.string(),
  /** The dataset line the task came from (1-based). */
  line: z.number().int().min(1),
  status: verdictStatusSchema,
  /** Why, in a sentence, for every status but `certified`. */
  reason: z.string().optional(),
  /** Tests whose outcome changed between identical runs, left out of grading in the certified dataset. */
  flaky: z.array(z.string()),
  /** Tests that did not pass with the gold patch (`gold-fails`). */
  failing: z.array(z.string()),
  /** FAIL_TO_PASS tests that already pass with no patch: the task's lists overstate what the fix does. */
  passing_without_fix: z.array(z.string()),
  /** The strictness rules that decided a run of this verdict, so a verdict the harness would not give says why; absent when none did. */
  strictness: z.array(strictnessRuleSchema).optional(),
  repeats: z.number().int().min(1),
  runs: z.array(verifyRunSchema),
  started_at: z.string(),
  duration_ms: z.number().nonnegative(),
  backend: openedBackendSchema.optional(),
  /**
   * What the tests ran in, in words: the Python environment (its key, interpreter, the day it
   * resolved as of and the resolver) on the local backend, the image on docker.
   */
  environment: z.string().optional(),
  /**
   * Of `failing`, the tests that never reached their body with the gold patch: reported ERROR
   * (pytest: an error in collection or in a fixture's setup) or not in the log by name (a module
   * that failed to import is not collected; pytest's summary names a skipped test by file and line
   * only). These point at the environment, not the fix.
   */
  errored_before_running: z.array(z.string()).optional(),
  /**
   * The grader-facing paths the gold patch changes, each with its rule and reason: refused with
   * `gold-protected`, or allowed by `--allow-protected` (any other status), so a certificate shows
   * which protected files its gold patch was let change.
   */
  protected_paths: z.array(graderFindingSchema).optional(),
});
export type TaskVerdict = z.infer<typeof taskVerdictSchema>;

/** What a certified dataset's row carries (`certification`), so a reader knows how it was checked. */
export const certificationSchema = z.object({
  status: z.enum(['certified', 'flaky']),
  /** The verification's run folder and when it ran. */
  run: z.string(),
  verified_at: z.string(),
  repeats: z.number().int().min(1),
  /** Tests left out of FAIL_TO_PASS or PASS_TO_PASS because they were flaky. */
  removed_flaky: z.array(z.string()),
});
export type Certification = z.infer<typeof certificationSchema>;

/** The summary a verification writes at its end (`verification.json`). */
export const verificationSummarySchema = z.object({
  dataset: z.string(),
  tasks: z.number().int().min(0),
  repeats: z.number().int().min(1),
  counts: z.record(verdictStatusSchema, z.number().int().min(0)),
  certified_dataset: z.string().optional(),
  started_at: z.string(),
  ended_at: z.string(),
});
export type VerificationSummary = z.infer<typeof verificationSummarySchema>;
