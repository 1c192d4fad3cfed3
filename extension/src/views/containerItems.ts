/**
 * What the Containers view shows of our containers: the groups by run, each item's label,
 * description, tooltip, icon and the context value its menus match, and the command line of the
 * shell it opens. No `vscode` import, so that `test/unit/extensionContainerItems.test.ts` can check
 * it without an editor.
 */
import type { ContainerInfo } from '../serverMessages.js';
import { compareEpisodes, containerName } from '../../../server/src/protocol/episodeName.js';
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import { escapeMarkdown } from './taskItems.js';

/** The context value of a run's group; `package.json` gives it no item menu today. */
export const containerRunContextValue = 'containerRun';

export interface RunGroup {
  readonly run: string;
  readonly containers: readonly ContainerInfo[];
}

/** The run a container's group is named by; a container without the label still has a home. */
export function runOf(container: ContainerInfo): string {
  return container.run === '' ? '(no run label)' : container.run;
}

/**
 * Containers grouped by run, the run with the newest container first. Within a run, the containers
 * of episodes come in the Runs view's order (by task, then attempt: `protocol/episodeName.ts`),
 * then the others newest first. `created` is an ISO time stamp, so comparing the strings compares
 * the times.
 */
export function groupByRun(containers: readonly ContainerInfo[]): RunGroup[] {
  const groups = new Map<string, ContainerInfo[]>();
  for (const container of containers) {
    const run = runOf(container);
    const group = groups.get(run) ?? [];
    group.push(container);
    groups.set(run, group);
  }
  const ref = (c: ContainerInfo) => ({ episodeId: c.episode ?? '', taskId: c.task });
  const newestFirst = (a: ContainerInfo, b: ContainerInfo) => {
    const episodes = Number(a.episode === undefined) - Number(b.episode === undefined);
    if (episodes !== 0) return episodes;
    return (a.episode !== undefined && b.episode !== undefined ? compareEpisodes(ref(a), ref(b)) : 0) || b.created.localeCompare(a.created);
  };
  const newest = (group: RunGroup) => group.containers[0]?.created ?? '';
  return [...groups].map(([run, list]) => ({ run, containers: [...list].sort(newestFirst) })).sort((a, b) => newest(b).localeCompare(newest(a)));
}

