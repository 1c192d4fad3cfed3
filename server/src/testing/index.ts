/**
 * Running a task's tests in its sandbox and grading them: logs parsed test by test for people to
 * read, graded as swebench 5.0.2's harness grades them (its parsers ported) with our named stricter
 * rules on top, as R2E-Gym does, or by a Harbor verifier's reward; pytest's JUnit report and the
 * runner witness as second witnesses, and the grader-facing surface of a patch. It returns records
 * and writes nothing to the run folder.
 */
export { parsePytestLog, splitNodeId } from './parsePytest.js';
export { parseUnittestLog, unittestStatus } from './parseUnittest.js';
export { cleanLine, logLines, type ParsedTestLog, type StatusMap } from './logText.js';
export { lookupStatus, resolveCase, testFailed, testMaintained, testPassed } from './lookup.js';
export { gradeTests, gradeInstance, swebenchReport, resolutionStatus, type GoldTests, type InstanceOutcome } from './grade.js';
export { gradeR2e, r2eKey, toR2eStatuses, decodeExpectedOutput, type ExpectedOutputResult } from './gradeR2e.js';
export { extractTestOutput, logsEval, testExitCode, universalNewlines, type LogsEval, type TestOutputResult } from './swebenchLog.js';
export { gradeSwebench, harnessView, type HarnessView } from './swebenchGrade.js';
export { harnessParserOf, harnessParsers, repoHarnessParsers, runHarnessParser, isHarnessParser, type HarnessParserName } from './harnessParsers.js';
export {
  runTaskTests,
  parseTestOutput,
  gradeTask,
  harnessViewOf,
  type GradeInput,
  gradePassed,
  defaultTestCommand,
  type RunTestsOptions,
  type TestRun,
} from './runTests.js';
export { parseSympyLog, looksLikeSympyRunner } from './parseSympy.js';
export { logFormatOf, normaliseOptionId, parseLogAs, repoLogFormats, type LogFormat } from './repoLogFormats.js';
export { harborReward, type HarborReward } from './harborReward.js';
export { rewriteRoots, runHarborVerifier, verifierRoots, type VerifierOptions, type VerifierRoots } from './harborVerifier.js';
export { graderFindings, graderFindingsOfPatch, describeFindings, pathRoots, shippedFacts, type GraderFacts } from './graderSurface.js';
export { graderFacts, askEnvironment, baseFiles, factsScript, GraderFactsCache, type FactsAnswer } from './graderFacts.js';
export { graderTaskSurface, filesOfTestId, filesOfTestCommand, type GraderTaskSurface } from './taskTestFiles.js';
export { shippedStdlibNames } from './stdlibNames.js';
