/**
 * Our grading against SWE-bench's own: every case runs through swebench 5.0.2's functions
 * (pinned wheels from PyPI, `swebench-harness/harness_cases.py`) and through
 * `server/src/testing/`, and the answers must agree. The cases are SWE-bench's own tests of its
 * parsers and grading (their data, `test/fixtures/swebench-harness/upstream-cases.json`), the kept
 * logs of `test/fixtures/logs/` through every parser, and cases written per rule
 * (`crafted-cases.json`). The only difference allowed is one a strictness rule of ours names
 * (docs/upstream-contracts.md#where-we-are-stricter), and then ours must be the stricter answer.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { ResolutionStatus, TestGrade, TestsStatus } from '../../server/src/protocol/testReport.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import {
  gradeTask,
  gradeTests,
  harnessParsers,
  isHarnessParser,
  logsEval,
  repoHarnessParsers,
  resolutionStatus,
  runHarnessParser,
  testExitCode,
  testFailed,
  testMaintained,
  testPassed,
  universalNewlines,
  type StatusMap,
} from '../../server/src/testing/index.js';
import { HarnessParserCrash } from '../../server/src/testing/logText.js';
import { runHarnessScript } from '../support/swebenchHarness.js';

const root = resolve(__dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures');

type Pairs = [string, string][];
interface Gold {
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
}
type Case =
  | { kind: 'parse'; parser: string; log: string }
  | { kind: 'logs_eval'; parser: string; log: string }
  | { kind: 'predicate'; predicate: 'test_passed' | 'test_failed' | 'test_maintained'; case: string; status_map: Pairs }
  | { kind: 'report'; status_map: Pairs; gold: Gold }
  | { kind: 'exit_code'; text: string }
  | { kind: 'evaluate'; repo: string; log: string; gold: Gold; exit_code: number | null; rule?: string; own_command?: boolean };
type Named = Case & { name: string };

/** A case file's status maps are objects; the harness and we both keep their order. */
function fromFile(raw: Record<string, unknown>, name: string): Named {
  const statusMap = raw['status_map'];
  const pairs = statusMap === undefined || Array.isArray(statusMap) ? statusMap : Object.entries(statusMap as Record<string, string>);
  const { expected: _expected, source: _source, ...rest } = raw;
  return { ...rest, ...(pairs === undefined ? {} : { status_map: pairs }), name } as Named;
}

function upstreamCases(): { cases: Named[]; expected: unknown[] } {
  const doc = JSON.parse(readFileSync(join(fixtures, 'swebench-harness', 'upstream-cases.json'), 'utf8')) as { cases: Record<string, unknown>[] };
  return { cases: doc.cases.map((c) => fromFile(c, String(c['source']))), expected: doc.cases.map((c) => c['expected']) };
}

function craftedCases(): Named[] {
  const doc = JSON.parse(readFileSync(join(fixtures, 'swebench-harness', 'crafted-cases.json'), 'utf8')) as { cases: Record<string, unknown>[] };
  return doc.cases.map((c) => fromFile(c, String(c['name'])));
}

/** Every kept log through each of the harness's distinct parsers, alone and as an evaluation log. */
function keptLogCases(): Named[] {
  const dir = join(fixtures, 'logs');
  const parsers = [
    'parse_log_pytest',
    'parse_log_pytest_options',
    'parse_log_matplotlib',
    'parse_log_pytest_v2',
    'parse_log_seaborn',
    'parse_log_django',
    'parse_log_sympy',
  ];
  return readdirSync(dir)
    .sort()
    .flatMap((file) => {
      const log = readFileSync(join(dir, file), 'utf8');
      const evalLog = `+ : '>>>>> Start Test Output'\n${log}+ : '>>>>> End Test Output'\n>>>>> Test Exit Code: 1\n`;
      return parsers.flatMap((parser): Named[] => [
        { kind: 'parse', parser, log, name: `logs/${file} by ${parser}` },
        { kind: 'logs_eval', parser, log: evalLog, name: `logs/${file} as an evaluation log by ${parser}` },
      ]);
    });
}

