/**
 * Generated dataset files for the Tasks view's tests and bench: task lines shaped like converted
 * SWE-bench rows (an image, a repository, an issue of about two kilobytes, test lists), so a
 * 5,000-task file is about as large as a real one (some 13 MB).
 */
import { writeFileSync } from 'node:fs';

const body = 'Calling the function with an empty list raises instead of returning zero. '.repeat(28);

/** Task `i`: id `task-00042`, repository `org-<i % 7>/repo-<i % 13>`. */
export function taskLine(i: number): string {
  const id = `task-${String(i).padStart(5, '0')}`;
  return JSON.stringify({
    task_id: id,
    repo: `org-${i % 7}/repo-${i % 13}`,
    sandbox: { docker_image: `sweb.eval.x86_64.${id}:latest`, workdir: '/testbed', test_command: 'pytest -rA tests/test_core.py' },
    issue: { id, title: `Task ${i} fails on empty input`, body },
    FAIL_TO_PASS: ['tests/test_core.py::test_empty'],
    PASS_TO_PASS: ['tests/test_core.py::test_one', 'tests/test_core.py::test_many'],
    data_source: 'generated',
    split: 'test',
  });
}

export interface TaskFileShape {
  readonly tasks: number;
  /** Lines replaced by a broken one (not JSON), counted in `tasks`' numbering. */
  readonly brokenLines?: readonly number[];
}

/** Writes the file and returns its lines. */
export function writeTaskFile(path: string, shape: TaskFileShape): string[] {
  const broken = new Set(shape.brokenLines ?? []);
  const lines = Array.from({ length: shape.tasks }, (_, i) => (broken.has(i) ? '{"task_id": broken' : taskLine(i)));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return lines;
}
