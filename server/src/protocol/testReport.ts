/**
 * Test results and grading reports. Mirrors the shapes written by `server/src/testing/`: the status
 * of one test as parsed from a log, SWE-bench's per-instance `report.json`
 * (`swebench/harness/grading.py::get_eval_report`), and the R2E-Gym reward comparison. Nothing
 * here is emitted to `schemas/`; these schemas check reports that we read back or receive.
 */
import { z } from 'zod';
import { backendFallbackSchema } from './backendChoice.js';
import { openedBackendSchema } from './sandbox.js';

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
  mismatched: z.array(
    z.object({
      test: z.string(),
      expected: z.string(),
      actual: testStatusSchema,
    }),
  ),
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

/**
 * The rules by which our SWE-bench grading is stricter than the harness's
 * (docs/upstream-contracts.md#where-we-are-stricter, where each is explained); a grade names the
 * rules that decided it, so a verdict that differs from the harness's says why:
 * - `time-limit`: the tests ran past `sandbox.test_timeout`;
 * - `pytest-no-outcome`: pytest exited 2 to 5, so the tests never ran to an outcome;
 * - `run-exit-status`: the run's own exit status (the one `eval.sh` records after the end marker,
 *   or the test command's when the log has no markers) is non-zero while the log reports no failing test;
 * - `task-tests-absent`: none of the task's tests appears in the log;
 * - `junit-report`: pytest's JUnit report is missing or damaged, or contradicts a pass of the log;
 * - `unknown-status`: a task test's status is a word the harness does not know, which the harness
 *   would leave out of both lists and we count as a failure;
 * - `runner-tampered`: the runner witness (testing/runnerWitness.ts) saw the test runner's own
 *   functions or hooks change during the run, the runner load from inside the repository, a
 *   forged witness record, or the witness go silent before the run's end.
 */
export const strictnessRules = [
  'time-limit',
  'pytest-no-outcome',
  'run-exit-status',
  'task-tests-absent',
  'junit-report',
  'unknown-status',
  'runner-tampered',
] as const;
export const strictnessRuleSchema = z.enum(strictnessRules);
export type StrictnessRule = z.infer<typeof strictnessRuleSchema>;

/** How a test run was graded: SWE-bench lists, an R2E expected map, a Harbor verifier's reward, or only the log itself. */
export const testGradeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('swebench'),
    resolution: resolutionStatusSchema,
    report: instanceReportSchema,
    /** The harness's own resolution of the same log, when a strictness rule made ours differ. */
    harness: resolutionStatusSchema.optional(),
    /** The strictness rules that changed a test's outcome from the harness's; absent when none did. */
    strictness: z.array(strictnessRuleSchema).optional(),
  }),
  z.object({ kind: z.literal('r2e'), grade: r2eGradeSchema }),
  verifierGradeSchema,
  z.object({ kind: z.literal('log'), passed: z.boolean(), reason: z.string() }),
  /** Not gradable; `rule` names our strictness rule when the harness would have graded the log, and is absent when the harness would not have either. */
  z.object({
    kind: z.literal('invalid'),
    reason: z.string(),
    rule: strictnessRuleSchema.optional(),
  }),
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

/**
 * The Python names of swebench 5.0.2's `PARSER_REGISTRY` (aliases included: `parse_log_flask` is
 * `parse_log_pytest`); server/src/testing/harnessParsers.ts ports each one.
 */
export const harnessParserNames = [
  'parse_log_pytest',
  'parse_log_pytest_options',
  'parse_log_django',
  'parse_log_pytest_v2',
  'parse_log_seaborn',
  'parse_log_sympy',
  'parse_log_matplotlib',
  'parse_log_astroid',
  'parse_log_flask',
  'parse_log_marshmallow',
  'parse_log_pvlib',
  'parse_log_pyvista',
  'parse_log_sqlfluff',
  'parse_log_xarray',
  'parse_log_pydicom',
  'parse_log_requests',
  'parse_log_pylint',
  'parse_log_astropy',
  'parse_log_scikit',
  'parse_log_sphinx',
] as const;
export const harnessParserNameSchema = z.enum(harnessParserNames);
export type HarnessParserName = z.infer<typeof harnessParserNameSchema>;

