/**
 * The one name of an episode (issue 27), and the order episodes are listed in. The Runs view's
 * rows, the trajectory viewer's tab, the Compare picker, the group view, the Containers view and
 * the CLI all name an episode with `episodeName`, and sort with `compareEpisodes`. Plain functions
 * with no imports, so the extension and the webview pages use them without bundling a schema.
 *
 * The name is the episode's id: the task id, or `<task>#<n>` for attempt n when a rollout
 * attempts a task more than once (`rollout/plan.ts`). It is also its trajectory's file name
 * (`trajectories/<name>.jsonl`, `runs/layout.ts`), because VS Code 1.100, the oldest version this
 * extension supports (docs/e2e.md), titles a custom editor's tab with its file's name and nothing
 * else: a name that differed from the file's would put a second name on every tab.
 */

/** What naming an episode needs: its id and its task's id, as every record of it carries. */
export interface EpisodeRef {
  readonly episodeId: string;
  readonly taskId: string;
}

/** The name of an episode wherever a person reads it: `sample-calc-add`, `sample-calc-add#10`. */
export function episodeName(episode: EpisodeRef): string {
  return episode.episodeId;
}

/**
 * Which attempt at its task an episode is: n for `<task>#<n>`, 1 for an episode named by its task
 * alone, null for an id of another shape (a training episode's, named by its GRPO group).
 */
export function episodeAttempt(episode: EpisodeRef): number | null {
  if (episode.episodeId === episode.taskId) return 1;
  const prefix = `${episode.taskId}#`;
  if (!episode.episodeId.startsWith(prefix)) return null;
  const rest = episode.episodeId.slice(prefix.length);
  return /^[1-9]\d{0,8}$/.test(rest) ? Number(rest) : null;
}

let collator: Intl.Collator | undefined;

/** Made on first use: creating a collator loads locale data, which loading the extension need not wait for. */
function idCollator(): Intl.Collator {
  collator ??= new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  return collator;
}

/**
 * The order episodes are listed in: by task (numbers inside ids compared as numbers, so
 * `django-9` comes before `django-10`), then by attempt (`#2` before `#10`), then by id, so an
 * order never depends on which episode ended first.
 */
export function compareEpisodes(a: EpisodeRef, b: EpisodeRef): number {
  const byTask = idCollator().compare(a.taskId, b.taskId) || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
  if (byTask !== 0) return byTask;
  const attemptA = episodeAttempt(a);
  const attemptB = episodeAttempt(b);
  if (attemptA !== null && attemptB !== null && attemptA !== attemptB) return attemptA - attemptB;
  if ((attemptA === null) !== (attemptB === null)) return attemptA === null ? 1 : -1;
  return idCollator().compare(a.episodeId, b.episodeId) || (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0);
}

/** Episodes grouped by task, tasks and their episodes in `compareEpisodes` order. */
export function groupByTask<T extends EpisodeRef>(episodes: readonly T[]): { readonly taskId: string; readonly episodes: readonly T[] }[] {
  const byTask = new Map<string, T[]>();
  for (const ep of [...episodes].sort(compareEpisodes)) {
    const list = byTask.get(ep.taskId);
    if (list === undefined) byTask.set(ep.taskId, [ep]);
    else list.push(ep);
  }
  return [...byTask].map(([taskId, list]) => ({ taskId, episodes: list }));
}

/**
 * What a container of ours is called in the Containers view and `gp containers list`: the name of
 * the episode it serves, else its task (a task's tests run alone, or a container of a version
 * that did not label episodes), else its own name.
 */
export function containerName(container: { readonly episode?: string | undefined; readonly task: string; readonly name: string }): string {
  if (container.episode !== undefined && container.episode !== '') return episodeName({ episodeId: container.episode, taskId: container.task });
  return container.task !== '' ? container.task : container.name;
}
