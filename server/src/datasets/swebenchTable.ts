/**
 * A task's `python_env` from SWE-bench's own specification tables
 * (`resources/swebench/specs.json`, generated from the `swebench` package by
 * scripts/generate-swebench-specs.py; docs/upstream-contracts.md#swe-bench-specification-tables),
 * by repository and version, for rows that carry no harness spec (SWE-bench Lite, the full test
 * set). What the harness's conda environment and instance image hold becomes:
 *
 * - `python`: the spec's Python version;
 * - `packages`: the spec's conda `packages` (conda's `x=1.2`, any 1.2 release, is pip's `x==1.2.*`),
 *   or the repository's requirements file at the instance's `environment_setup_commit`, which the
 *   harness downloads from GitHub and we read from a local clone; then `pip_packages`, pins as the
 *   spec gives them (`pytest<8` stays `pytest<8`); then `setuptools` and `wheel`, which conda's
 *   Python brings and a venv lacks;
 * - `setup`: the spec's `pre_install` steps and its `install` command (the repository's own
 *   install, `python -m pip install -e .`), which the local backend runs in each working copy;
 * - `skipped`: the steps that cannot run there, each with the reason (they need root).
 *
 * An `environment.yml` (matplotlib, xarray) is conda's own format with conda-only packages; those
 * environments are not guessed, and the result says so.
 */
import { z } from 'zod';
import tableJson from '../../../resources/swebench/specs.json';
import { requirementLines } from './swebenchEnv.js';

const specSchema = z.object({
  python: z.string().optional(),
  packages: z.string().optional(),
  pip_packages: z.array(z.string()).optional(),
  pre_install: z.array(z.string()).optional(),
  install: z.string().optional(),
  no_use_env: z.boolean().optional(),
});

const tableSchema = z.object({
  schema: z.literal('graph-planner/swebench-specs@1'),
  swebench: z.object({ version: z.string(), sha256: z.string(), license: z.string() }),
  repos: z.record(z.string(), z.record(z.string(), specSchema)),
  install: z.record(z.string(), z.string()),
  requirements_paths: z.record(z.string(), z.array(z.string())),
  environment_yml_paths: z.record(z.string(), z.array(z.string())),
  replace_packages: z.array(z.tuple([z.string(), z.string().nullable()])),
});
export type SwebenchSpecTable = z.infer<typeof tableSchema>;
export type SwebenchSpec = z.infer<typeof specSchema>;

let parsed: SwebenchSpecTable | undefined;

/** The committed table, checked once against the shape this module reads. */
export function swebenchSpecTable(): SwebenchSpecTable {
  parsed ??= tableSchema.parse(tableJson);
  return parsed;
}

/** `swebench==4.1.0`: which table a task's environment came from. */
export function tableVersion(table: SwebenchSpecTable = swebenchSpecTable()): string {
  return `swebench==${table.swebench.version}`;
}

/** Reads a file of the repository at a commit (`git show <commit>:<path>` of a local clone); undefined when it is not there. */
export type RepoFileReader = (commit: string, path: string) => string | undefined;

export interface TableEnv {
  python: string;
  packages: string[];
  setup: string[];
  skipped: string[];
  /** `swebench==4.1.0 sqlfluff/sqlfluff 0.6`. */
  source: string;
  /** The requirements file read from the clone, when the spec names one. */
  requirementsFile?: string;
}

export type TableLookup =
  { ok: true; env: TableEnv } | { ok: false; code: 'unknown-repo' | 'unknown-version' | 'conda-environment-file' | 'requirements-unreadable'; message: string };

/** Conda's `x=1.2` (any 1.2.x) as pip's `x==1.2.*`; `x==1.2`, ranges and bare names stay. */
export function condaToPip(word: string): string {
  const m = /^([A-Za-z0-9_.-]+)=([^=<>!~]+)$/.exec(word);
  return m === null ? word : `${m[1]}==${m[2]}.*`;
}

