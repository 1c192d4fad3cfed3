/**
 * Where the trainer's Python side is: the `graph_planner_verl` package (python/ in the repository,
 * found above this module whether it runs from the sources or from the bundle in dist/), and the
 * interpreter of the environment `python/setup.sh` builds (`.cache/trainer-venv`), unless the user
 * names another with --python or GP_TRAINER_PYTHON.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function above(from: string, relative: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The folder holding `graph_planner_verl/`, or undefined when this installation has none. */
export function adapterDir(from: string = __dirname): string | undefined {
  const root = above(from, join('python', 'graph_planner_verl', 'agent_loop.yaml'));
  return root === undefined ? undefined : join(root, 'python');
}

/** --python, then GP_TRAINER_PYTHON, then the repository's trainer venv, then `python3` on the PATH. */
export function trainerPython(explicit: string | undefined, from: string = __dirname): string {
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env['GP_TRAINER_PYTHON'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const root = above(from, join('.cache', 'trainer-venv', 'bin', 'python'));
  return root === undefined ? 'python3' : join(root, '.cache', 'trainer-venv', 'bin', 'python');
}

/** GPUs this machine shows (`nvidia-smi -L`); 0 when the tool is missing or fails. */
export function visibleGpus(): Promise<number> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', ['-L'], { timeout: 20_000 }, (error, stdout) => {
      resolve(error ? 0 : stdout.split('\n').filter((l) => l.startsWith('GPU ')).length);
    });
  });
}
