/**
 * The files a task's grade is read from, whatever the style of its test ids: pytest node ids
 * (`tests/test_x.py::test_a`), unittest ids (`test_add (tests.test_calc.CalcTest)` and Python
 * 3.11's `test_add (tests.test_calc.CalcTest.test_add)`), Django's (the same form, with modules under
 * its `tests/` folder that `runtests.py` puts on the path), dotted ids, and sympy's bare names
 * (whose files only the test command names). The test command's own files (`runtests.py`,
 * `bin/test`, the files it checks out or applies a test patch to) and the files of the task's
 * `test_patch` belong here too. The grader-surface rule (graderSurface.ts) protects them all.
 */
import { patchPaths } from '../sandbox/index.js';
import { decodeTestList, type TaskEntry } from '../tasks/index.js';

/** What the grader-surface rule needs from a task; `launch/envOptions.ts` and the CLI build it once per task. */
export interface GraderTaskSurface {
  /** Repository-relative files the task's test ids name, every candidate of an ambiguous id included. */
  testFiles: readonly string[];
  /** Files the task's `test_patch` touches. */
  testPatchFiles: readonly string[];
  /** Files the test command names: its runner script, the files it runs, checks out or patches. */
  commandFiles: readonly string[];
  /** The task's `python_env.pythonpath` folders; absent when the task names none (then `src` for a src layout). */
  pythonPath?: readonly string[];
}

function clean(path: string): string {
  return path.replace(/^(\.\/)+/, '');
}

/** Module files a dotted module name may be, relative to the repository and to Django's `tests/`. */
function moduleFiles(module: string): string[] {
  const base = module.split('.').join('/');
  return [`${base}.py`, `${base}/__init__.py`, `tests/${base}.py`, `tests/${base}/__init__.py`];
}

/** The candidate files of one test id; none for a bare name. */
export function filesOfTestId(id: string): string[] {
  const trimmed = id.trim();
  if (trimmed.includes('::')) {
    const file = clean(trimmed.split('::')[0] ?? '');
    return file.endsWith('.py') ? [file] : [];
  }
  // unittest and Django: `name (module.Class)`, or `name (module.Class.name)` since Python 3.11.
  const unit = /^(\S+) \(([\w.]+)\)/.exec(trimmed);
  if (unit?.[1] !== undefined && unit[2] !== undefined) {
    const parts = unit[2].split('.');
    const drop = parts.length > 2 && parts[parts.length - 1] === unit[1] ? 2 : 1;
    return parts.length > drop ? moduleFiles(parts.slice(0, -drop).join('.')) : [];
  }
  if (trimmed.endsWith('.py')) return [clean(trimmed)];
  // A dotted id (`tests.test_calc.CalcTest.test_add`): its module is one of its first parts.
  if (/^[\w]+(\.[\w]+)+$/.test(trimmed)) {
    const parts = trimmed.split('.');
    const out: string[] = [];
    for (let keep = Math.max(1, parts.length - 3); keep < parts.length; keep++) out.push(...moduleFiles(parts.slice(0, keep).join('.')));
    return out;
  }
  return [];
}

/** A script without its here-documents, and their bodies: a test patch's code is not the script's words. */
function splitHereDocuments(command: string): { script: string; documents: string[] } {
  const lines = command.split('\n');
  const script: string[] = [];
  const documents: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    script.push(line);
    const start = /<<-?\s*(['"]?)([\w-]+)\1/.exec(line);
    if (start?.[2] === undefined) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === start[2]);
    const stop = end === -1 ? lines.length : end;
    documents.push(lines.slice(i + 1, stop).join('\n'));
    i = stop;
  }
  return { script: script.join('\n'), documents };
}

/**
 * Files a test command names: any relative `.py` path among its words, the runner it starts
 * (`./tests/runtests.py`, `bin/test`: a relative path in command position), Django's
 * `--settings=test_sqlite` module under `tests/`, and the files of a patch written into the command
 * (SWE-bench's evaluation script applies the task's test patch from a here-document).
 */
export function filesOfTestCommand(command: string): string[] {
  const out = new Set<string>();
  const { script, documents } = splitHereDocuments(command);
  for (const document of documents) for (const path of patchPaths(document).paths) out.add(path);
  for (const segment of script.split(/[\n;&|()]+/)) {
    const words = segment
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^['"]|['"]$/g, ''));
    const first = words.find((w) => !/^\w+=/.test(w));
    if (first !== undefined && first.includes('/') && !first.startsWith('/') && !first.startsWith('-') && !first.includes('$')) out.add(clean(first));
    for (const word of words) {
      if (/^[\w./-]+\.py$/.test(word) && !word.startsWith('/')) out.add(clean(word));
      const settings = /^--settings=([\w.]+)$/.exec(word);
      if (settings?.[1] !== undefined) out.add(`tests/${settings[1].split('.').join('/')}.py`);
    }
  }
  return [...out].filter((p) => p !== '' && !p.split('/').includes('..'));
}

function ids(task: TaskEntry): string[] {
  const lists = [task.FAIL_TO_PASS, task.PASS_TO_PASS].filter((l) => l !== undefined);
  return lists.flatMap((list) => {
    const decoded = decodeTestList(list);
    return decoded.ok ? decoded.tests : [];
  });
}

/** The task's side of the grader surface; `testPatch` is the task's `test_patch` where the caller has it (raw SWE-bench rows). */
export function graderTaskSurface(task: TaskEntry, testPatch?: string): GraderTaskSurface {
  const command = task.sandbox.test_command;
  const pythonPath = task.sandbox.python_env?.pythonpath;
  return {
    testFiles: [...new Set(ids(task).flatMap(filesOfTestId))],
    testPatchFiles: testPatch === undefined ? [] : patchPaths(testPatch).paths,
    commandFiles: command === undefined ? [] : filesOfTestCommand(command),
    ...(pythonPath === undefined ? {} : { pythonPath }),
  };
}
