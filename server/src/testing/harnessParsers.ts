/**
 * The harness's registry of Python log parsers and its table of which repository uses which
 * (swebench 5.0.2, `PARSER_REGISTRY` and `MAP_REPO_TO_PARSER_PY` in
 * `swebench/harness/log_parsers/`; docs/upstream-contracts.md#swe-bench-grading). The registry's
 * names for other languages are not ported: every task this project grades by lists is a Python
 * repository's.
 */
import { parseLogDjango } from './harnessDjango.js';
import { parseLogMatplotlib, parseLogPytest, parseLogPytestOptions, parseLogPytestV2, parseLogSeaborn } from './harnessPytest.js';
import { parseLogSympy } from './harnessSympy.js';
import type { HarnessParserName } from '../protocol/testReport.js';
import type { StatusMap } from './logText.js';

export type { HarnessParserName };

/** Every Python name of `PARSER_REGISTRY`, aliases included (`parse_log_flask` is `parse_log_pytest`). */
export const harnessParsers: Readonly<Record<HarnessParserName, (log: string) => StatusMap>> = {
  parse_log_pytest: parseLogPytest,
  parse_log_pytest_options: parseLogPytestOptions,
  parse_log_django: parseLogDjango,
  parse_log_pytest_v2: parseLogPytestV2,
  parse_log_seaborn: parseLogSeaborn,
  parse_log_sympy: parseLogSympy,
  parse_log_matplotlib: parseLogMatplotlib,
  parse_log_astroid: parseLogPytest,
  parse_log_flask: parseLogPytest,
  parse_log_marshmallow: parseLogPytest,
  parse_log_pvlib: parseLogPytest,
  parse_log_pyvista: parseLogPytest,
  parse_log_sqlfluff: parseLogPytest,
  parse_log_xarray: parseLogPytest,
  parse_log_pydicom: parseLogPytestOptions,
  parse_log_requests: parseLogPytestOptions,
  parse_log_pylint: parseLogPytestOptions,
  parse_log_astropy: parseLogPytestV2,
  parse_log_scikit: parseLogPytestV2,
  parse_log_sphinx: parseLogPytestV2,
};

/** `MAP_REPO_TO_PARSER_PY`, each parser under its registry name. */
export const repoHarnessParsers: Readonly<Record<string, HarnessParserName>> = {
  'astropy/astropy': 'parse_log_astropy',
  'django/django': 'parse_log_django',
  'marshmallow-code/marshmallow': 'parse_log_marshmallow',
  'matplotlib/matplotlib': 'parse_log_matplotlib',
  'mwaskom/seaborn': 'parse_log_seaborn',
  'pallets/flask': 'parse_log_flask',
  'psf/requests': 'parse_log_requests',
  'pvlib/pvlib-python': 'parse_log_pvlib',
  'pydata/xarray': 'parse_log_xarray',
  'pydicom/pydicom': 'parse_log_pydicom',
  'pylint-dev/astroid': 'parse_log_astroid',
  'pylint-dev/pylint': 'parse_log_pylint',
  'pytest-dev/pytest': 'parse_log_pytest',
  'pyvista/pyvista': 'parse_log_pyvista',
  'scikit-learn/scikit-learn': 'parse_log_scikit',
  'sqlfluff/sqlfluff': 'parse_log_sqlfluff',
  'sphinx-doc/sphinx': 'parse_log_sphinx',
  'sympy/sympy': 'parse_log_sympy',
};

export function isHarnessParser(name: string): name is HarnessParserName {
  return Object.hasOwn(harnessParsers, name);
}

/** The harness's name for a repository may come with an owner in another case, a `.git` suffix or GitHub's address. */
export function repoKey(repo: string): string {
  return repo
    .toLowerCase()
    .replace(/\.git$/, '')
    .replace(/^https?:\/\/github\.com\//, '');
}

/** The parser the harness uses for a repository, or undefined when its table does not list it. */
export function harnessParserOf(repo: string | undefined): HarnessParserName | undefined {
  return repo === undefined ? undefined : repoHarnessParsers[repoKey(repo)];
}

export function runHarnessParser(name: HarnessParserName, log: string): StatusMap {
  return harnessParsers[name](log);
}