/**
 * Logs put together at random (a fixed seed, so every run checks the same ones) from the pieces
 * the parsers treat specially: status words first and last, ids with brackets and spaces, `" - "`,
 * colour codes and control characters, Python-only whitespace, Django's ` ... ` results and
 * headers, sympy's marks and rules, the markers and exit-status lines.
 */
function generatedCases(count: number): Named[] {
  let seed = 20261127;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pick = <T>(items: readonly T[]): T => items[next(items.length)] as T;
  const words = [
    'PASSED',
    'FAILED',
    'ERROR',
    'SKIPPED',
    'XFAIL',
    'XPASS',
    'PASSED:',
    'ok',
    'OK',
    'F',
    'E',
    'f',
    's',
    'FAIL:',
    'ERROR:',
    'expected failure',
    '...',
    ' ... ',
    '-',
    ' - ',
    '[100%]',
    '[ 50%]',
    '[1]',
  ];
  const ids = [
    'tests/a.py::t',
    'tests/a.py::t[a b]',
    'tests/a.py::t[a',
    't[/tmp/x/y.dcm]',
    'test_x (app.T)',
    'test_x (app.T.test_x)',
    'test_y',
    'sympy/a.py:test_y',
    'lib/a.py::c[MouseButton.LEFT]',
    '[2]',
    't[a]b',
  ];
  const glue = [' ', '  ', '\t', '\u001c', '\u00a0', '\ufeff', '\r', '\u001b[32m', '\u001b[0m', '[1;31m', '', ' - reason', ' ... ', '_____ '];
  const specials = [
    '>>>>> Start Test Output',
    '>>>>> End Test Output',
    '>>>>> Test Exit Code: 1',
    '>>>>> Test Exit Code: 0',
    'System check identified no issues (0 silenced).',
    'ok',
    '3 passing',
    '',
  ];
  const statuses = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'XFAIL', 'XPASS', 'PASSED:'];
  const tails = ['', '', ' - reason - more', ' [100%]', ' [ 50%]', '\r', ' PASSED', ' (0 silenced)'];
  const separator = (): string => pick([' ', ' ', ' ', '  ', '\t', '\u001c', '\u00a0', '\ufeff', '\u001b[0m ', ' [1;31m']);
  const junk = (): string => {
    const parts: string[] = [];
    for (let i = 0, n = 1 + next(5); i < n; i++) parts.push(pick([pick(words), pick(ids), pick(glue)]));
    return parts.join(pick([' ', '', ' ... ']));
  };
  const line = (): string => {
    const r = next(10);
    if (r < 4) return `${pick(['', '', '\u001b[32m', ' '])}${pick(statuses)}${separator()}${pick(ids)}${pick(tails)}`;
    if (r < 6) return `${pick(ids)}${separator()}${pick(statuses)}${pick(tails)}`;
    if (r === 6)
      return `${pick(ids)} ... ${pick(['ok', 'OK', ' OK', 'FAIL', 'ERROR', "skipped 'x'", 'expected failure', 'System check identified no issues (0 silenced).'])}`;
    if (r === 7) return `${pick(['test_a', 'test_b', '  test_c'])} ${pick(['ok', 'F', 'E', 'f', 's', 'X'])}${pick(['', ' ', '\r'])}`;
    if (r === 8) return pick(specials);
    return junk();
  };
  const parsers = [
    'parse_log_pytest',
    'parse_log_pytest_options',
    'parse_log_matplotlib',
    'parse_log_pytest_v2',
    'parse_log_seaborn',
    'parse_log_django',
    'parse_log_sympy',
  ];
  return Array.from({ length: count }, (_, i): Named => {
    const newline = pick(['\n', '\n', '\r\n']);
    const lines = (): string => Array.from({ length: 1 + next(12) }, line).join(newline);
    const parser = pick(parsers);
    if (i % 2 === 0) return { kind: 'parse', parser, log: lines(), name: `generated log ${i} by ${parser}` };
    // An evaluation log: mostly well formed, sometimes a marker missing, doubled or out of order.
    const [before, inside, after] = [lines(), lines(), lines()];
    const shape = next(8);
    const [first, second] = shape === 0 ? [specials[1], specials[0]] : shape === 1 ? ['', specials[1]] : [`+ : '${specials[0]}'`, `+ : '${specials[1]}'`];
    const exit = pick(['', specials[2], specials[3]]);
    const log = [shape < 6 ? '' : before, first, inside, second, exit, shape === 7 ? after : ''].join(newline);
    return { kind: 'logs_eval', parser, log, name: `generated evaluation log ${i} by ${parser}` };
  });
}

