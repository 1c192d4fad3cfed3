/**
 * Test results and grading reports. Mirrors the shapes written by `server/src/testing/`: the status
 * of one test as parsed from a log, SWE-bench's per-instance `report.json`
 * (`swebench/harness/grading.py::get_eval_report`), and the R2E-Gym reward comparison. Nothing
 * here is emitted to `schemas/`; these schemas check reports that we read back or receive.
 */
import { z } from 'zod';
import { backendFallbackSchema } from './backendChoice.js';

/**
 * Statuses a parsed test can have. SWE-bench knows the first five; `XPASS` (a test marked as an
 * expected failure that passed) is kept apart so that it is never mistaken for a pass.
 */
export const testStatuses = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'XFAIL', 'XPASS'] as const;
export const testStatusSchema = z.enum(testStatuses);
export type TestStatus = z.infer<typeof testStatusSchema>;

/** The tests of one gold list split by outcome, as SWE-bench writes them. */
export const testOutcomesSchema = z.object({
  success: z.array(z.string()),
  failure: z.array(z.string()),
});
export type TestOutcomes = z.infer<typeof testOutcomesSchema>;

/** `tests_status` of a SWE-bench report: one entry per gold list. */
export const testsStatusSchema = z.object({
  FAIL_TO_PASS: testOutcomesSchema,
  PASS_TO_PASS: testOutcomesSchema,
  FAIL_TO_FAIL: testOutcomesSchema,
  PASS_TO_FAIL: testOutcomesSchema,
});
export type TestsStatus = z.infer<typeof testsStatusSchema>;

/**
 * One instance's entry in `report.json`. `tests_status` is absent when there was no patch or the
 * test log could not be used, exactly as SWE-bench leaves it out; `infra_failure` and its reason
 * exist only in SWE-bench 5.x reports.
 */
export const instanceReportSchema = z.object({
  patch_is_None: z.boolean(),
  patch_exists: z.boolean(),
  patch_successfully_applied: z.boolean(),
  resolved: z.boolean(),
  infra_failure: z.boolean().optional(),
  infra_failure_reason: z.string().optional(),
  tests_status: testsStatusSchema.optional(),
});
export type InstanceReport = z.infer<typeof instanceReportSchema>;

/** A whole `report.json`: instance id → its report (SWE-bench writes one instance per file). */
export const swebenchReportSchema = z.record(z.string(), instanceReportSchema);
export type SwebenchReport = z.infer<typeof swebenchReportSchema>;

/** SWE-bench's resolution levels; only `RESOLVED_FULL` makes `resolved` true. */
export const resolutionStatusSchema = z.enum(['RESOLVED_FULL', 'RESOLVED_PARTIAL', 'RESOLVED_NO']);
export type ResolutionStatus = z.infer<typeof resolutionStatusSchema>;

/** Why an R2E-style comparison gave no reward, test by test, so that a person can see the cause. */
export const r2eGradeSchema = z.object({
  reward: z.union([z.literal(0), z.literal(1)]),
  /** Tests the expected map lists that the log did not report. */
  missing: z.array(z.string()),
  /** Tests the log reported that the expected map does not list. */
  unexpected: z.array(z.string()),
  mismatched: z.array(z.object({ test: z.string(), expected: z.string(), actual: testStatusSchema })),
  /** Set when the log had no pytest summary, which R2E-Gym treats as "no tests parsed". */
  noSummary: z.boolean(),
});
export type R2eGrade = z.infer<typeof r2eGradeSchema>;

/**
 * A Harbor task's verifier (docs/field-formats.md, "Running a Harbor task"): the reward its `tests/test.sh` wrote, every named
 * reward of `reward.json`, which file it came from, the script's exit status (recorded, not graded:
 * Harbor reads only the reward) and whether the reward counts as a fix (`reward >= 1`). A verifier
 * that wrote no usable reward, or ran out of time, is an `invalid` grade instead, never a zero.
 */
export const verifierGradeSchema = z.object({
  kind: z.literal('verifier'),
  reward: z.number(),
  rewards: z.record(z.string(), z.number()),
  from: z.enum(['reward.json', 'reward.txt']),
  resolved: z.boolean(),
  exitCode: z.number().int().nullable(),
});
export type VerifierGrade = z.infer<typeof verifierGradeSchema>;

/** How a test run was graded: SWE-bench lists, an R2E expected map, a Harbor verifier's reward, or only the log itself. */
export const testGradeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('swebench'), resolution: resolutionStatusSchema, report: instanceReportSchema }),
  z.object({ kind: z.literal('r2e'), grade: r2eGradeSchema }),
  verifierGradeSchema,
  z.object({ kind: z.literal('log'), passed: z.boolean(), reason: z.string() }),
  z.object({ kind: z.literal('invalid'), reason: z.string() }),
]);
export type TestGrade = z.infer<typeof testGradeSchema>;

/**
 * One line of `<run dir>/test_runs.jsonl`: a test command run in a sandbox, what it reported test
 * by test, and the grade. The raw output is in `logPath`, relative to the run directory.
 */
/**
 * The log parser a test run's output was read with (server/src/testing/repoLogFormats.ts);
 * `verifier` for a Harbor task, whose log is not parsed: its reward file grades it.
 */
export const testParserNameSchema = z.enum(['pytest', 'unittest', 'pytest-options', 'matplotlib', 'sympy', 'verifier']);
export type TestParserName = z.infer<typeof testParserNameSchema>;

/**
 * pytest's JUnit report against the parsed log (server/src/testing/junitReport.ts): `agreed`,
 * `disagreed` (the tests the log called passed and the report did not, which were graded failed),
 * `missing` or `unreadable` (the run is not gradable), `not-written` (pytest never got the option,
 * so the log was graded alone) or `not-used` (the command chooses its own report).
 */
export const testCrossCheckSchema = z.object({
  report: z.literal('junit'),
  state: z.enum(['agreed', 'disagreed', 'missing', 'unreadable', 'not-written', 'not-used']),
  mismatches: z.array(
    z.object({
      test: z.string(),
      log: testStatusSchema,
      report: z.enum(['passed', 'failed', 'error', 'skipped', 'xfail', 'absent']),
    }),
  ),
  /** All mismatches; the list keeps the first 50. */
  mismatchCount: z.number().int().nonnegative(),
  reason: z.string().optional(),
});
export type TestCrossCheck = z.infer<typeof testCrossCheckSchema>;

export const testRunRecordSchema = z.object({
  kind: z.literal('test_run'),
  task: z.string(),
  backend: z.enum(['docker', 'local']),
  /** Why `sandbox.backend: auto` ran the tests on the local backend; absent when they ran where asked. */
  backendFallback: backendFallbackSchema.optional(),
  command: z.string(),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  parser: testParserNameSchema,
  /** Whether the log's closing summary was found; false means the run crashed or was cut short. */
  complete: z.boolean(),
  counts: z.record(testStatusSchema, z.number().int().nonnegative()),
  tests: z.record(z.string(), testStatusSchema),
  crossCheck: testCrossCheckSchema.optional(),
  grade: testGradeSchema,
  logPath: z.string().optional(),
  reportPath: z.string().optional(),
});
export type TestRunRecord = z.infer<typeof testRunRecordSchema>;
