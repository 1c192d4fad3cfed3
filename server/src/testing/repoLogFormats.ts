/**
 * Which log parser a SWE-bench repository's test output needs, as the harness chooses it
 * (`MAP_REPO_TO_PARSER_PY`, docs/upstream-contracts.md#swebench-grading), and the id clean-ups
 * those parsers make. A task names its repository (`repo`); a task without one, or from a
 * repository the harness does not list, is parsed by what its output looks like.
 */
import type { TestStatus } from '../protocol/testReport.js';
import type { ParsedTestLog } from './logText.js';
import { parsePytestLog } from './parsePytest.js';
import { parseSympyLog } from './parseSympy.js';
import { parseUnittestLog } from './parseUnittest.js';

/**
 * - `pytest`: `-rA` summaries and verbose lines (pytest, pytest_v2, seaborn and most repositories;
 *   our parser drops terminal escapes for every format, as pytest_v2 does);
 * - `pytest-options`: the same, with a parameter that is an absolute path cut to its last part
 *   (`test_x[/tmp/abc/data.dcm]` → `test_x[/data.dcm]`), so ids do not depend on the machine;
 * - `matplotlib`: the same, with `MouseButton.LEFT`/`RIGHT` written as 1 and 3, as the harness does;
 * - `django`: Django's runner (unittest's verbose lines);
 * - `sympy`: sympy's own runner.
 */
export type LogFormat = 'pytest' | 'pytest-options' | 'matplotlib' | 'django' | 'sympy';

export const repoLogFormats: Readonly<Record<string, LogFormat>> = {
  'astropy/astropy': 'pytest',
  'django/django': 'django',
  'marshmallow-code/marshmallow': 'pytest',
  'matplotlib/matplotlib': 'matplotlib',
  'mwaskom/seaborn': 'pytest',
  'pallets/flask': 'pytest',
  'psf/requests': 'pytest-options',
  'pvlib/pvlib-python': 'pytest',
  'pydata/xarray': 'pytest',
  'pydicom/pydicom': 'pytest-options',
  'pylint-dev/astroid': 'pytest',
  'pylint-dev/pylint': 'pytest-options',
  'pytest-dev/pytest': 'pytest',
  'pyvista/pyvista': 'pytest',
  'scikit-learn/scikit-learn': 'pytest',
  'sqlfluff/sqlfluff': 'pytest',
  'sphinx-doc/sphinx': 'pytest',
  'sympy/sympy': 'sympy',
};

/** The harness's name for a repository may come with an owner in another case, or a `.git` suffix. */
export function logFormatOf(repo: string | undefined): LogFormat | undefined {
  if (repo === undefined) return undefined;
  const key = repo.toLowerCase().replace(/\.git$/, '').replace(/^https?:\/\/github\.com\//, '');
  return repoLogFormats[key];
}

/** `test_x[/tmp/abc/data.dcm]` → `test_x[/data.dcm]`: the harness's `_normalize_pytest_option_test_name`. */
export function normaliseOptionId(id: string): string {
  const match = /^(.*?)\[(.*)\]$/.exec(id);
  if (match === null) return id;
  const [, main = '', option = ''] = match;
  if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) return `${main}[/${option.split('/').pop() ?? ''}]`;
  return id;
}

function mapIds(parsed: ParsedTestLog, rename: (id: string) => string): ParsedTestLog {
  const renamed = (tests: ReadonlyMap<string, TestStatus>): Map<string, TestStatus> => new Map([...tests].map(([id, status]) => [rename(id), status]));
  // Both views are renamed: grading reads the harness's view (`graded`), the summary the other.
  return { complete: parsed.complete, tests: renamed(parsed.tests), ...(parsed.graded === undefined ? {} : { graded: renamed(parsed.graded) }) };
}

/** The id clean-up a format's parser makes, for ids read from elsewhere (a JUnit report's names). */
export function idRenamer(format: LogFormat | undefined): (id: string) => string {
  if (format === 'pytest-options') return normaliseOptionId;
  if (format === 'matplotlib') return (id) => id.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
  return (id) => id;
}

export function parseLogAs(format: LogFormat, output: string): ParsedTestLog {
  switch (format) {
    case 'pytest':
      return parsePytestLog(output);
    case 'pytest-options':
      return mapIds(parsePytestLog(output), normaliseOptionId);
    case 'matplotlib':
      return parsePytestLog(output.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'));
    case 'django':
      return parseUnittestLog(output);
    case 'sympy':
      return parseSympyLog(output);
  }
}