const pairsOf = (map: StatusMap): Pairs => [...map.entries()];
const statusMap = (pairs: Pairs): StatusMap => new Map(pairs);

function parseOurs(parser: string, log: string): unknown {
  if (!isHarnessParser(parser)) return undefined;
  try {
    return pairsOf(runHarnessParser(parser, log));
  } catch (error) {
    if (error instanceof HarnessParserCrash) return { raised: true };
    throw error;
  }
}

const evalScript = "set -x\n: '>>>>> Start Test Output'\npython -m pytest -rA\n: '>>>>> End Test Output'";

function gradeOurs(c: Extract<Case, { kind: 'evaluate' }>): TestGrade {
  // An evaluation script's log, unless the case is the output of a test command of our own.
  const command = c.own_command === true ? 'python -m pytest -rA' : evalScript;
  const task = taskEntrySchema.parse({
    task_id: 'diff',
    issue: { title: 'diff', body: '' },
    repo: c.repo,
    FAIL_TO_PASS: c.gold.FAIL_TO_PASS,
    PASS_TO_PASS: c.gold.PASS_TO_PASS,
    sandbox: { workdir: '/testbed', test_command: command },
  });
  return gradeTask(task, { output: c.log, exitCode: c.exit_code }, 'diff');
}

/** Our answer in the harness's shape; undefined for a parser we do not port (another language's). */
function ours(c: Case): unknown {
  switch (c.kind) {
    case 'parse':
      return parseOurs(c.parser, c.log);
    case 'logs_eval': {
      if (!isHarnessParser(c.parser)) return undefined;
      const result = logsEval(universalNewlines(c.log), c.parser);
      if (result.found) return { status_map: pairsOf(result.tests), found: true };
      return result.crashed === true ? { raised: true } : { status_map: [], found: false };
    }
    case 'predicate': {
      const fn = { test_passed: testPassed, test_failed: testFailed, test_maintained: testMaintained }[c.predicate];
      return fn(statusMap(c.status_map), c.case);
    }
    case 'report': {
      const status = gradeTests(statusMap(c.status_map), c.gold);
      return { tests_status: status, resolution: resolutionStatus(status) };
    }
    case 'exit_code':
      return testExitCode(c.text) ?? null;
    case 'evaluate':
      return gradeOurs(c);
  }
}

/** The harness raising is one answer, whatever it raised. */
function harnessShape(answer: unknown): unknown {
  return typeof answer === 'object' && answer !== null && 'raised' in answer ? { raised: true } : answer;
}

interface HarnessEvaluation {
  found?: boolean;
  raised?: string;
  tests_status?: TestsStatus;
  resolution?: ResolutionStatus;
}

const rank: Record<ResolutionStatus, number> = { RESOLVED_FULL: 2, RESOLVED_PARTIAL: 1, RESOLVED_NO: 0 };

/** Whether our grade is the harness's, or stricter by a rule it names; the reason when neither. */
type Comparison = { verdict: 'agree' } | { verdict: 'stricter' } | { verdict: 'differ'; why: string };

