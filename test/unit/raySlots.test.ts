/**
 * `gp ray slots`: this machine's sandbox slots from its CPUs and memory and the config's sandbox
 * section, why that many, and the `ray start` argument that advertises them to Ray.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { raySlots, rayStartResources } from '../../server/src/cli/rayCommands.js';

const GiB = 1024 ** 3;
const dir = mkdtempSync(join(tmpdir(), 'gp-ray-slots-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

test('a 2-core machine with the default sandbox offers one slot, limited by CPUs, and prints the ray start argument', async () => {
  const { io: cli, out, err } = io();
  const code = await raySlots([], cli, dir, { cpus: 2, memoryBytes: 24 * GiB });
  assert.equal(code, 0, err.join('\n'));
  assert.deepEqual(out, [
    'this machine: 2 CPUs, 24 GiB of memory',
    'one sandbox counts as 1 CPU (sandbox.cpus 2) and 4 GiB (sandbox.memory 4GiB)',
    'sandbox slots: 1 (limited by cpus: 2 CPUs less 1 CPU kept for the node, 1 CPU per sandbox)',
    'Advertise them when this node joins Ray (with --head or --address HEAD:6379 as usual):',
    `  ray start --resources '{"gp_sandbox_slots": 1}'`,
  ]);
});

test('the config’s sandbox memory can be what runs out first, and --json says so for a script', async () => {
  const config = join(dir, 'big.yaml');
  writeFileSync(config, 'sandbox:\n  cpus: 1\n  memory: 16GiB\n');
  const { io: cli, out, err } = io();
  assert.equal(await raySlots([config, '--json'], cli, dir, { cpus: 16, memoryBytes: 64 * GiB }), 0, err.join('\n'));
  const report = JSON.parse(out.join('\n')) as Record<string, unknown>;
  assert.equal(report['slots'], 3);
  assert.equal(report['limited_by'], 'memory');
  assert.equal(report['resource'], 'gp_sandbox_slots');
  assert.deepEqual(report['ray_start_args'], ['--resources', '{"gp_sandbox_slots": 3}']);
  assert.equal(report['ray_start_argument'], `--resources '{"gp_sandbox_slots": 3}'`);
  assert.deepEqual(report['per_slot'], { cpus: 1, memory_bytes: 16 * GiB });
});

test('--slots gives the number, and config flags change the sandbox as a launch would', async () => {
  const given = io();
  assert.equal(await raySlots(['--slots', '6'], given.io, dir, { cpus: 2, memoryBytes: 8 * GiB }), 0);
  assert.match(given.out.join('\n'), /sandbox slots: 6 \(given with --slots\)\n.*\n {2}ray start --resources '\{"gp_sandbox_slots": 6\}'/);
  const flagged = io();
  assert.equal(await raySlots(['--set', 'sandbox.memory=8GiB', '--set', 'sandbox.cpus=0.5'], flagged.io, dir, { cpus: 16, memoryBytes: 128 * GiB }), 0);
  assert.match(
    flagged.out.join('\n'),
    /one sandbox counts as 0\.5 CPUs \(sandbox\.cpus 0\.5\) and 8 GiB.*\nsandbox slots: 14 \(limited by memory: 128 GiB less 16 GiB kept for the node, 8 GiB per sandbox\)/,
  );
});

test('a machine with no room for a sandbox says so instead of advertising zero', async () => {
  const { io: cli, out } = io();
  assert.equal(await raySlots([], cli, dir, { cpus: 1, memoryBytes: 4 * GiB }), 0);
  assert.match(out.join('\n'), /sandbox slots: 0 .*\nThis machine has no room for a sandbox/);
  assert.doesNotMatch(out.join('\n'), /ray start/);
});

test('a bad --slots or an unreadable config is refused with exit 2', async () => {
  const bad = io();
  assert.equal(await raySlots(['--slots=-1'], bad.io, dir), 2);
  assert.match(bad.err.join('\n'), /gp ray slots: --slots needs an integer of at least 0, not '-1'\.\nUsage: gp ray slots/);
  const missing = io();
  assert.equal(await raySlots([join(dir, 'missing.yaml')], missing.io, dir), 2);
  assert.match(missing.err.join('\n'), /missing\.yaml: cannot read it/);
});

test('gp ray slots is a command of the CLI, listed under gp ray', async () => {
  const { io: cli, out } = io();
  assert.equal(await runCli(['ray', '--help'], cli, resolve('.')), 0);
  assert.match(out.join('\n'), /gp ray slots \[CONFIG\] \[--config YAML\] \[--slots N\] \[--json\]/);
  assert.deepEqual(rayStartResources(4).args, ['--resources', '{"gp_sandbox_slots": 4}']);
});
