/**
 * The local backend's command round trip under bubblewrap against plain spawning
 * (`localSandbox.ts`, `bubblewrap.ts`, `holderShell.ts`): two sandboxes on working copies of the
 * sample repository, one whose commands run in its session inside its one bwrap (own user, PID,
 * IPC, UTS and network namespaces, a fresh /proc and /dev, the mounts) and one opened with the
 * isolation off, as on a machine without bubblewrap.
 * Rounds interleave the two; every call is checked (`true` gives exit 0 and no output, and a
 * second series gives back exactly i, ei and i%7). Needs no Docker.
 */
import { join, resolve } from 'node:path';
import { sandboxSpecSchema } from '../server/src/protocol/sandbox.js';
import { LocalSandbox, localIsolation } from '../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../server/src/launch/index.js';
import type { BenchResult } from './result.js';
import { percentiles } from './stats.js';
import { Mismatches, sig3, spreadDetails, timed } from './sandboxSupport.js';

export const localExecFigureName = 'local-sandbox-exec-round-trip';

const goalRatio = 1.5;
const rounds = 10;
const perRound = 15;
const warmup = 10;

function localSpec(task: string) {
  const localRepo = join(resolve(__dirname, '..'), 'docker', 'repoenv_sample', 'sample_repo');
  return sandboxSpecSchema.parse({ ...defaultSandboxOptions(), backend: 'local', localRepo, workdir: '/testbed', run: `bench-local-${process.pid}`, task });
}

async function trueCall(sandbox: LocalSandbox, who: string, checks: Mismatches): Promise<void> {
  const r = await sandbox.exec(['true']);
  checks.check(
    who,
    r.exitCode === 0 && r.stdout === '' && r.stderr === '',
    () => `true gave exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`,
  );
}

async function checkedCall(sandbox: LocalSandbox, i: number, checks: Mismatches): Promise<void> {
  const r = await sandbox.exec(`printf "%s" ${i}; printf "e%s" ${i} >&2; exit ${i % 7}`);
  checks.check(
    'ours',
    r.stdout === String(i) && r.stderr === `e${i}` && r.exitCode === i % 7,
    () => `call ${i} gave exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`,
  );
}

export async function benchLocalExecRoundTrip(log: (line: string) => void): Promise<BenchResult> {
  const isolation = await localIsolation();
  if (isolation.kind === 'none') throw new Error(`bubblewrap cannot run here: ${isolation.reason}`);
  const isolated = await LocalSandbox.open(localSpec('bench-bwrap'), { isolation });
  const plain = await LocalSandbox.open(localSpec('bench-plain'), { isolation: { kind: 'none', reason: 'the anchor' } });
  try {
    const checks = new Mismatches();
    for (let i = 0; i < warmup; i++) {
      await trueCall(isolated, 'ours', checks);
      await trueCall(plain, 'anchor', checks);
    }
    const ours: number[] = [];
    const anchor: number[] = [];
    const checked: number[] = [];
    // Rounds interleave the two, so that other work on the machine falls on both alike.
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < perRound; i++) ours.push((await timed(() => trueCall(isolated, 'ours', checks))).ms);
      for (let i = 0; i < perRound; i++) anchor.push((await timed(() => trueCall(plain, 'anchor', checks))).ms);
      for (let i = 0; i < perRound; i++) checked.push((await timed(() => checkedCall(isolated, round * perRound + i, checks))).ms);
    }
    log(`sandbox: local round trip measured (${ours.length} under bubblewrap, ${anchor.length} plain)`);
    const oursP50 = percentiles(ours).p50;
    const anchorP50 = percentiles(anchor).p50;
    const ratio = oursP50 / anchorP50;
    return {
      name: localExecFigureName,
      what: `one command on the local backend, p50 of ${ours.length} \`sandbox.exec(['true'])\` under bubblewrap (the sandbox's bash session inside its one ${isolation.bwrap}: user, PID, IPC, UTS and network namespaces, fresh /proc and /dev, the mounts) vs ${anchor.length} in a sandbox with the isolation off (spawning bash as before); every call checked`,
      unit: 'ms',
      ours: sig3(oursP50),
      anchor: sig3(anchorP50),
      anchorName: 'plain spawn of bash (no bubblewrap)',
      ratio,
      goal: `ratio <= ${goalRatio}`,
      pass: ratio <= goalRatio && checks.total === 0,
      details: {
        ...spreadDetails('ours', ours),
        ...spreadDetails('oursChecked', checked),
        ...spreadDetails('anchor', anchor),
        ...checks.details('ours', 'anchor'),
      },
    };
  } finally {
    await isolated.close();
    await plain.close();
  }
}