function compareEvaluation(grade: TestGrade, harness: HarnessEvaluation): Comparison {
  const harnessGrades = harness.found === true;
  if (grade.kind === 'invalid') {
    if (grade.rule === undefined)
      return harnessGrades
        ? { verdict: 'differ', why: `we refuse to grade (${grade.reason}) with no rule, the harness grades ${harness.resolution}` }
        : { verdict: 'agree' };
    return harnessGrades ? { verdict: 'stricter' } : { verdict: 'differ', why: `rule ${grade.rule} named where the harness would not grade either` };
  }
  if (grade.kind !== 'swebench') return { verdict: 'differ', why: `graded as ${grade.kind}` };
  if (!harnessGrades || harness.tests_status === undefined || harness.resolution === undefined)
    return { verdict: 'differ', why: `we grade ${grade.resolution}, the harness does not grade the log` };
  const mine = grade.report.tests_status;
  if (grade.strictness === undefined) {
    const same = JSON.stringify(mine) === JSON.stringify(harness.tests_status) && grade.resolution === harness.resolution;
    return same
      ? { verdict: 'agree' }
      : {
          verdict: 'differ',
          why: `ours ${grade.resolution} ${JSON.stringify(mine)}, the harness's ${harness.resolution} ${JSON.stringify(harness.tests_status)}`,
        };
  }
  const subset = (a: string[] | undefined, b: string[]) => (a ?? []).every((id) => b.includes(id));
  const stricter =
    rank[grade.resolution] <= rank[harness.resolution] &&
    subset(mine?.FAIL_TO_PASS.success, harness.tests_status.FAIL_TO_PASS.success) &&
    subset(mine?.PASS_TO_PASS.success, harness.tests_status.PASS_TO_PASS.success);
  return stricter && grade.harness === harness.resolution
    ? { verdict: 'stricter' }
    : { verdict: 'differ', why: `rules ${grade.strictness.join(', ')} named but ours is not stricter: ${grade.resolution} against ${harness.resolution}` };
}

function ruleOf(grade: TestGrade): string[] {
  if (grade.kind === 'invalid') return grade.rule === undefined ? [] : [grade.rule];
  return grade.kind === 'swebench' ? (grade.strictness ?? []) : [];
}

const upstream = upstreamCases();
const crafted = craftedCases();
const kept = keptLogCases();
const generated = generatedCases(600);
const all = [...upstream.cases, ...crafted, ...kept, ...generated];
const request = (c: Named): Record<string, unknown> => {
  if (c.kind !== 'evaluate') return c;
  const parser = repoHarnessParsers[c.repo];
  assert.ok(parser !== undefined, `${c.name}: ${c.repo} is not in the harness's table`);
  // The output of a command of our own is what eval.sh would have printed between the markers.
  const log = c.own_command === true ? `>>>>> Start Test Output\n${c.log}\n>>>>> End Test Output\n` : c.log;
  return { kind: 'evaluate', parser, log, gold: c.gold };
};
const answers = runHarnessScript(
  join(root, 'test', 'integration', 'swebench-harness', 'harness_cases.py'),
  [],
  [...all.map(request), { kind: 'repo_parsers' }].map((r) => JSON.stringify(r)).join('\n'),
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as unknown);
const repoAnswer = answers.pop() as Record<string, string[]>;

test("the harness answers SWE-bench's own cases as its tests expect, so the cases were read right", () => {
  upstream.cases.forEach((c, i) => {
    const expected = upstream.expected[i];
    const answer = answers[i];
    if (c.kind === 'parse') assert.deepEqual(Object.fromEntries(answer as Pairs), expected, c.name);
    else if (c.kind === 'logs_eval') {
      const { status_map, found } = answer as { status_map: Pairs; found: boolean };
      assert.deepEqual({ status_map: Object.fromEntries(status_map), found }, expected, c.name);
    } else if (c.kind === 'report') {
      const { tests_status, resolution } = answer as { tests_status: Record<string, unknown>; resolution: string };
      const want = expected as Record<string, unknown>;
      for (const [key, value] of Object.entries(want)) assert.deepEqual(key === 'resolution' ? resolution : tests_status[key], value, `${c.name}: ${key}`);
    } else assert.deepEqual(answer, expected, c.name);
  });
});

