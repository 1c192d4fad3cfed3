/**
 * `gp ray slots`: how many sandboxes this machine offers as a Ray node, and the `ray start`
 * argument that advertises them (the custom resource `gp_sandbox_slots`, which the capacity
 * preflight and the sandbox hosts read). The arithmetic is sandbox/slots.ts's, from this machine's
 * CPUs and memory and what one sandbox of the config's `sandbox` section counts as on its backend
 * (launch/sandboxSlots.ts).
 */
import { availableParallelism, totalmem } from 'node:os';
import { parseConfigFlags, type ExperimentConfig } from '../config/index.js';
import { loadConfig, sandboxSlots, slotShare } from '../launch/index.js';
import { sandboxSlotsResource } from '../protocol/rayCluster.js';
import { nodeReserve, type NodeResources, type SlotCount } from '../sandbox/index.js';
import { parseCommandArgs, usageError } from './args.js';
import { printConfigFindings } from './configFindings.js';
import { intFlag, plural, type Io } from './output.js';

export const raySlotsUsage = `gp ray slots [CONFIG] [--config YAML] [--slots N] [--json]
      Print how many sandboxes this machine offers as a Ray node, from its CPUs and memory
      and the config's sandbox section (the defaults without one): what the node keeps for
      itself, what one sandbox counts as (min(1, sandbox.cpus) cores, since a CPU limit caps
      bursts and a sandbox uses about one core steadily; sandbox.memory), which ran out first,
      and the argument that advertises the slots to Ray:
        ray start ... --resources '{"${sandboxSlotsResource}": N}'
      --slots N gives the number instead.`;

/** The options of `gp ray slots` besides the config flags, which are parsed first. */
export const raySlotsOptions = { config: { type: 'string' }, slots: { type: 'string' }, json: { type: 'boolean' } } as const;

const usage = { name: 'ray slots', usage: raySlotsUsage };

/** This machine, as Node sees it (CPUs this process may use, all of its memory). */
export function thisMachine(): NodeResources {
  return { cpus: availableParallelism(), memoryBytes: totalmem() };
}

/** The `ray start` words that advertise `slots`, and the same as one shell-quoted argument. */
export function rayStartResources(slots: number): { readonly args: readonly string[]; readonly shell: string } {
  const json = JSON.stringify({ [sandboxSlotsResource]: slots }).replace(':', ': ');
  return { args: ['--resources', json], shell: `--resources '${json}'` };
}

function gib(bytes: number): string {
  const value = bytes / 1024 ** 3;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} GiB`;
}

function cpus(n: number): string {
  return plural(Number.isInteger(n) ? n : Number(n.toFixed(2)), 'CPU');
}

function reasonLine(count: SlotCount, machine: NodeResources, sandbox: ExperimentConfig['sandbox']): string {
  if (count.limitedBy === 'override') return 'given with --slots';
  const reserve = nodeReserve(machine);
  const share = slotShare(sandbox);
  if (count.limitedBy === 'cpus') return `limited by cpus: ${cpus(machine.cpus)} less ${cpus(reserve.cpus)} kept for the node, ${cpus(share.cpus)} per sandbox`;
  return `limited by memory: ${gib(machine.memoryBytes)} less ${gib(reserve.memoryBytes)} kept for the node, ${gib(share.memoryBytes ?? 0)} per sandbox`;
}

function report(count: SlotCount, machine: NodeResources, sandbox: ExperimentConfig['sandbox']): Record<string, unknown> {
  const reserve = nodeReserve(machine);
  const share = slotShare(sandbox);
  const resources = rayStartResources(count.slots);
  return {
    slots: count.slots,
    limited_by: count.limitedBy,
    resource: sandboxSlotsResource,
    ray_start_args: resources.args,
    ray_start_argument: resources.shell,
    machine: { cpus: machine.cpus, memory_bytes: machine.memoryBytes },
    reserve: { cpus: reserve.cpus, memory_bytes: reserve.memoryBytes },
    per_slot: { cpus: share.cpus, memory_bytes: share.memoryBytes ?? null },
    sandbox: { cpus: sandbox.cpus, memory: sandbox.memory },
  };
}

function printText(count: SlotCount, machine: NodeResources, sandbox: ExperimentConfig['sandbox'], io: Io): void {
  const share = slotShare(sandbox);
  const memory =
    share.memoryBytes === undefined ? 'memory not counted (sandbox.memory null)' : `${gib(share.memoryBytes)} (sandbox.memory ${sandbox.memory ?? ''})`;
  io.out(`this machine: ${cpus(machine.cpus)}, ${gib(machine.memoryBytes)} of memory`);
  io.out(`one sandbox counts as ${cpus(share.cpus)} (sandbox.cpus ${sandbox.cpus ?? 'null'}) and ${memory}`);
  io.out(`sandbox slots: ${count.slots} (${reasonLine(count, machine, sandbox)})`);
  if (count.slots === 0) {
    io.out('This machine has no room for a sandbox: start its Ray node without the resource, lower sandbox.cpus or sandbox.memory, or give --slots N.');
    return;
  }
  io.out('Advertise them when this node joins Ray (with --head or --address HEAD:6379 as usual):');
  io.out(`  ray start ${rayStartResources(count.slots).shell}`);
}

/** `gp ray slots [CONFIG] [--config YAML] [--slots N] [--json]`; `machine` is this one outside tests. */
export async function raySlots(argv: readonly string[], io: Io, cwd: string, machine: NodeResources = thisMachine()): Promise<number> {
  const config = parseConfigFlags(argv);
  const args = parseCommandArgs(usage, config.rest, raySlotsOptions, io);
  if (!args.ok) return args.exit;
  const errors = [...args.errors, ...config.errors];
  if (args.positionals.length > 1) errors.push('name one experiment config.');
  const slots = intFlag('--slots', args.values.slots, errors, 0);
  if (errors.length > 0) return usageError(usage, io, errors);
  const file = args.values.config ?? args.positionals[0] ?? config.flags.configFile;
  const loaded = await loadConfig({ file, flags: config.flags, cwd, disk: false });
  if (loaded.kind === 'unreadable') {
    io.err(`${loaded.file}: ${loaded.message}.`);
    return 2;
  }
  const { resolution } = loaded;
  printConfigFindings(file ?? 'gp ray slots', resolution, io);
  if (resolution.verdict === 'errors' || resolution.config === undefined) {
    io.err('gp ray slots: the config has errors.');
    return 2;
  }
  const sandbox = resolution.config.sandbox;
  const count = sandboxSlots(machine, sandbox, slots);
  if (args.values.json === true) io.out(JSON.stringify(report(count, machine, sandbox), null, 2));
  else printText(count, machine, sandbox, io);
  return 0;
}
