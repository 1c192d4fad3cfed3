/**
 * What the end-to-end tests that train need: a session in the workbench fixture with the sample
 * repository, once the trainer environment is known to be there, and the smoke run the last
 * Start Training… made, waited for until it finishes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runStatusSchema } from '../../server/src/protocol/runs.js';
import { trainerPython } from '../../server/src/cluster/index.js';
import { startSession, type Session } from './harness.js';
import { terminalText } from './views.js';
import { done, pending, waitFor } from './wait.js';

/** A session for training from the editor; throws, naming the fix, when the trainer environment is missing. */
export async function startTrainingSession(): Promise<Session> {
  const probe = spawnSync(trainerPython(undefined), ['-c', 'import verl, ray'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`the trainer environment is missing (${trainerPython(undefined)}): run bash python/setup.sh`);
  return startSession({ fixture: 'workbench', extraFiles: { 'docker/repoenv_sample/sample_repo': 'repos/sample_repo' } });
}

/** The smoke training runs in the workspace's outputs, by name. */
export function trainingRuns(workspace: string): string[] {
  const out = join(workspace, 'outputs');
  return existsSync(out)
    ? readdirSync(out)
        .filter((n) => n.startsWith('train_smoke-train-'))
        .sort()
    : [];
}

/** Waits for the run the last Start Training… made (the one not in `before`) to finish; returns its name. */
export async function finishedTrainingRun(s: Session, before: readonly string[], finishMs: number): Promise<string> {
  const run = await waitFor(
    'the training run folder',
    async () => {
      const made = trainingRuns(s.workspace).filter((r) => !before.includes(r));
      return made.length === 1 && made[0] !== undefined ? done(made[0]) : pending(`runs: ${made.join(', ') || '(none)'}\n${await terminalText(s.page)}`);
    },
    { timeoutMs: 90_000 },
  );
  const statusFile = join(s.workspace, 'outputs', run, 'status.json');
  await waitFor(
    'the smoke training to finish',
    async () => {
      const state = existsSync(statusFile) ? runStatusSchema.parse(JSON.parse(readFileSync(statusFile, 'utf8'))).state : 'starting';
      if (state === 'failed' || state === 'interrupted') throw new Error(`the training run ${state}:\n${await terminalText(s.page)}`);
      return state === 'finished' ? done(state) : pending(`${state}\n${(await terminalText(s.page)).slice(-1500)}`);
    },
    { timeoutMs: finishMs },
  );
  return run;
}
