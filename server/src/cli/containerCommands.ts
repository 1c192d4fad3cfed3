/**
 * `gp containers list` and `gp containers reap`: our labelled containers, and removing the ones a
 * crashed run left behind. Exit codes: 0 when it worked, 1 when the daemon does not answer or a
 * container could not be removed, 2 for a usage error.
 */
import { containerName } from '../protocol/episodeName.js';
import type { ContainerInfo } from '../protocol/sandbox.js';
import { listContainers, reapContainers, type ReapOptions, type ReapResult } from '../sandbox/index.js';
import { usageError as printUsageError } from './args.js';
import { parseCliArgs } from './imageCommands.js';
import { plural, type Io } from './output.js';
import { errorMessage } from '../util/errors.js';

export const containersListUsage = `gp containers list [--all] [--run NAME] [--json]
      Containers of ours (labelled graph-planner.run) and whether their owner lives.`;

export const containersListOptions = { all: { type: 'boolean' }, run: { type: 'string' }, json: { type: 'boolean' } } as const;

export const containersReapOptions = {
  'dry-run': { type: 'boolean' },
  run: { type: 'string' },
  'include-live': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export const containersReapUsage = `gp containers reap [--dry-run] [--run NAME] [--include-live] [--json]
      Remove containers whose owning process is gone (orphans of crashed runs).`;

function usageError(io: Io, command: 'containers list' | 'containers reap', message: string): number {
  return printUsageError({ name: command, usage: command === 'containers list' ? containersListUsage : containersReapUsage }, io, [message]);
}

/** `45s`, `12m`, `3h`, `2d`: how long ago `created` was. */
export function formatAge(created: string, now: number = Date.now()): string {
  const ms = now - Date.parse(created);
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function owner(c: ContainerInfo): string {
  return c.ownerAlive ? 'alive' : 'dead';
}

/** A table with columns padded to their widest cell; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '));
}

/**
 * One row per container. The NODE column (the Ray node whose sandbox host made it, issue 22) is
 * there only when some container has one, so a list outside a cluster keeps its width.
 */
export function containerTable(containers: readonly ContainerInfo[], now: number = Date.now()): string[] {
  const withNode = containers.some((c) => c.node !== undefined);
  const node = (c: ContainerInfo) => (withNode ? [c.node ?? '-'] : []);
  // The episode's name, as the Runs view and the Containers view give it; the task where no episode is labelled.
  const header = ['ID', 'RUN', 'EPISODE', ...(withNode ? ['NODE'] : []), 'STATE', 'OWNER', 'AGE'];
  return formatTable([
    header,
    ...containers.map((c) => [c.id.slice(0, 12), c.run, containerName(c), ...node(c), c.state, owner(c), formatAge(c.created, now)]),
  ]);
}

/** `gp containers list [--all] [--run NAME] [--json]` */
export async function containersList(args: readonly string[], io: Io): Promise<number> {
  const parsed = parseCliArgs({ args: [...args], options: containersListOptions, strict: true });
  if (!parsed.ok) return usageError(io, 'containers list', parsed.message);
  const { all, run, json } = parsed.value.values;
  let containers: ContainerInfo[];
  try {
    containers = await listContainers(run === undefined ? { all: all === true } : { all: all === true, run });
  } catch (error) {
    io.err(errorMessage(error));
    return 1;
  }
  if (json === true) io.out(JSON.stringify(containers, null, 2));
  else if (containers.length === 0)
    io.out(all === true ? 'No graph-planner containers.' : 'No running graph-planner containers (--all shows stopped ones too).');
  else for (const line of containerTable(containers)) io.out(line);
  return 0;
}

function describeOwner(c: ContainerInfo): string {
  if (c.pid === null) return 'no owner label';
  return `owner pid ${c.pid} on ${c.host || 'unknown host'} ${c.ownerAlive ? 'runs' : 'is gone'}`;
}

function printReap(result: ReapResult, io: Io): void {
  const verb = result.dryRun ? 'would remove' : 'removed';
  for (const c of result.removed) io.out(`${verb} ${c.id.slice(0, 12)} ${c.run}/${containerName(c)} (${c.state}; ${describeOwner(c)})`);
  for (const f of result.failed) io.out(`failed to remove ${f.container.id.slice(0, 12)} ${f.container.run}/${containerName(f.container)}: ${f.error}`);
  const kept = result.kept.length > 0 ? `; ${plural(result.kept.length, 'container')} kept because the owner runs` : '';
  const failed = result.failed.length > 0 ? `; ${result.failed.length} could not be removed` : '';
  io.out(`${result.dryRun ? 'Dry run: would remove' : 'Removed'} ${plural(result.removed.length, 'container')}${failed}${kept}.`);
}

/** `gp containers reap [--dry-run] [--run NAME] [--include-live] [--json]` */
export async function containersReap(args: readonly string[], io: Io): Promise<number> {
  const parsed = parseCliArgs({
    args: [...args],
    options: containersReapOptions,
    strict: true,
  });
  if (!parsed.ok) return usageError(io, 'containers reap', parsed.message);
  const { run, json } = parsed.value.values;
  const dryRun = parsed.value.values['dry-run'] === true;
  const includeLive = parsed.value.values['include-live'] === true;
  let options: ReapOptions;
  if (includeLive) {
    // Without a run this would remove every live container on the engine, other people's included.
    if (run === undefined)
      return usageError(io, 'containers reap', "--include-live needs --run NAME: it removes that run's containers even while their owner runs.");
    options = { dryRun, run, includeLive };
  } else options = run === undefined ? { dryRun } : { dryRun, run };
  let result: ReapResult;
  try {
    result = await reapContainers(options);
  } catch (error) {
    io.err(errorMessage(error));
    return 1;
  }
  if (json === true) io.out(JSON.stringify(result, null, 2));
  else printReap(result, io);
  return result.failed.length > 0 ? 1 : 0;
}
