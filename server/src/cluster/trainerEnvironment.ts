/**
 * Where the trainer's Python side is: the `graph_planner_verl` package (python/ in the repository,
 * found above this module whether it runs from the sources or from the bundle in dist/), and the
 * interpreter of the environment `python/setup.sh` builds (outside the clone, shared by clones), unless the user
 * names another with --python or GP_TRAINER_PYTHON.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

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

/**
 * How a node starts our CLI (a shard of `gp eval --ray`): this node executable and `cli.js`, beside
 * this module in the bundle (dist/), or in the repository's dist/ when running from the sources.
 */
export function cliCommand(from: string = __dirname): string[] | undefined {
  if (basename(from) === 'dist' && existsSync(join(from, 'cli.js'))) return [process.execPath, join(from, 'cli.js')];
  const root = above(from, join('dist', 'cli.js'));
  return root === undefined ? undefined : [process.execPath, join(root, 'dist', 'cli.js')];
}

/** Where python/setup.sh builds the trainer environment: $GP_TRAINER_VENV or ~/.cache/graph-planner/trainer-venv. */
export function trainerVenv(): string {
  const fromEnv = process.env['GP_TRAINER_VENV'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'graph-planner', 'trainer-venv');
}

/** --python, then GP_TRAINER_PYTHON, then the environment python/setup.sh builds, then `python3` on the PATH. */
export function trainerPython(explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env['GP_TRAINER_PYTHON'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const venvPython = join(trainerVenv(), 'bin', 'python');
  return existsSync(venvPython) ? venvPython : 'python3';
}

/** GPUs this machine shows (`nvidia-smi -L`); 0 when the tool is missing or fails. */
export function visibleGpus(): Promise<number> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', ['-L'], { timeout: 20_000 }, (error, stdout) => {
      resolve(error ? 0 : stdout.split('\n').filter((l) => l.startsWith('GPU ')).length);
    });
  });
}
