/**
 * The grader-facing surface, by rule rather than by name: which changes of a patch could change a
 * task's grade without changing the code under test, each with its reason. One module decides it
 * for every caller: the episode's guard (env/guard.ts) and submit, `gp task test --patch`,
 * `gp dataset verify` and, through the episodes it runs, the environment service.
 *
 * The rules, in the order a path is checked:
 * 1. `task-tests`: the task's own test files (taskTestFiles.ts: ids of every style, its test patch,
 *    its test command's files) and the `__init__.py` of their test folder (every runner imports it
 *    before the test module, and unittest's discovery calls a `load_tests` it defines), changed in
 *    any way: edit, delete, rename from or to, mode change, replacement by a link;
 * 2. `runner-config`: `conftest.py` anywhere, and every file name the installed pytest's
 *    `findpaths.py` reads its configuration from (pytest.ini, .pytest.ini, pyproject.toml, tox.ini,
 *    setup.cfg in pytest 8), anywhere, since pytest looks in every ancestor of its arguments.
 *    unittest reads no configuration file; its discovery hook is covered by rule 1;
 * 3. `startup-hook`: `sitecustomize.py` and `usercustomize.py`, which `site` imports at start-up;
 * 4. `package-metadata`: `*.dist-info/`, `*.egg-info/`, `*.egg-link`, `entry_points.txt`,
 *    `__editable__*` and `.pth` files: pytest loads the plugins that metadata on the path registers
 *    (group `pytest11`), and `site` runs a `.pth` file's import lines;
 * 5. `shadow`: a new top-level module or package (`X.py`, `X/__init__.py`, `X/…py`, an extension
 *    module) at a folder on the test run's path (the repository root, the task's pythonpath or `src`
 *    for a src layout, and the folders pytest's rootdir insertion puts first: the first folder above
 *    each test file with no `__init__.py`) named like a standard-library module or a top-level name
 *    installed in the task's environment, unless the repository had that name there at its base.
 */
import type { EnvironmentFacts, GraderFinding } from '../protocol/graderSurface.js';
import { patchChanges, type PatchChange } from '../sandbox/index.js';
import { shippedStdlibNames } from './stdlibNames.js';
import type { GraderTaskSurface } from './taskTestFiles.js';

/** The configuration file names pytest 8 reads, for an environment with no pytest to ask (a unittest or Django run). */
const pytestEightConfigNames = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];

/** What the rule knows about the task's environment and repository. */
export interface GraderFacts {
  /** The environment's answers; undefined when it could not be asked, with `why`. */
  environment: EnvironmentFacts | undefined;
  /** Why the environment could not be asked (no Python in the sandbox…); the shipped standard-library list stands in. */
  why?: string;
  /** The repository's files at its base commit; undefined when unknown (then a name is new only when the patch adds it). */
  baseFiles?: ReadonlySet<string>;
}

/** Facts for a caller that has no sandbox to ask: the shipped standard-library list, no installed names. */
export function shippedFacts(why: string, baseFiles?: ReadonlySet<string>): GraderFacts {
  return { environment: undefined, why, ...(baseFiles === undefined ? {} : { baseFiles }) };
}

function dirname(path: string): string {
  const at = path.lastIndexOf('/');
  return at === -1 ? '.' : path.slice(0, at);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The importable name of a top-level file (`json.py`, `_speedups.cpython-311-x86_64-linux-gnu.so` → `_speedups`). */
function moduleName(file: string): string | undefined {
  return /^([A-Za-z_]\w*)(?:\.[\w-]+)*\.(?:py|pyc|so|pyd)$/.exec(file)?.[1];
}

function isPythonFile(path: string): boolean {
  return /\.(py|pyc|so|pyd)$/.test(path);
}

/** The part of `path` below `root`, or undefined when it is not below it. */
function below(root: string, path: string): string | undefined {
  if (root === '.') return path;
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
}

/** Top-level names the repository had in `root` at its base, as modules or packages. */
function baseNames(root: string, baseFiles: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const file of baseFiles) {
    const rel = below(root, file);
    if (rel === undefined) continue;
    const first = rel.split('/')[0] ?? '';
    out.add(rel.includes('/') ? first : (moduleName(first) ?? first));
  }
  return out;
}

