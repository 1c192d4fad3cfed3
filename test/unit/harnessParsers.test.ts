/**
 * The ports of swebench 5.0.2's Python log parsers (server/src/testing/harnessPytest.ts,
 * harnessDjango.ts, harnessSympy.ts), each on the lines that tell it apart. The differential test
 * (test/integration/swebenchHarnessDiff.test.ts) checks the same against the harness itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harnessParserOf, runHarnessParser, type HarnessParserName } from '../../server/src/testing/index.js';
import { HarnessParserCrash } from '../../server/src/testing/logText.js';
import { pyInt, pySplit, pyStrip } from '../../server/src/testing/pyText.js';

const parse = (parser: HarnessParserName, log: string): [string, string][] => [...runHarnessParser(parser, log)];

test('Python string rules: split on U+001C but not U+FEFF, Unicode digits read as numbers', () => {
  assert.deepEqual(pySplit('\u001ca\u0085b \ufeffc '), ['a', 'b', '\ufeffc']);
  assert.equal(pyStrip('\u00a0 x \u3000'), 'x');
  assert.equal(pyInt('-\u0661\u0662'), -12);
  assert.equal(pyInt('137'), 137);
});

test('parse_log_pytest: status first, an id cut at its first space, PASSED [100%] a test, skip summaries none, the later line wins', () => {
  const log = [
    'PASSED tests/a.py::t[a b]',
    'tests/a.py::v PASSED [ 50%]',
    'PASSED [100%]',
    'SKIPPED [2] tests/a.py:12: needs network',
    'PASSED tests/a.py::w',
    'ERROR tests/a.py::w - teardown failed',
    'FAILED tests/a.py::f - AssertionError: x - y',
    'XFAIL tests/a.py::x - reason',
    'PASSED:',
  ].join('\n');
  assert.deepEqual(parse('parse_log_pytest', log), [
    ['tests/a.py::t[a', 'PASSED'],
    ['[100%]', 'PASSED'],
    ['tests/a.py::w', 'ERROR'],
    ['tests/a.py::f', 'FAILED'],
    ['tests/a.py::x', 'XFAIL'],
  ]);
  assert.deepEqual(parse('parse_log_pytest', 'PASSED: tests/a.py::odd'), [['tests/a.py::odd', 'PASSED:']], 'the status is the word as printed');
});

test('parse_log_pytest_options: an absolute-path parameter keeps its last part, and what follows the last ] goes', () => {
  const log = 'PASSED t.py::r[/tmp/p/data.dcm]\nPASSED t.py::g[/data/*.dcm]\nPASSED t.py::n[//net/x]\nPASSED t.py::z[a]b\n';
  assert.deepEqual(parse('parse_log_pytest_options', log), [
    ['t.py::r[/data.dcm]', 'PASSED'],
    ['t.py::g[/data/*.dcm]', 'PASSED'],
    ['t.py::n[//net/x]', 'PASSED'],
    ['t.py::z[a]', 'PASSED'],
  ]);
});

test('parse_log_matplotlib: mouse buttons by their values', () => {
  assert.deepEqual(parse('parse_log_matplotlib', 'PASSED lib/a.py::click[MouseButton.LEFT]\nFAILED lib/a.py::click[MouseButton.RIGHT] - x'), [
    ['lib/a.py::click[1]', 'PASSED'],
    ['lib/a.py::click[3]', 'FAILED'],
  ]);
});

test('parse_log_pytest_v2: ids keep their spaces, status-last lines count without a percentage, XFAIL reasons stay in the id', () => {
  const log = [
    'tests/a.py::t[a b] PASSED',
    'tests/a.py::p PASSED [ 50%]',
    '\u001b[32mPASSED\u001b[0m tests/a.py::\tc',
    '\u001b[1;31mFAILED\u001b[0m tests/a.py::k - boom',
    'FAILED tests/a.py::u[x y] - AssertionError: a - b',
    'XFAIL tests/a.py::x - not yet',
    'SKIPPED [1] tests/a.py:3: why',
  ].join('\n');
  assert.deepEqual(parse('parse_log_pytest_v2', log), [
    ['tests/a.py::t[a b]', 'PASSED'],
    ['tests/a.py::c', 'PASSED'],
    ['tests/a.py::u[x y]', 'FAILED'],
    ['tests/a.py::x - not yet', 'XFAIL'],
  ]);
  assert.deepEqual(
    parse('parse_log_pytest_v2', '[1;31mFAILED tests/a.py::k'),
    [],
    'a colour code with a semicolon is not removed, so the line does not start with a status',
  );
});

test('parse_log_seaborn: summary failures and passes, verbose passes, nothing else', () => {
  const log =
    'tests/a.py::one PASSED [ 50%]\ntests/a.py::two SKIPPED [ 75%]\nPASSED tests/a.py::three\nFAILED tests/a.py::four - x\nERROR tests/a.py::five\nPASSED\n';
  assert.deepEqual(parse('parse_log_seaborn', log), [
    ['tests/a.py::one', 'PASSED'],
    ['tests/a.py::three', 'PASSED'],
    ['tests/a.py::four', 'FAILED'],
  ]);
});

test('parse_log_django: expected failures unread, headers by their first word, a later ok line, an interrupted result', () => {
  const log = [
    'test_a (app.T) ... ok',
    'test_b (app.T) ... expected failure',
    'test_c (app.T) ... unexpected success',
    "test_d (app.T) ... skipped 'no db'",
    'test_e (app.T) ... System check identified no issues (0 silenced).',
    'ok',
    'test_f (app.T) ... FAIL',
    'FAIL: test_f (app.T)',
    'test_g (app.T) ... ERROR',
  ].join('\n');
  assert.deepEqual(Object.fromEntries(runHarnessParser('parse_log_django', log)), {
    'test_a (app.T)': 'PASSED',
    'test_d (app.T)': 'SKIPPED',
    'test_e (app.T)': 'PASSED',
    'test_f (app.T)': 'FAILED',
    test_f: 'FAILED',
    'test_g (app.T)': 'ERROR',
  });
  assert.throws(() => runHarnessParser('parse_log_django', 'test_a (app.T) ... ok\nFAIL:\n'), HarnessParserCrash);
});

test('parse_log_sympy: ok, F and E read, the f, s and X marks not, failure rules anywhere', () => {
  const log = 'test_a ok\ntest_b F\ntest_c E\ntest_d f\ntest_e s\n___ sympy/core/tests/test_basic.py:test_b ___\n';
  assert.deepEqual(Object.fromEntries(runHarnessParser('parse_log_sympy', log)), {
    'sympy/core/tests/test_basic.py:test_b': 'FAILED',
    test_a: 'PASSED',
    test_b: 'FAILED',
    test_c: 'ERROR',
  });
});

test("each repository gets the harness's parser, whatever the case of its name", () => {
  assert.equal(harnessParserOf('astropy/astropy'), 'parse_log_astropy');
  assert.equal(harnessParserOf('Scikit-Learn/scikit-learn.git'), 'parse_log_scikit');
  assert.equal(harnessParserOf('https://github.com/mwaskom/seaborn'), 'parse_log_seaborn');
  assert.equal(harnessParserOf('someone/else'), undefined);
});

test('parse_log_sympy: a long line of spaces and .py: pieces is read in linear time', () => {
  const line = `${' a.py:'.repeat(100_000)} x`;
  const started = performance.now();
  const result = runHarnessParser('parse_log_sympy', `${line}\ntest_a ok\n`);
  assert.ok(performance.now() - started < 2000, 'the backtracking regular expression would take minutes here');
  assert.equal(result.get('test_a'), 'PASSED');
  assert.equal(result.size, 2);
});