/**
 * One record the runner witness writes (resources/witness/gp_witness_core.py, `_Witness.emit`):
 * `start` when a runner process takes the key, `armed` when it has fingerprinted the runner,
 * `end` as that process ends. Each is signed by the host's one-time key, so the shape is checked
 * only after the signature is.
 */
export const witnessRecordSchema = z.object({
  run: z.string(),
  event: z.enum(['start', 'armed', 'end']),
  pid: z.number().int(),
  runner: z.enum(['pytest', 'unittest']),
  blocked: z.array(z.string()).optional(),
  inside: z.array(z.string()).optional(),
  armed: z.boolean().optional(),
  plugin: z.boolean().optional(),
  changed: z.array(z.string()).optional(),
  changedCount: z.number().int().nonnegative().optional(),
});
export type WitnessRecord = z.infer<typeof witnessRecordSchema>;

/**
 * What the runner witness saw (docs/sandbox.md, "The runner witness"): a small witness of ours,
 * loaded into the test runner's process before the repository's code, that fingerprints the
 * runner (pytest's and pluggy's modules and hooks, or unittest's) and checks it again as the
 * process ends, reporting over signed records only the host can verify.
 * - `clean`: it started, armed and ended, and nothing it watches changed;
 * - `tampered`: the runner changed, loaded from inside the repository, ran without the witness,
 *   a forged record appeared, or the witness started and never ended (`reason` says which);
 * - `not-started`: no runner process took the witness's key; honest when the command does not
 *   start pytest or unittest itself (an eval script, tox);
 * - `cut`: the run was stopped at its time limit before the witness could end;
 * - `not-requested`: the witness was not asked for (`reason` says why: the command sets its own
 *   PYTEST_ADDOPTS or PYTHONPATH, runs tox, or the runner is the repository's own, as sympy's).
 */
export const runnerWitnessSchema = z.object({
  state: z.enum(['clean', 'tampered', 'not-started', 'cut', 'not-requested']),
  reason: z.string().optional(),
  /** Which runner took the key. */
  runner: z.enum(['pytest', 'unittest']).optional(),
  started: z.boolean(),
  /** Whether it took its fingerprints before the repository's code ran. */
  armed: z.boolean(),
  ended: z.boolean(),
  /** pytest11 entry points of distributions inside the repository that it kept pytest from loading. */
  blockedPlugins: z.array(z.string()),
  /** What changed, named (`_pytest.reports.TestReport.__init__`); the list keeps the first 20. */
  changed: z.array(z.string()),
  changedCount: z.number().int().nonnegative(),
  /** Runner modules that were loaded from inside the repository. */
  inside: z.array(z.string()),
  /** Witness records in the output that did not verify: printed by something else. */
  forged: z.number().int().nonnegative(),
});
export type RunnerWitness = z.infer<typeof runnerWitnessSchema>;

export const testRunRecordSchema = z.object({
  kind: z.literal('test_run'),
  task: z.string(),
  backend: openedBackendSchema,
  /** Why `sandbox.backend: auto` ran the tests on the local backend; absent when they ran where asked. */
  backendFallback: backendFallbackSchema.optional(),
  command: z.string(),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  parser: testParserNameSchema,
  /** The harness's parser that graded a task with SWE-bench lists. */
  harnessParser: harnessParserNameSchema.optional(),
  /** Whether the log's closing summary was found; false means the run crashed or was cut short. */
  complete: z.boolean(),
  counts: z.record(testStatusSchema, z.number().int().nonnegative()),
  tests: z.record(z.string(), testStatusSchema),
  crossCheck: testCrossCheckSchema.optional(),
  /** The runner witness's report; absent in records written before it existed. */
  witness: runnerWitnessSchema.optional(),
  grade: testGradeSchema,
  logPath: z.string().optional(),
  reportPath: z.string().optional(),
});
export type TestRunRecord = z.infer<typeof testRunRecordSchema>;
