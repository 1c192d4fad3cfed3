/**
 * A task's `python_env` from SWE-bench's environment script (`env_script_list` of the harness
 * spec): the Python version of `conda create -n testbed python=X`, the packages that line names,
 * every `pip install` line's requirements and the requirements file the script writes with a
 * heredoc. What only conda can make (an `environment.yml`) is reported, not guessed: those
 * repositories need SWE-bench's image.
 *
 * Conda's `pkg=1.2` means any 1.2.x release; it becomes pip's `pkg==1.2.*`. The repository's own
 * editable install (`pip install -e .` in `repo_script_list`) is left out on purpose: the
 * environment is shared by every task with the same specification, and the sandbox puts the
 * checkout first on PYTHONPATH instead.
 */

export interface SpecPythonEnv {
  python?: string;
  packages: string[];
  /** Why the environment is incomplete, when it is (`conda-environment-file`). */
  incomplete?: string;
}

const heredocStart = /^cat <<'?(\w+)'? > (\S+)\n([\s\S]*?)\n\1\s*$/;

function condaPackage(word: string): string {
  // `numpy=1.19` (conda: 1.19.*) → `numpy==1.19.*`; `numpy==1.19.2` and bare names stay.
  const m = /^([A-Za-z0-9_.-]+)=([^=<>!~]+)$/.exec(word);
  return m === null ? word : `${m[1]}==${m[2]}.*`;
}

/** Requirement lines of a requirements file: comments, blanks and options (`-e .`) dropped. */
export function requirementLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('-'));
}

/** Splits a shell word list on blanks, keeping quoted words whole (enough for pip lines). */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

export function pythonEnvFromSpec(spec: Record<string, unknown> | undefined): SpecPythonEnv | undefined {
  const script = spec?.['env_script_list'];
  if (!Array.isArray(script)) return undefined;
  const lines = script.filter((l): l is string => typeof l === 'string');
  const files = new Map<string, string>();
  const out: SpecPythonEnv = { packages: [] };
  for (const raw of lines) {
    const heredoc = heredocStart.exec(raw);
    if (heredoc !== null) {
      files.set(heredoc[2] ?? '', heredoc[3] ?? '');
      continue;
    }
    for (const line of raw.split('&&').map((l) => l.trim())) {
      const create = /^conda (?:create|install)\b(.*)$/.exec(line);
      if (create !== null) {
        for (const word of words(create[1] ?? '')) {
          const python = /^python=(\d+(?:\.\d+)*)$/.exec(word);
          if (python !== null) out.python = python[1] ?? '';
          else if (!word.startsWith('-') && word !== 'testbed' && !/^(conda-forge|defaults|nodefaults)$/.test(word)) out.packages.push(condaPackage(word));
        }
        continue;
      }
      if (/^conda env (update|create)\b/.test(line)) out.incomplete = 'conda-environment-file';
      const pip = /^(?:python\s+-m\s+)?pip install\b(.*)$/.exec(line);
      if (pip === null) continue;
      const args = words(pip[1] ?? '');
      for (let i = 0; i < args.length; i++) {
        const word = args[i] ?? '';
        if (word === '-r' || word === '--requirement') {
          const file = files.get(args[i + 1] ?? '');
          if (file !== undefined) out.packages.push(...requirementLines(file));
          i++;
        } else if (word === '-e' || word === '--editable') i++;
        else if (!word.startsWith('-')) out.packages.push(word);
      }
    }
  }
  // The same requirement named twice (conda's list, then pip's pin) keeps the later, stricter one.
  const byName = new Map<string, string>();
  for (const requirement of out.packages)
    byName.set(
      requirement
        .split(/[<>=!~;[ ]/)[0]
        ?.toLowerCase()
        .replace(/_/g, '-') ?? requirement,
      requirement,
    );
  out.packages = [...byName.values()];
  return out.python === undefined && out.packages.length === 0 && out.incomplete === undefined ? undefined : out;
}

/** The key of an environment in a specs map: the repository and SWE-bench's version. */
export function envSpecKey(repo: string, version: string): string {
  return `${repo}@${version}`;
}

/**
 * Environments by repository and version from rows that carry SWE-bench's harness spec (the
 * original converter's Verified tasks, or anything with `sandbox.swebench_spec` or `swebench_spec`
 * holding `repo`, `version` and `env_script_list`), for rows that carry none: SWE-bench Lite's rows
 * have no spec, but an instance's environment depends only on its repository and version.
 */
export function envSpecsFrom(rows: Iterable<unknown>): Map<string, SpecPythonEnv> {
  const out = new Map<string, SpecPythonEnv>();
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue;
    const record = row as Record<string, unknown>;
    const sandbox = record['sandbox'];
    const spec =
      (typeof sandbox === 'object' && sandbox !== null ? (sandbox as Record<string, unknown>)['swebench_spec'] : undefined) ?? record['swebench_spec'];
    if (typeof spec !== 'object' || spec === null) continue;
    const { repo, version } = spec as Record<string, unknown>;
    if (typeof repo !== 'string' || typeof version !== 'string') continue;
    const env = pythonEnvFromSpec(spec as Record<string, unknown>);
    if (env !== undefined && !out.has(envSpecKey(repo, version))) out.set(envSpecKey(repo, version), env);
  }
  return out;
}
