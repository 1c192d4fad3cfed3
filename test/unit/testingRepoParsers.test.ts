/**
 * The parser SWE-bench's harness uses for each repository, on log excerpts in each runner's own
 * format (shaped after the harness's tests in `tests/test_log_parsers_python.py` and the runners'
 * output), each row checked against the statuses the harness would read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTestOutput } from '../../server/src/testing/index.js';
import { logFormatOf, normaliseOptionId, repoLogFormats } from '../../server/src/testing/repoLogFormats.js';

const sympyLog = `============================= test process starts ==============================
executable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.19-final-0) [CPython]
architecture:       64-bit
cache:              no
ground types:       python
numpy:              None
random seed:        29845781
hash randomization: on (PYTHONHASHSEED=2810924163)

sympy/core/tests/test_basic.py[3]
test__aresame ok
test_structure ok
test_subs F
sympy/core/tests/test_sympify.py[2]
test_issue_3538 E
test_sympify_keywords f                                                   [FAIL]

________________________________________________________________________________
____________________ sympy/core/tests/test_basic.py:test_subs ___________________
Traceback (most recent call last):
  File "/testbed/sympy/core/tests/test_basic.py", line 98, in test_subs
    assert b21.subs([(b2, b1), (b1, b2)]) == Basic(b2, b2)
AssertionError

======= tests finished: 2 passed, 1 failed, 1 expected to fail, 1 exceptions, in 0.31 seconds ========
DO *NOT* COMMIT!
`;

test('sympy’s runner: one line per test, failures also named by file:test, as the harness reads them', () => {
  const { parser, parsed } = parseTestOutput(sympyLog, 'sympy/sympy');
  assert.equal(parser, 'sympy');
  assert.deepEqual(Object.fromEntries(parsed.tests), {
    test__aresame: 'PASSED',
    test_structure: 'PASSED',
    test_subs: 'FAILED',
    'sympy/core/tests/test_basic.py:test_subs': 'FAILED',
    test_issue_3538: 'ERROR',
  });
  assert.equal(parsed.complete, true);
  // Without the repository named, the runner's header is recognised.
  assert.equal(parseTestOutput(sympyLog).parser, 'sympy');
});

test('pydicom, requests and pylint: a parameter that is an absolute path keeps only its last part', () => {
  const log = `============================= test session starts ==============================
tests/lint/unittest_lint.py::LintRunTC::test_jobs_option SKIPPED [1] Need 2 or more cores
=========================== short test summary info ============================
PASSED tests/test_filereader.py::test_read[/tmp/pytest-of-root/pytest-0/data/CT_small.dcm]
FAILED tests/test_filereader.py::test_read[/tmp/pytest-of-root/pytest-0/data/MR_small.dcm] - AssertionError
PASSED tests/test_filereader.py::test_glob[/data/*.dcm]
SKIPPED [1] tests/lint/unittest_lint.py:774: Need 2 or more cores
============== 1 failed, 2 passed, 1 skipped in 0.52s ==============`;
  for (const repo of ['pydicom/pydicom', 'psf/requests', 'pylint-dev/pylint']) {
    const { parser, parsed } = parseTestOutput(log, repo);
    assert.equal(parser, 'pytest-options', repo);
    assert.deepEqual(Object.fromEntries(parsed.tests), {
      'tests/test_filereader.py::test_read[/CT_small.dcm]': 'PASSED',
      'tests/test_filereader.py::test_read[/MR_small.dcm]': 'FAILED',
      // A glob is not a path of this machine: the harness keeps it whole.
      'tests/test_filereader.py::test_glob[/data/*.dcm]': 'PASSED',
      'tests/lint/unittest_lint.py::LintRunTC::test_jobs_option': 'SKIPPED',
    });
  }
  // The plain pytest parser keeps the whole id.
  assert.ok(parseTestOutput(log, 'pallets/flask').parsed.tests.has('tests/test_filereader.py::test_read[/tmp/pytest-of-root/pytest-0/data/CT_small.dcm]'));
});

test('matplotlib: mouse buttons in ids are written as numbers, as the harness writes them', () => {
  const log =
    '=========================== short test summary info ============================\nPASSED lib/matplotlib/tests/test_widgets.py::test_span_selector_press[MouseButton.LEFT]\nFAILED lib/matplotlib/tests/test_widgets.py::test_span_selector_press[MouseButton.RIGHT] - assert 0\n==================== 1 failed, 1 passed in 1.02s ====================';
  const { parser, parsed } = parseTestOutput(log, 'matplotlib/matplotlib');
  assert.equal(parser, 'matplotlib');
  assert.deepEqual(Object.fromEntries(parsed.tests), {
    'lib/matplotlib/tests/test_widgets.py::test_span_selector_press[1]': 'PASSED',
    'lib/matplotlib/tests/test_widgets.py::test_span_selector_press[3]': 'FAILED',
  });
});

test('astropy, scikit-learn and sphinx (pytest_v2): colour codes are dropped from ids and statuses', () => {
  const log =
    '\u001b[1m=========================== short test summary info ============================\u001b[0m\n\u001b[32mPASSED\u001b[0m astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_card_constructor_default_args\n\u001b[31mFAILED\u001b[0m sklearn/tests/test_base.py::test_clone - ValueError\n\u001b[31m==================== 1 failed, 1 passed in 0.20s ====================\u001b[0m';
  for (const repo of ['astropy/astropy', 'scikit-learn/scikit-learn', 'sphinx-doc/sphinx']) {
    const { parsed } = parseTestOutput(log, repo);
    assert.deepEqual(Object.fromEntries(parsed.tests), {
      'astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_card_constructor_default_args': 'PASSED',
      'sklearn/tests/test_base.py::test_clone': 'FAILED',
    });
  }
});

test('django: the runner’s verbose lines, by the unittest parser', () => {
  const log =
    'test_attribute_name_not_python_keyword (inspectdb.tests.InspectDBTestCase) ... ok\ntest_foreign_key_to_field (inspectdb.tests.InspectDBTestCase) ... FAIL\n\n----------------------------------------------------------------------\nRan 2 tests in 0.101s\n\nFAILED (failures=1)';
  const { parser, parsed } = parseTestOutput(log, 'django/django');
  assert.equal(parser, 'unittest');
  assert.equal(parsed.tests.get('test_attribute_name_not_python_keyword (inspectdb.tests.InspectDBTestCase)'), 'PASSED');
  assert.equal(parsed.tests.get('test_foreign_key_to_field (inspectdb.tests.InspectDBTestCase)'), 'FAILED');
});

test('every repository the harness lists has a format, and names are matched as the harness writes them or as a URL', () => {
  assert.equal(Object.keys(repoLogFormats).length, 18);
  assert.equal(logFormatOf('https://github.com/SymPy/SymPy.git'), 'sympy');
  assert.equal(logFormatOf('example/unknown'), undefined);
  assert.equal(normaliseOptionId('test_x'), 'test_x');
  assert.equal(normaliseOptionId('test_x[//net/share/file]'), 'test_x[//net/share/file]');
});

test('pylint-6528: tests a single core skips are neither passed nor failed, so they cause no false regression', async () => {
  const { gradeTests, resolutionStatus } = await import('../../server/src/testing/grade.js');
  const skipped = [
    'tests/lint/unittest_lint.py::test_custom_should_analyze_file',
    'tests/lint/unittest_lint.py::test_multiprocessing[1]',
    'tests/lint/unittest_lint.py::test_multiprocessing[2]',
    'tests/test_self.py::TestRunTC::test_jobs_score',
  ];
  const f2p = ['tests/lint/unittest_lint.py::test_recursive_ignore[--ignore-ignored_subdirectory]', 'tests/test_self.py::TestRunTC::test_ignore_recursive'];
  const log = [
    ...f2p.map((t) => `${t} PASSED`),
    ...skipped.map((t) => `${t} SKIPPED [1] Need 2 or more cores`),
    'SKIPPED [1] tests/lint/unittest_lint.py:774: Need 2 or more cores',
    '2 failed, 171 passed, 4 skipped, 1 xfailed',
  ].join('\n');
  const { parsed } = parseTestOutput(log, 'pylint-dev/pylint');
  for (const t of skipped) assert.equal(parsed.tests.get(t), 'SKIPPED', t);
  assert.equal(parsed.tests.has('[1]'), false);
  assert.equal(resolutionStatus(gradeTests(parsed.tests, { FAIL_TO_PASS: f2p, PASS_TO_PASS: skipped })), 'RESOLVED_FULL');
});
