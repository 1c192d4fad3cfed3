/**
 * What SWE-bench's harness knows about an instance that its dataset rows do not say: the image
 * name, the test files a test patch touches, the test command per repository, and the evaluation
 * script. Kept to what SWE-bench v4 does (docs/upstream-contracts.md#swe-bench-harness), because the harness's images
 * and logs are what these tasks are graded against.
 */
import { parseUnifiedDiff } from '../protocol/unifiedDiff.js';
import { isBuildOnlyImageName } from '../tasks/index.js';

/**
 * `sweb.eval.<arch>.<id>:<tag>` as the harness builds it locally (build-only), or, with a registry
 * namespace, the published copy `<ns>/sweb.eval.<arch>.<id with __ → _1776_>:<tag>` that can be pulled.
 */
export function swebenchImageName(instanceId: string, options: { namespace?: string; arch?: string; tag?: string } = {}): string {
  const arch = options.arch ?? 'x86_64';
  const tag = options.tag ?? 'latest';
  const id = instanceId.toLowerCase();
  if (options.namespace === undefined || options.namespace === '') return `sweb.eval.${arch}.${id}:${tag}`;
  return `${options.namespace}/sweb.eval.${arch}.${id.replace(/__/g, '_1776_')}:${tag}`;
}

export { isBuildOnlyImageName };

/** Files a diff changes (the new path; the old one of a deleted file), in order, each once. */
export function diffPaths(patch: string): string[] {
  return [...new Set(parseUnifiedDiff(patch).flatMap((f) => f.newPath ?? f.oldPath ?? []))];
}

/** Files that exist before the diff; new files (`--- /dev/null`) cannot be checked out at the base. */
export function diffModifiedPaths(patch: string): string[] {
  return [...new Set(parseUnifiedDiff(patch).flatMap((f) => f.oldPath ?? []))];
}

/** Files a diff creates (`--- /dev/null` or `new file mode`). */
export function diffAddedPaths(patch: string): string[] {
  return [...new Set(parseUnifiedDiff(patch).flatMap((f) => (f.oldPath === null ? (f.newPath ?? []) : [])))];
}

/** Extensions SWE-bench drops from test directives: data files a test patch adds beside its tests. */
const nonTestExtensions = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

/**
 * The arguments SWE-bench passes to the test command (`get_test_directives`): the test patch's
 * files, minus data files; for Django, dotted module names relative to `tests/`.
 */