/** The folders on the test run's path that a patch could add a module to (see rule 5). */
export function pathRoots(task: GraderTaskSurface, baseFiles: ReadonlySet<string> | undefined): string[] {
  const roots = new Set<string>(['.']);
  const srcLayout = baseFiles === undefined || [...baseFiles].some((f) => /^src\/[^/]+\/__init__\.py$/.test(f));
  for (const folder of task.pythonPath ?? (srcLayout ? ['src'] : [])) roots.add(folder.replace(/^\.\/|\/$/g, '') || '.');
  const testFiles = [...task.testFiles, ...task.testPatchFiles, ...task.commandFiles].filter((f) => f.endsWith('.py'));
  for (const file of testFiles) {
    if (baseFiles !== undefined && !baseFiles.has(file)) continue;
    let folder = dirname(file);
    while (folder !== '.' && baseFiles?.has(`${folder}/__init__.py`) === true) folder = dirname(folder);
    roots.add(folder);
  }
  return [...roots];
}

/** The `__init__.py` of each test file's own folder, where that folder is a test folder. */
function testPackageInits(task: GraderTaskSurface): string[] {
  return task.testFiles
    .filter((f) => f.endsWith('.py') && !f.endsWith('__init__.py'))
    .map(dirname)
    .filter((d) => d !== '.' && (/^tests?(_|$)|_tests?$/.test(basename(d)) || d.startsWith('tests/') || d === 'tests'))
    .map((d) => `${d}/__init__.py`);
}

interface SurfaceFacts {
  task: GraderTaskSurface;
  facts: GraderFacts;
  tests: Map<string, string>;
  configNames: ReadonlySet<string>;
  configSource: string;
  names: { stdlib: ReadonlySet<string>; installed: ReadonlySet<string>; note: string };
  roots: Array<{ root: string; had: Set<string> | undefined }>;
}

function surfaceFacts(task: GraderTaskSurface, facts: GraderFacts): SurfaceFacts {
  const tests = new Map<string, string>();
  for (const f of testPackageInits(task))
    tests.set(
      f,
      "it is the package of the task's tests: every runner imports it before the test module, and unittest's discovery calls a load_tests it defines",
    );
  for (const f of task.commandFiles) tests.set(f, "the task's test command names it");
  for (const f of task.testPatchFiles) tests.set(f, "the task's test patch writes it");
  for (const f of task.testFiles) tests.set(f, "it holds the task's own tests");
  const env = facts.environment;
  const pytest = env?.pytest ?? null;
  const configNames = new Set(['conftest.py', ...(pytest === null || pytest.config_names.length === 0 ? pytestEightConfigNames : pytest.config_names)]);
  const configSource =
    pytest === null
      ? 'pytest reads it as configuration (the names pytest 8 reads: the environment has no pytest to ask)'
      : `pytest ${pytest.version}, installed in the task's environment, reads its configuration from it`;
  const names =
    env === undefined
      ? {
          stdlib: shippedStdlibNames,
          installed: new Set<string>(),
          note: ` (the shipped standard-library list: ${facts.why ?? 'the environment could not be asked'})`,
        }
      : { stdlib: new Set(env.stdlib), installed: new Set(env.installed), note: '' };
  const baseFiles = facts.baseFiles;
  const roots = pathRoots(task, baseFiles).map((root) => ({ root, had: baseFiles === undefined ? undefined : baseNames(root, baseFiles) }));
  return { task, facts, tests, configNames, configSource, names, roots };
}

function metadataReason(path: string): string | undefined {
  const name = basename(path);
  const segments = path.split('/');
  if (name.endsWith('.pth')) return "Python's site module runs the import lines of a .pth file at start-up, before any test";
  if (segments.some((s) => s.endsWith('.dist-info') || s.endsWith('.egg-info')) || name.endsWith('.egg-link') || name === 'entry_points.txt') {
    return 'it is package metadata: pytest loads the plugins that metadata on the path registers (entry-point group pytest11) before any test, and the repository is on the path';
  }
  if (name.startsWith('__editable__')) return "it is an editable install's hook, which Python runs at start-up to map imports";
  return undefined;
}