/** Splits a conda package list on blanks, keeping quoted words whole (`'numpy==1.19.2' pytest`). */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '').filter((w) => w !== '');
}

function requirementName(requirement: string): string {
  return (requirement.split(/[<>=!~;[ @]/)[0] ?? requirement).toLowerCase().replace(/[_.]/g, '-');
}

/** Whether a requirement says more than its name (a version, extras, a marker or a URL). */
function constrained(requirement: string): boolean {
  return requirement.trim() !== requirement.split(/[<>=!~;[ @]/)[0];
}

/**
 * Requirements in the order given, each name once. A later requirement replaces an earlier one when
 * it constrains the package; a bare name after a pin keeps the pin, as in the harness, where conda
 * installs `numpy==1.19.2` and the later `pip install numpy` finds it satisfied.
 */
export function mergeRequirements(requirements: readonly string[]): string[] {
  const byName = new Map<string, string>();
  for (const requirement of requirements) {
    const name = requirementName(requirement);
    if (!byName.has(name) || constrained(requirement)) byName.set(name, requirement);
  }
  return [...byName.values()];
}

/**
 * The setuptools that conda's Python brings. setuptools 82 removed `pkg_resources`, which the
 * repositories of these tables import (through their tests and plugins) and which every conda
 * environment the harness built had; a bare `setuptools` in a spec meant "the one conda gives",
 * so it gets the same bound.
 */
const setuptoolsWithPkgResources = 'setuptools<82';

function withBuildTools(requirements: readonly string[]): string[] {
  const out = requirements.map((r) => (r.trim().toLowerCase() === 'setuptools' ? setuptoolsWithPkgResources : r));
  const names = new Set(out.map(requirementName));
  if (!names.has('setuptools')) out.push(setuptoolsWithPkgResources);
  if (!names.has('wheel')) out.push('wheel');
  return out;
}

/**
 * The repository's requirements file as the harness builds it (`get_requirements_by_commit`): the
 * first of the table's paths that exists at the commit, lines starting `-e .`, `#` or `.[test`
 * dropped, each `-r other.txt` (next to it) read in first, and yanked packages replaced.
 */
function requirementsFromClone(repo: string, commit: string, read: RepoFileReader, table: SwebenchSpecTable): { path: string; packages: string[] } | undefined {
  for (const path of table.requirements_paths[repo] ?? []) {
    const text = read(commit, path);
    if (text === undefined) continue;
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
    const nested: string[] = [];
    const own: string[] = [];
    for (const line of text.split('\n')) {
      const include = /^\s*-r\s*(\S+)/.exec(line);
      if (include !== null) nested.push(...(read(commit, `${dir}${include[1] ?? ''}`) ?? '').split('\n'));
      else own.push(line);
    }
    const replaced = requirementLines([...nested, ...own].join('\n')).flatMap((requirement) => {
      const swap = table.replace_packages.find(([from]) => requirementName(requirement) === requirementName(from));
      if (swap === undefined) return [requirement];
      return swap[1] === null ? [] : [swap[1]];
    });
    return { path, packages: replaced.filter((r) => !r.startsWith('.[')) };
  }
  return undefined;
}

/** Why a `pre_install` step cannot run in a working copy on this machine, or undefined when it can. */
export function unrunnableStep(step: string): string | undefined {
  if (/(^|&&\s*|;\s*)(sudo\s+)?(apt-get|apt|yum|dnf)\s/.test(step))
    return 'installs system packages (needs root); install them on this machine by hand, or use the SWE-bench image';
  if (/\blocale-gen\b|\/etc\//.test(step)) return 'configures the system (needs root)';
  if (/\b(wget|curl)\b|^[A-Z_]+=/.test(step)) return "downloads and builds a third-party library into the image (matplotlib's qhull); use the SWE-bench image";
  return undefined;
}

export interface TableOptions {
  /** The instance's `environment_setup_commit` (else its base commit), where the harness reads requirement files. */
  readonly commit?: string;
  /** Reads files of the repository's clone (`gp dataset prepare --repos`). */
  readonly readFile?: RepoFileReader;
  readonly table?: SwebenchSpecTable;
}

/** The environment of `repo` at SWE-bench `version`, or what is missing for it. */
export function pythonEnvFromTable(repo: string, version: string, options: TableOptions = {}): TableLookup {
  const table = options.table ?? swebenchSpecTable();
  const source = `${tableVersion(table)} ${repo} ${version}`;
  const versions = table.repos[repo];
  if (versions === undefined) return { ok: false, code: 'unknown-repo', message: `${tableVersion(table)}'s specification tables have no repository ${repo}.` };
  const spec = versions[version];
  if (spec === undefined)
    return {
      ok: false,
      code: 'unknown-version',
      message: `${tableVersion(table)}'s specification tables have no version ${version} of ${repo} (they have ${Object.keys(versions).join(', ')}).`,
    };
  const python = spec.python ?? '3.9';
  let base: string[] = [];
  let requirementsFile: string | undefined;
  if (spec.packages === 'environment.yml') {
    return {
      ok: false,
      code: 'conda-environment-file',
      message: `${source}: the harness builds this environment with conda from the repository's ${(table.environment_yml_paths[repo] ?? ['environment.yml']).join(' or ')}, conda's own format with packages pip does not have; grade these tasks in SWE-bench's image (docker backend) or write their python_env by hand.`,
    };
  }
  if (spec.packages === 'requirements.txt') {
    const paths = (table.requirements_paths[repo] ?? []).join(' or ');
    if (options.readFile === undefined || options.commit === undefined) {
      return {
        ok: false,
        code: 'requirements-unreadable',
        message: `${source}: the environment's packages are the repository's ${paths} at the instance's environment_setup_commit, which the harness downloads from GitHub; give a clone with --repos DIR (a folder named ${repo.replace('/', '__')}) so it is read from there.`,
      };
    }
    const found = requirementsFromClone(repo, options.commit, options.readFile, table);
    if (found === undefined) {
      return {
        ok: false,
        code: 'requirements-unreadable',
        message: `${source}: the clone of ${repo} has no ${paths} at commit ${options.commit} (git show ${options.commit}:<path> failed); fetch that commit into the clone.`,
      };
    }
    base = found.packages;
    requirementsFile = found.path;
  } else if (spec.packages !== undefined) {
    base = words(spec.packages).map(condaToPip);
  }
  const packages = withBuildTools(mergeRequirements([...base, ...(spec.pip_packages ?? [])]));
  return { ok: true, env: { python, packages, ...setupSteps(repo, spec, table), source, ...(requirementsFile === undefined ? {} : { requirementsFile }) } };
}

/**
 * The repository's own install as the harness runs it in the instance image
 * (`make_repo_script_list_py`): the repository's install table entry, the `pre_install` steps, then
 * `install`; the steps that cannot run in a working copy go to `skipped` with the reason.
 */
function setupSteps(repo: string, spec: SwebenchSpec, table: SwebenchSpecTable): { setup: string[]; skipped: string[] } {
  const setup: string[] = [];
  const skipped: string[] = [];
  const steps = [...(table.install[repo] === undefined ? [] : [table.install[repo]]), ...(spec.pre_install ?? [])];
  for (const step of steps) {
    const why = unrunnableStep(step);
    if (why === undefined) setup.push(step);
    else skipped.push(`${step} (${why})`);
  }
  if (spec.install !== undefined) setup.push(spec.install);
  return { setup, skipped };
}

/** Only the install steps of `repo` at `version`, for an environment that came from elsewhere (a harness spec, --env-specs). */
export function setupFromTable(
  repo: string,
  version: string,
  table: SwebenchSpecTable = swebenchSpecTable(),
): { setup: string[]; skipped: string[]; source: string } | undefined {
  const spec = table.repos[repo]?.[version];
  return spec === undefined ? undefined : { ...setupSteps(repo, spec, table), source: `${tableVersion(table)} ${repo} ${version}` };
}