export function testDirectives(repo: string, testPatch: string): string[] {
  const files = diffPaths(testPatch).filter((f) => !nonTestExtensions.some((ext) => f.endsWith(ext)));
  if (repo !== 'django/django') return files;
  return files.map((f) => {
    const noExt = f.endsWith('.py') ? f.slice(0, -3) : f;
    return (noExt.startsWith('tests/') ? noExt.slice('tests/'.length) : noExt).replace(/\//g, '.');
  });
}

/** The test command per repository in SWE-bench v4's constants (the Python repositories of Lite and Verified). */
const testCommands: Readonly<Record<string, string>> = {
  'astropy/astropy': 'pytest -rA -vv -o console_output_style=classic --tb=no',
  'django/django': './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1',
  'matplotlib/matplotlib': 'pytest -rA',
  'mwaskom/seaborn': 'pytest --no-header -rA',
  'pallets/flask': 'pytest -rA',
  'psf/requests': 'pytest -rA',
  'pydata/xarray': 'pytest -rA',
  'pylint-dev/pylint': 'pytest -rA',
  'pytest-dev/pytest': 'pytest -rA',
  'scikit-learn/scikit-learn': 'pytest -rA',
  'sphinx-doc/sphinx': 'tox --current-env -epy39 -v --',
  'sympy/sympy': "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
};

/** The repository's test command, and whether it is the generic pytest fallback for an unknown repository. */
export function repoTestCommand(repo: string | undefined): { command: string; known: boolean } {
  const known = repo === undefined ? undefined : testCommands[repo];
  return known === undefined ? { command: 'pytest -rA', known: false } : { command: known, known: true };
}

const startMarker = '>>>>> Start Test Output';
const endMarker = '>>>>> End Test Output';

/** The parts of a harness `eval_script_list` (the original's `swebench_spec`, docs/original-system.md#g3-swe-bench-conversion) that grading needs. */
export interface EvalScriptParts {
  readonly testCommand?: string;
  readonly testPatch?: string;
  readonly baseCommit?: string;
}

/**
 * Recovers the test command (between the output markers), the test patch (the `git apply`
 * heredoc) and the base commit (`git checkout <sha> <files>`) from a harness evaluation script.
 */
export function parseEvalScript(lines: readonly unknown[]): EvalScriptParts {
  const text = lines.filter((l): l is string => typeof l === 'string');
  const start = text.findIndex((l) => l.includes(startMarker));
  const end = text.findIndex((l, i) => i > start && l.includes(endMarker));
  const between =
    start >= 0 && end > start
      ? text
          .slice(start + 1, end)
          .join('\n')
          .trim()
      : '';
  let testPatch: string | undefined;
  for (const line of text) {
    const m = /^git apply [^\n]*<<'?(\w+)'?\n([\s\S]*)\n\1\s*$/.exec(line);
    if (m?.[2] !== undefined) {
      testPatch = `${m[2]}\n`;
      break;
    }
  }
  const checkout = text.map((l) => /^git checkout ([0-9a-f]{7,40}) /.exec(l)?.[1]).find((sha) => sha !== undefined);
  return {
    ...(between !== '' ? { testCommand: between } : {}),
    ...(testPatch !== undefined ? { testPatch } : {}),
    ...(checkout !== undefined ? { baseCommit: checkout } : {}),
  };
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A heredoc delimiter that does not occur in the text, so the patch cannot end the heredoc early. */
function heredocDelimiter(text: string): string {
  let delimiter = 'EOF_GRAPH_PLANNER_TEST_PATCH';
  for (let i = 2; text.split('\n').includes(delimiter); i++) delimiter = `EOF_GRAPH_PLANNER_TEST_PATCH_${i}`;
  return delimiter;
}

export interface EvalScriptInput {
  readonly baseCommit?: string;
  readonly testPatch?: string;
  /** The test command with its directives. */
  readonly testCommand: string;
  /** Activate the harness's conda environment first (SWE-bench images have it at /opt/miniconda3). */
  readonly conda: boolean;
}

/**
 * The task's `sandbox.test_command`: SWE-bench's `eval.sh` without the reinstall. It resets the
 * test files to the base commit, applies the test patch, runs the tests between the markers the
 * grader looks for, and restores the test files, so it can run again after every repair (the
 * environment runs it for trial repairs and for the submit) and the patch under evaluation never
 * contains the test patch. A test patch that does not apply prints SWE-bench's failure marker, and
 * the grader then refuses to grade the log.
 */
export function evalScript(input: EvalScriptInput): string {
  const lines: string[] = [];
  if (input.conda) lines.push('. /opt/miniconda3/bin/activate && conda activate testbed');
  const patch = input.testPatch;
  const reset: string[] = [];
  if (patch !== undefined && input.baseCommit !== undefined) {
    const modified = diffModifiedPaths(patch).map(shellQuote);
    const added = diffAddedPaths(patch).map(shellQuote);
    if (modified.length > 0) reset.push(`git checkout ${shellQuote(input.baseCommit)} -- ${modified.join(' ')}`);
    if (added.length > 0) reset.push(`rm -f -- ${added.join(' ')}`);
  }
  lines.push(...reset);
  if (patch !== undefined) {
    const delimiter = heredocDelimiter(patch);
    const body = patch.endsWith('\n') ? patch.slice(0, -1) : patch;
    lines.push(`git apply -v - <<'${delimiter}' || echo '>>>>> Patch Apply Failed'`, body, delimiter);
  }
  lines.push(`echo '${startMarker}'`, input.testCommand, 'gp_test_status=$?', `echo '${endMarker}'`, `echo ">>>>> Test Exit Code: $gp_test_status"`);
  lines.push(...reset);
  lines.push('exit $gp_test_status');
  return lines.join('\n');
}