/** Why `path`, added or renamed in by `change`, shadows a module the test run imports; undefined when it does not. */
function shadowReason(path: string, adds: boolean, surface: SurfaceFacts): string | undefined {
  for (const { root, had } of surface.roots) {
    const rel = below(root, path);
    if (rel === undefined) continue;
    const parts = rel.split('/');
    const first = parts[0] ?? '';
    const name = parts.length === 1 ? moduleName(first) : isPythonFile(rel) && /^[A-Za-z_]\w*$/.test(first) ? first : undefined;
    if (name === undefined) continue;
    const isNew = had === undefined ? adds : !had.has(name);
    if (!isNew) continue;
    const where = root === '.' ? 'the repository root' : `${root}/`;
    if (surface.names.stdlib.has(name))
      return `it adds a module ${name} at ${where}, which is on the test run's path before the standard library, so it would be imported instead of the standard library's ${name}${surface.names.note}`;
    if (surface.names.installed.has(name))
      return `it adds a module ${name} at ${where}, which is on the test run's path before site-packages, so it would be imported instead of ${name} installed in the task's environment`;
  }
  return undefined;
}

/** The first rule `path` breaks, or undefined. `adds` says the change brings the path into being (add, rename to, copy to). */
function findingFor(path: string, adds: boolean, surface: SurfaceFacts): GraderFinding | undefined {
  const clean = path.replace(/^\.\//, '');
  const name = basename(clean);
  const test = surface.tests.get(clean);
  if (test !== undefined)
    return { path: clean, rule: 'task-tests', reason: `${test}, so changing, renaming, deleting or linking it changes what is graded rather than the code` };
  if (name === 'conftest.py')
    return { path: clean, rule: 'runner-config', reason: 'pytest loads every conftest.py beside or above the tests it collects, before any test runs' };
  if (surface.configNames.has(name)) return { path: clean, rule: 'runner-config', reason: surface.configSource };
  if (name === 'sitecustomize.py' || name === 'usercustomize.py')
    return { path: clean, rule: 'startup-hook', reason: "Python's site module imports it at start-up, before any test" };
  const metadata = metadataReason(clean);
  if (metadata !== undefined) return { path: clean, rule: 'package-metadata', reason: metadata };
  const shadow = shadowReason(clean, adds, surface);
  if (shadow !== undefined) return { path: clean, rule: 'shadow', reason: shadow };
  return undefined;
}

/** Every grader-facing change of `changes`, one finding per path, in the patch's order. */
export function graderFindings(changes: readonly PatchChange[], task: GraderTaskSurface, facts: GraderFacts): GraderFinding[] {
  const surface = surfaceFacts(task, facts);
  const out: GraderFinding[] = [];
  const seen = new Set<string>();
  const check = (path: string, adds: boolean) => {
    if (seen.has(path)) return;
    seen.add(path);
    const finding = findingFor(path, adds, surface);
    if (finding !== undefined) out.push(finding);
  };
  for (const change of changes) {
    if (change.from !== undefined) check(change.from, false);
    // A deleted file cannot shadow anything, but deleting a test or a conftest.py changes the grade.
    check(change.path, change.kind === 'add' || change.kind === 'rename' || change.kind === 'copy');
  }
  return out;
}

/** The grader-facing changes of a unified diff. */
export function graderFindingsOfPatch(diff: string, task: GraderTaskSurface, facts: GraderFacts): GraderFinding[] {
  return graderFindings(patchChanges(diff), task, facts);
}

/** One line per finding, for a person: `path (rule): reason`. */
export function describeFindings(findings: readonly GraderFinding[]): string[] {
  return findings.map((f) => `${f.path} (${f.rule}): ${f.reason}`);
}
