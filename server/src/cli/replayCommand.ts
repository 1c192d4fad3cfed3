/**
 * `gp trajectory replay FILE [--tasks FILE] [--json]`: opens a fresh sandbox for the episode's
 * task, executes the recorded actions again and reports the first step whose observation, reward
 * or end differs from the recording, with both sides (rollout/replay.ts). Exit codes: 0 when the
 * replay reproduced the recording, 1 when a step diverged, 2 for a usage error, 3 when the episode
 * could not be replayed (no task, no sandbox, a step it cannot execute).
 */
import { relative, resolve } from 'node:path';
import { replaySetup } from '../launch/index.js';
import { replayEpisode, type ReplayReport } from '../rollout/index.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError } from './args.js';
import type { Io } from './output.js';
import { loadEpisode } from './trajectoryCommands.js';

export const trajectoryReplayUsage = `gp trajectory replay FILE [--tasks FILE] [--json]
      Re-execute a recorded episode in a fresh sandbox of its task (the run's own config, the
      backend it ran on) and report the first step whose observation, reward or end differs
      from the recording. The task comes from the task files the run recorded in launch.json,
      or from --tasks FILE.`;

export const trajectoryReplayOptions = { tasks: { type: 'string' }, json: { type: 'boolean' } } as const;

const command = { name: 'trajectory replay', usage: trajectoryReplayUsage };

export async function trajectoryReplay(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const args = parseCommandArgs(command, argv, trajectoryReplayOptions, io);
  if (!args.ok) return args.exit;
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (args.errors.length > 0) return usageError(command, io, args.errors);
  const file = args.positionals[0] ?? '';
  const json = args.values.json === true;
  const model = await loadEpisode(command, file, io, cwd);
  if (model === undefined) return 3;
  const trajectory = resolve(cwd, file);
  const setup = await replaySetup({ trajectory, model, tasksFile: args.values.tasks, cwd });
  if (!setup.ok) {
    io.err(`gp trajectory replay: ${setup.message}`);
    return 3;
  }
  const shown = (p: string) => relative(cwd, p) || p;
  if (!json)
    io.out(
      `Replaying ${model.start?.episode_id ?? file} (task ${setup.task.task.task_id} from ${setup.task.source}) with ${shown(setup.configFile)} on the ${model.start?.backend ?? '?'} backend`,
    );
  let report: ReplayReport;
  try {
    report = await replayEpisode(model, setup.task, setup.deps, (step) => {
      if (!json)
        io.out(`  step ${String(step.step).padStart(3)}  ${step.summary.slice(0, 60).padEnd(60)}  ${step.difference === undefined ? 'same' : 'DIFFERS'}`);
    });
  } catch (error) {
    io.err(`gp trajectory replay: the replay failed: ${errorMessage(error)}`);
    return 3;
  }
  const exit = report.divergence !== undefined ? 1 : report.notReplayed !== undefined ? 3 : 0;
  if (json) {
    io.out(JSON.stringify(report, null, 2));
    return exit;
  }
  const timing = `replayed in ${(report.replayMs / 1000).toFixed(1)} s${report.originalMs === undefined ? '' : `; the original took ${(report.originalMs / 1000).toFixed(1)} s`}`;
  if (report.divergence !== undefined) {
    const d = report.divergence;
    io.out(`Step ${d.step} diverges (${d.where}) after ${report.replayed} replayed step${report.replayed === 1 ? '' : 's'} (${timing}):`);
    io.out(`  recorded: ${d.recorded}`);
    io.out(`  replayed: ${d.replayed}`);
    return 1;
  }
  if (report.notReplayed !== undefined) {
    io.out(`Stopped after ${report.replayed} of ${report.recorded} steps without a divergence: ${report.notReplayed} (${timing})`);
    return exit;
  }
  io.out(`No divergence: ${report.replayed} of ${report.recorded} steps reproduced the recording (${timing}).`);
  if (report.cutShort) io.out('Note: the recording has no end line; the replay stopped where the recording did.');
  return exit;
}