/** `45s`, `12m`, `3h`, `2d`: how long ago `created` was (as `gp containers list` prints it). */
export function formatAge(created: string, now: number): string {
  const ms = now - Date.parse(created);
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/**
 * The context value menus match: `container state-<state> owner-<alive|dead>`. `package.json`
 * enables Open Shell and Stop on `^container\b.*\bstate-running\b`, and the rest on `^container\b`.
 */
export function containerContextValue(container: ContainerInfo): string {
  const state = container.state.replace(/[^a-z]/gi, '').toLowerCase() || 'unknown';
  return `container state-${state} owner-${container.ownerAlive ? 'alive' : 'dead'}`;
}

/** The item's label: the episode it serves, by the name the Runs view gives it; else its task, else its name. */
export function containerLabel(container: ContainerInfo): string {
  return containerName(container);
}

/**
 * `running · 3m · graph-planner/base:latest`: the short facts first and the image, the longest,
 * last, so a side bar at its default width cuts only the image (the tooltip names it). An orphan
 * says so right after its state (`exited · owner gone · 3m · …`), and a sandbox host's container
 * names its Ray node before the image (`· node worker-2 ·`).
 */
export function containerDescription(container: ContainerInfo, now: number): string {
  const parts = [
    container.state,
    ...(container.ownerAlive ? [] : ['owner gone']),
    formatAge(container.created, now),
    ...(container.node === undefined ? [] : [`node ${shortNodeName(container.node)}`]),
    container.image,
  ];
  return parts.join(' · ');
}

/** A theme icon id and colour id by state; an orphan is marked whatever its state. */
export function containerIcon(container: ContainerInfo): { readonly id: string; readonly color: string | undefined } {
  if (!container.ownerAlive) return { id: 'warning', color: 'problemsWarningIcon.foreground' };
  switch (container.state) {
    case 'running':
      return { id: 'vm-running', color: 'testing.iconPassed' };
    case 'paused':
      return { id: 'debug-pause', color: undefined };
    case 'restarting':
    case 'created':
      return { id: 'vm-outline', color: undefined };
    case 'dead':
      return { id: 'error', color: 'problemsErrorIcon.foreground' };
    default:
      return { id: 'vm-outline', color: 'disabledForeground' };
  }
}

/** The tooltip of a container, as Markdown. */
export function containerTooltip(container: ContainerInfo, now: number): string {
  const owner = container.pid === null ? 'unknown (no pid label)' : `pid ${container.pid} on ${container.host || 'an unknown host'}`;
  const rows: [string, string][] = [
    ['Episode', container.episode ?? '— (not an episode’s)'],
    ['Task', container.task || '—'],
    ['Run', container.run || '—'],
    ['State', `${container.state} (${container.status})`],
    ['Image', container.image],
    ['Name', container.name],
    ['Id', container.id.slice(0, 12)],
    ['Created', `${container.created} (${formatAge(container.created, now)} ago)`],
    ['Owner', `${owner}, ${container.ownerAlive ? 'running' : 'gone: Reap Orphaned Containers removes it'}`],
  ];
  // Only a container a sandbox host made has a node; one made in the launching process says nothing of it.
  if (container.node !== undefined) rows.push(['Ray node', container.node]);
  return rows.map(([key, value]) => `**${key}:** ${escapeMarkdown(value)}`).join('  \n');
}

/** `3 containers · 1 running · 1 orphaned`: a run group's description. */
export function runDescription(group: RunGroup): string {
  const running = group.containers.filter((c) => c.state === 'running').length;
  const orphans = group.containers.filter((c) => !c.ownerAlive).length;
  const parts = [`${group.containers.length} container${group.containers.length === 1 ? '' : 's'}`, `${running} running`];
  if (orphans > 0) parts.push(`${orphans} orphaned`);
  return parts.join(' · ');
}

/** The terminal's name says which task's container the shell is in. */
export function shellTerminalName(container: ContainerInfo): string {
  return `Graph Planner: ${containerLabel(container)} (${container.id.slice(0, 12)})`;
}

/**
 * `docker exec -it <id> sh -c '…'`: bash when the image has it, else sh. Run as a program with
 * arguments, not typed into a shell, so nothing is quoted; the docker CLI reads DOCKER_HOST from
 * the terminal's environment.
 */
export function shellCommand(container: ContainerInfo): { readonly program: string; readonly args: readonly string[] } {
  return { program: 'docker', args: ['exec', '-it', container.id, 'sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash; else exec sh; fi'] };
}

/** The question asked before removing a container. */
export function removeQuestion(container: ContainerInfo): string {
  const running = container.state === 'running' ? ' It is running and will be stopped first;' : '';
  return `Remove the container of ${containerLabel(container)} (${container.id.slice(0, 12)}, run ${runOf(container)})?${running} its files are lost.`;
}

/** The question asked before reaping, from what the view shows now. */
export function reapQuestion(containers: readonly ContainerInfo[]): string | undefined {
  const orphans = containers.filter((c) => !c.ownerAlive);
  if (orphans.length === 0) return undefined;
  const runs = [...new Set(orphans.map(runOf))];
  const shownRuns = runs.slice(0, 3).join(', ') + (runs.length > 3 ? ` and ${runs.length - 3} more` : '');
  return `Remove ${orphans.length} container${orphans.length === 1 ? '' : 's'} whose owner process is gone (run${runs.length === 1 ? '' : 's'} ${shownRuns})?`;
}

/**
 * The containers the view shows: with the "this workspace's runs" filter on, those whose run folder
 * the server found under the workspace's run roots (`inWorkspace`); the others are counted as hidden.
 */
export function filterContainers(
  containers: readonly ContainerInfo[],
  workspaceOnly: boolean,
): { readonly shown: readonly ContainerInfo[]; readonly hidden: number } {
  if (!workspaceOnly) return { shown: containers, hidden: 0 };
  const shown = containers.filter((c) => c.inWorkspace === true);
  return { shown, hidden: containers.length - shown.length };
}

/** The view's description: which runs it shows and how many containers the filter hides. */
export function filterDescription(workspaceOnly: boolean, hidden: number): string {
  if (!workspaceOnly) return "every run's containers";
  return hidden === 0 ? "this workspace's runs" : `this workspace's runs · ${hidden} hidden`;
}
