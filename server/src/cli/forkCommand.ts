/**
 * `gp trajectory fork FILE --step N [--count K] [--agent A] …`: continue a recorded episode from
 * one of its steps (launch/forkLaunch.ts). It is a `gp rollout` of the parent's task with
 * `--fork-of FILE --fork-step N`, printed before it runs, so the run is resumed and launched again
 * like any rollout. Exit codes: those of `gp rollout`, and 1 when a fork's replay of its parent
 * diverged (the summary says at which step and what differs).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { agentNames } from '../protocol/agentNames.js';
import { displayCommand, forkRolloutArgs } from '../launch/index.js';
import { readTrajectory, runLayout } from '../runs/index.js';
import { parseCommandArgs, usageError } from './args.js';
import { intFlag, type Io } from './output.js';
import { displayPath } from './rolloutSummary.js';
import { processRuntime, rolloutCommand, type RolloutRuntime } from './rolloutCommands.js';
import { loadEpisode } from './trajectoryCommands.js';

export const trajectoryForkUsage = `gp trajectory fork FILE --step N [--count K] [--agent ${agentNames.join('|')} [--fallback]]
             [--config YAML] [--set KEY=VALUE]... [--tasks FILE] [--parallel N] [--run-dir DIR] [--json]
      Continue a recorded episode from step N: a fresh sandbox of its task, the recorded steps
      1..N-1 replayed and each checked against the recording (a step that differs ends the fork
      and says where, as gp trajectory replay does), then the agent goes on live from there.
      --count K runs K continuations at once (a GRPO group from one prefix). The config is the
      parent run's resolved_config.yaml on the backend it ran on, unless --config names another;
      --agent and --set change it. Each continuation's trajectory records its parent (run,
      episode, step) and its replayed steps. The fork is a gp rollout with --fork-of FILE
      --fork-step N in a run folder of its own beside the parent's (<parent run>-fork-<stamp>),
      printed before it starts; it resumes like any rollout.`;

export const trajectoryForkOptions = {
  step: { type: 'string' },
  count: { type: 'string' },
  agent: { type: 'string' },
  fallback: { type: 'boolean' },
  config: { type: 'string' },
  set: { type: 'string', multiple: true },
  tasks: { type: 'string' },
  parallel: { type: 'string' },
  'run-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const command = { name: 'trajectory fork', usage: trajectoryForkUsage };

/** More continuations of one prefix than this are a training run's work, not a question asked of an episode. */
const maxCount = 64;

export async function trajectoryFork(argv: readonly string[], io: Io, cwd: string, runtime: RolloutRuntime = processRuntime()): Promise<number> {
  const args = parseCommandArgs(command, argv, trajectoryForkOptions, io);
  if (!args.ok) return args.exit;
  const v = args.values;
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (v.step === undefined) args.errors.push('name the step to continue from with --step N.');
  const step = intFlag('--step', v.step, args.errors);
  const count = intFlag('--count', v.count, args.errors) ?? 1;
  if (count > maxCount) args.errors.push(`--count is at most ${maxCount}.`);
  const parallel = intFlag('--parallel', v.parallel, args.errors);
  if (v.agent !== undefined && !(agentNames as readonly string[]).includes(v.agent))
    args.errors.push(`--agent is one of ${agentNames.join(', ')}, not '${v.agent}'.`);
  if (args.errors.length > 0 || step === undefined) return usageError(command, io, args.errors);
  const file = args.positionals[0] ?? '';
  // Another tool's trajectory is said to be one, and an unreadable file says why (loadEpisode).
  const parent = await loadEpisode(command, file, io, cwd);
  if (parent === undefined) return 2;
  const planned = await forkRolloutArgs(
    { trajectory: file, step, count, agent: v.agent, config: v.config, sets: v.set ?? [], tasksFile: v.tasks, runDir: v['run-dir'], cwd, now: new Date() },
    parent,
  );
  if (!planned.ok) {
    io.err(`gp trajectory fork: ${planned.message}`);
    return 2;
  }
  const rolloutArgs = [
    ...planned.args,
    ...(parallel === undefined ? [] : ['--parallel', String(parallel)]),
    ...(v.fallback === true ? ['--fallback'] : []),
    ...(v.json === true ? ['--json'] : []),
  ];
  const say = v.json === true ? io.err : io.out;
  say(
    `Forking ${planned.parent.episode_id} (task ${planned.taskId}) at step ${step}: ${count === 1 ? 'one continuation' : `${count} continuations`}; steps 1..${step - 1} are replayed first.`,
  );
  say(displayCommand(['rollout', ...rolloutArgs]));
  const exit = await rolloutCommand('rollout', rolloutArgs, io, cwd, runtime);
  const diverged = await divergences(planned.runDir);
  for (const d of diverged) io.err(`gp trajectory fork: ${d}`);
  if (exit === 0 && diverged.length > 0) return 1;
  if (exit === 0)
    say(`parent: ${displayPath(planned.parent.trajectory, cwd)}; the continuations are in ${displayPath(runLayout(planned.runDir).trajectories, cwd)}`);
  return exit;
}

/** Each continuation whose replay of the parent diverged, in a sentence. */
async function divergences(runDir: string): Promise<string[]> {
  const dir = runLayout(runDir).trajectories;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const d = (await readTrajectory(join(dir, name)))?.end?.fork_divergence;
    if (d !== undefined)
      out.push(
        `${name}: the replay diverged at ${d.step === 0 ? 'the reset' : `step ${d.step}`} (${d.where}): recorded ${d.recorded}; replayed ${d.replayed}.`,
      );
  }
  return out;
}