test('each repository is parsed by the parser the harness uses for it', () => {
  assert.deepEqual(Object.keys(repoHarnessParsers).sort(), Object.keys(repoAnswer).sort());
  for (const [repo, parser] of Object.entries(repoHarnessParsers))
    assert.ok(repoAnswer[repo]?.includes(parser), `${repo}: ours ${parser}, the harness's ${repoAnswer[repo]?.join('/')}`);
  // Every Python parser of the registry is ported: the aliases name the same function as in the harness.
  const names = new Set(Object.values(repoAnswer).flat());
  for (const name of names) assert.ok(name in harnessParsers, `${name} is not ported`);
});

test('every case agrees with the harness, or is stricter by a rule our grade names', (t) => {
  const differences: string[] = [];
  const notPorted: string[] = [];
  let agree = 0;
  let stricter = 0;
  const rulesShown = new Set<string>();
  all.forEach((c, i) => {
    const theirs = harnessShape(answers[i]);
    const mine = ours(c);
    if (mine === undefined) {
      notPorted.push(`${c.name} (${'parser' in c ? c.parser : c.kind})`);
      return;
    }
    if (c.kind === 'evaluate') {
      const grade = mine as TestGrade;
      if (c.rule !== undefined) {
        assert.deepEqual(ruleOf(grade), [c.rule], `${c.name}: the grade names the rule that decides it (${JSON.stringify(grade)})`);
        rulesShown.add(c.rule);
      }
      const result = compareEvaluation(grade, theirs as HarnessEvaluation);
      if (result.verdict === 'agree') agree += 1;
      else if (result.verdict === 'stricter') stricter += 1;
      else differences.push(`${c.name}: ${result.why}`);
      return;
    }
    if (JSON.stringify(mine) === JSON.stringify(theirs)) agree += 1;
    else differences.push(`${c.name}: ours ${JSON.stringify(mine)}, the harness's ${JSON.stringify(theirs)}`);
  });
  const upstreamAgree = upstream.cases.filter((c, i) => ours(c) !== undefined && JSON.stringify(ours(c)) === JSON.stringify(harnessShape(answers[i]))).length;
  t.diagnostic(
    `SWE-bench's own cases: ${upstreamAgree} of ${upstream.cases.length} agree (${notPorted.filter((n) => upstream.cases.some((c) => n.startsWith(c.name))).length} use another language's parser)`,
  );
  t.diagnostic(
    `all cases: ${agree} agree, ${stricter} stricter by a named rule, ${differences.length} differ, ${notPorted.length} not ported, of ${all.length}`,
  );
  // The generated logs must exercise the parsers: most of them give the harness some result.
  const productive = generated.filter((_, i) => JSON.stringify(answers[upstream.cases.length + crafted.length + kept.length + i]).includes('",')).length;
  t.diagnostic(`generated logs with a result: ${productive} of ${generated.length}`);
  assert.ok(productive > generated.length / 2, `${productive} of ${generated.length}`);
  assert.deepEqual(differences, []);
  // Only the JavaScript parsers of SWE-bench's marker tests are not ours to port.
  assert.deepEqual(notPorted.map((n) => n.replace(/^.*\((.*)\)$/, '$1')).sort(), [
    'parse_log_chart_js',
    'parse_log_chart_js',
    'parse_log_marked',
    'parse_log_marked',
  ]);
  assert.deepEqual([...rulesShown].sort(), ['pytest-no-outcome', 'run-exit-status', 'task-tests-absent', 'time-limit', 'unknown-status']);
});
