/**
 * Host paths in a task (`sandbox.local_repo`, `sandbox.r2e_ds_json`, the host side of mounts, a
 * Harbor task's `sandbox.image_recipe.dockerfile` and `verifier.tests`) are
 * relative to the task file's folder (docs/original-system.md#g1-task-entry). A registered copy of the tasks lives elsewhere
 * (`~/.rllm/datasets/<name>/`), so registration makes them absolute first; otherwise the
 * environment would look for `instances/<id>.json` next to the parquet file.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { TaskEntry } from '../tasks/index.js';

function absolute(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function mountString(baseDir: string, mount: string): string {
  const colon = mount.indexOf(':');
  return colon <= 0 ? mount : `${absolute(baseDir, mount.slice(0, colon))}${mount.slice(colon)}`;
}

/** The task with its host paths resolved against `baseDir`; everything else is kept as it is. */
export function withAbsolutePaths(task: TaskEntry, baseDir: string): TaskEntry {
  const box = task.sandbox;
  const mounts = Array.isArray(box.mounts)
    ? box.mounts.map((m) => (typeof m === 'string' ? mountString(baseDir, m) : { ...m, host: absolute(baseDir, m.host) }))
    : Object.fromEntries(Object.entries(box.mounts).map(([host, container]) => [absolute(baseDir, host), container]));
  return {
    ...task,
    sandbox: {
      ...box,
      mounts,
      ...(box.local_repo !== undefined ? { local_repo: absolute(baseDir, box.local_repo) } : {}),
      ...(box.r2e_ds_json !== undefined ? { r2e_ds_json: absolute(baseDir, box.r2e_ds_json) } : {}),
      ...(box.image_recipe !== undefined ? { image_recipe: { ...box.image_recipe, dockerfile: absolute(baseDir, box.image_recipe.dockerfile) } } : {}),
    },
    ...(task.verifier !== undefined ? { verifier: { ...task.verifier, tests: absolute(baseDir, task.verifier.tests) } } : {}),
  };
}

/**
 * The task with its relative host paths rewritten for a task file in `toDir` (a certified copy of a
 * dataset written elsewhere); absolute paths are kept as they are.
 */
export function withPathsMoved(task: TaskEntry, fromDir: string, toDir: string): TaskEntry {
  const move = (path: string) => (isAbsolute(path) ? path : relative(toDir, resolve(fromDir, path)) || '.');
  const box = task.sandbox;
  const mountMoved = (mount: string) => {
    const colon = mount.indexOf(':');
    return colon <= 0 ? mount : `${move(mount.slice(0, colon))}${mount.slice(colon)}`;
  };
  const mounts = Array.isArray(box.mounts)
    ? box.mounts.map((m) => (typeof m === 'string' ? mountMoved(m) : { ...m, host: move(m.host) }))
    : Object.fromEntries(Object.entries(box.mounts).map(([host, container]) => [move(host), container]));
  return {
    ...task,
    sandbox: {
      ...box,
      mounts,
      ...(box.local_repo !== undefined ? { local_repo: move(box.local_repo) } : {}),
      ...(box.r2e_ds_json !== undefined ? { r2e_ds_json: move(box.r2e_ds_json) } : {}),
      ...(box.image_recipe !== undefined ? { image_recipe: { ...box.image_recipe, dockerfile: move(box.image_recipe.dockerfile) } } : {}),
    },
    ...(task.verifier !== undefined ? { verifier: { ...task.verifier, tests: move(task.verifier.tests) } } : {}),
  };
}
