/**
 * What the code-graph view needs of an episode's task, found after the run: the task file (the
 * trajectory's `task_file`, else the task files of the run's `launch.json`), the task in it, its
 * gold patch from the predictions file `gp dataset prepare` writes beside it
 * (`datasets/goldPatches.ts`), the task's local repository for the text of a file before the fix,
 * and the code graph's own parser for the definitions of that text. Each step that fails says why
 * in `note`, and the view shows the episode without gold rather than a guess.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { defaultGoldFile, readGoldPatches, type GoldPatches } from '../datasets/index.js';
import { buildCodeGraphFromFiles } from '../graph/index.js';
import type { TrajectoryStart } from '../protocol/runs.js';
import { readLaunchRecord, runLayout } from '../runs/index.js';
import { runDirOfTrajectory } from '../episodes/index.js';
import type { DefinitionSpan, EpisodeGoldSource } from '../graphView/index.js';
import { loadTasks, type TaskEntry } from '../tasks/index.js';
import { errorMessage } from '../util/errors.js';
import { isWithin } from '../util/pathWithin.js';
import { taskFilesOf } from './replaySetup.js';

/** A file's definitions as the graph parses them, ids and spans exactly as the episode's graph had them. */
export async function parseDefinitions(path: string, text: string): Promise<readonly DefinitionSpan[]> {
  const graph = await buildCodeGraphFromFiles([{ path, text }]);
  return graph.nodes().flatMap((n) => (n.kind === 'file' ? [] : [{ id: n.id, kind: n.kind, path: n.path, span: n.span }]));
}

interface TaskFileRead {
  readonly tasks: Map<string, TaskEntry>;
  /** Rows that are not valid tasks, `file:line:col what`. */
  readonly problems: readonly string[];
  readonly gold: GoldPatches | undefined;
  readonly goldFile: string | undefined;
}

/**
 * Finds the gold of episodes' tasks; one finder reads each task file and predictions file once,
 * so scoring a run's episodes reads them once for all.
 */
export class EpisodeGoldFinder {
  private readonly files = new Map<string, Promise<TaskFileRead>>();

  async find(trajectory: string, start: TrajectoryStart | undefined): Promise<EpisodeGoldSource> {
    const problems: string[] = [];
    const none = (note: string): EpisodeGoldSource => ({ patch: undefined, source: null, note, parse: parseDefinitions });
    if (start === undefined) return none('The trajectory has no start line, so its task is unknown.');
    const candidates = await this.taskFiles(trajectory, start);
    if (candidates.length === 0)
      return none('The task file of this episode is unknown: the trajectory does not name it and the run has no launch.json naming one.');
    for (const file of candidates) {
      let read: TaskFileRead;
      try {
        read = await this.read(file);
      } catch (error) {
        return none(`The task file ${file} cannot be read: ${errorMessage(error)}.`);
      }
      const task = read.tasks.get(start.task_id);
      if (task === undefined) {
        problems.push(...read.problems.slice(0, 1));
        continue;
      }
      const repositoryText = repositoryReader(task, dirname(file));
      const patch = read.gold?.patches.get(start.task_id);
      const base = { parse: parseDefinitions, ...(repositoryText === undefined ? {} : { repositoryText }) };
      if (read.goldFile === undefined)
        return {
          ...base,
          patch: undefined,
          source: null,
          note: `No gold patches beside ${file} (gold_predictions_<split>.jsonl, as gp dataset prepare writes them).`,
        };
      if (patch === undefined || patch.trim() === '')
        return { ...base, patch: undefined, source: read.goldFile, note: `${read.goldFile} has no gold patch for ${start.task_id}.` };
      return { ...base, patch, source: read.goldFile, note: null };
    }
    // A row that does not validate may be the task: its problem says what to fix.
    return none(`No task ${start.task_id} in ${candidates.join(', ')}${problems.length === 0 ? '' : `; ${problems.join('; ')}`}.`);
  }

  private async taskFiles(trajectory: string, start: TrajectoryStart): Promise<string[]> {
    if (start.task_file !== undefined) return [start.task_file.path];
    const launch = await readLaunchRecord(runLayout(runDirOfTrajectory(trajectory)).launch);
    return launch.ok ? taskFilesOf(launch.record.args).map((f) => resolve(launch.record.cwd, f)) : [];
  }

  private read(file: string): Promise<TaskFileRead> {
    let reading = this.files.get(file);
    if (reading === undefined) {
      reading = (async () => {
        const loaded = await loadTasks(file);
        const goldFile = defaultGoldFile(file);
        const gold = goldFile === undefined ? undefined : await readGoldPatches(goldFile);
        return { tasks: new Map(loaded.tasks.map((t) => [t.task.task_id, t.task])), problems: loaded.problems, gold, goldFile };
      })();
      this.files.set(file, reading);
    }
    return reading;
  }
}

/** A file of the task's local repository (never outside it), when the task names one. */
function repositoryReader(task: TaskEntry, baseDir: string): ((path: string) => Promise<string | undefined>) | undefined {
  const local = task.sandbox.local_repo;
  if (local === undefined || local === null || local === '') return undefined;
  const root = resolve(baseDir, local);
  return async (path) => {
    const file = resolve(root, path);
    if (!isWithin(file, root)) return undefined;
    try {
      return await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
  };
}
