/**
 * The facts the grader-surface rule (graderSurface.ts) reads about a task's environment, asked of
 * the environment itself by one Python command run in the sandbox (argv, never text from a patch):
 * the standard library's names, the top-level names installed outside the repository, and the
 * installed pytest's version and configuration file names, read from its own `findpaths.py`. They
 * are asked once per environment (the sandbox's `environment` string, else its image) and kept;
 * the repository's files at its base commit are read per sandbox with `git ls-tree`, since two
 * tasks of one environment have different repositories.
 */
import { environmentFactsSchema, type EnvironmentFacts } from '../protocol/graderSurface.js';
import type { Sandbox } from '../sandbox/index.js';
import { errorMessage } from '../util/errors.js';
import type { GraderFacts } from './graderSurface.js';

/**
 * Run with `-I` (isolated: no PYTHONPATH, no current folder, no user site) so the answer is the
 * environment's and not the repository's. Before 3.10 the standard library's names are its
 * folder's listing plus the built-in modules. Installed names are every importable top-level entry
 * of the path entries outside the repository (the working folder): folders, modules and extension
 * modules. pytest's configuration names are the `.ini`/`.toml`/`.cfg` names quoted in its
 * `_pytest/config/findpaths.py` (`config_names` since pytest 6, `inibasenames` before), read
 * without importing pytest.
 */
export const factsScript = String.raw`
import json, os, re, sys
repo = os.path.realpath(os.getcwd())
ident = re.compile(r"^([A-Za-z_]\w*)(?:\.[\w-]+)*\.(?:py|pyc|so|pyd)$")
def names_in(folder):
    out = set()
    try:
        entries = os.listdir(folder)
    except OSError:
        return out
    for entry in entries:
        full = os.path.join(folder, entry)
        if os.path.isdir(full):
            if re.match(r"^[A-Za-z_]\w*$", entry):
                out.add(entry)
        else:
            m = ident.match(entry)
            if m:
                out.add(m.group(1))
    return out
stdlib = getattr(sys, "stdlib_module_names", None)
stdlib_from = "stdlib_module_names"
if stdlib is None:
    import sysconfig
    std = sysconfig.get_paths()["stdlib"]
    stdlib = set(sys.builtin_module_names) | names_in(std) | names_in(os.path.join(std, "lib-dynload"))
    stdlib.discard("site-packages")
    stdlib_from = "listing"
installed = set()
for entry in sys.path:
    real = os.path.realpath(entry or ".")
    if real == repo or real.startswith(repo + os.sep) or not os.path.isdir(real):
        continue
    installed |= names_in(real)
pytest = None
for entry in sys.path:
    base = os.path.join(entry or ".", "_pytest")
    real = os.path.realpath(base)
    if real.startswith(repo + os.sep) or not os.path.isdir(base):
        continue
    version = "unknown"
    try:
        with open(os.path.join(base, "_version.py")) as f:
            m = re.search(r"version\s*=\s*['\"]([^'\"]+)", f.read())
            version = m.group(1) if m else version
    except OSError:
        pass
    names = []
    try:
        with open(os.path.join(base, "config", "findpaths.py")) as f:
            for n in re.findall(r"['\"](\.?[\w-]+\.(?:ini|toml|cfg))['\"]", f.read()):
                if n not in names:
                    names.append(n)
    except OSError:
        pass
    pytest = {"version": version, "config_names": names}
    break
print(json.dumps({"python": "%d.%d.%d" % tuple(sys.version_info[:3]), "stdlib": sorted(stdlib), "stdlib_from": stdlib_from, "installed": sorted(installed), "pytest": pytest}))
`;

/** What the environment said, or why it could not say. */
export type FactsAnswer = { ok: true; facts: EnvironmentFacts } | { ok: false; why: string };

/** Asks the sandbox's Python; `python` first (a task's environment puts its own first on PATH), then `python3`. */
export async function askEnvironment(sandbox: Sandbox): Promise<FactsAnswer> {
  const tried: string[] = [];
  for (const python of ['python', 'python3']) {
    try {
      const result = await sandbox.exec([python, '-I', '-c', factsScript], { timeoutMs: 60_000, maxOutputBytes: 4 * 1024 * 1024 });
      if (result.exitCode !== 0) {
        tried.push(`${python} exited ${result.exitCode}: ${result.stderr.trim().split('\n').pop() ?? ''}`);
        continue;
      }
      const parsed = environmentFactsSchema.safeParse(JSON.parse(result.stdout.trim().split('\n').pop() ?? ''));
      if (parsed.success) return { ok: true, facts: parsed.data };
      tried.push(`${python} printed facts the rule cannot read`);
    } catch (error) {
      tried.push(`${python}: ${errorMessage(error)}`);
    }
  }
  return { ok: false, why: `no Python in the sandbox answered (${tried.join('; ')})` };
}

/** The repository's files at the sandbox's base commit, or undefined when git cannot list them. */
export async function baseFiles(sandbox: Sandbox): Promise<ReadonlySet<string> | undefined> {
  try {
    const result = await sandbox.exec(['git', 'ls-tree', '-r', '-z', '--name-only', sandbox.baseCommit], {
      timeoutMs: 60_000,
      maxOutputBytes: 64 * 1024 * 1024,
    });
    if (result.exitCode !== 0) return undefined;
    return new Set(result.stdout.split('\0').filter((p) => p !== ''));
  } catch {
    return undefined;
  }
}

/** Facts kept per environment; a process keeps one (`graderFacts`), a test may make its own. */
export class GraderFactsCache {
  private readonly answers = new Map<string, Promise<FactsAnswer>>();

  /** The sandbox's environment facts (asked once per environment) and its repository's base files. */
  async factsFor(sandbox: Sandbox): Promise<GraderFacts> {
    const key = sandbox.environment ?? sandbox.spec.image ?? `${sandbox.backend}:${sandbox.id}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = askEnvironment(sandbox);
      this.answers.set(key, answer);
    }
    const [env, files] = await Promise.all([answer, baseFiles(sandbox)]);
    // An environment that could not answer is asked again next time: the failure may be the sandbox's.
    if (!env.ok) this.answers.delete(key);
    return { environment: env.ok ? env.facts : undefined, ...(env.ok ? {} : { why: env.why }), ...(files === undefined ? {} : { baseFiles: files }) };
  }
}

const processCache = new GraderFactsCache();

/** The grader-surface facts of an open sandbox, through the process's cache. */
export function graderFacts(sandbox: Sandbox): Promise<GraderFacts> {
  return processCache.factsFor(sandbox);
}
