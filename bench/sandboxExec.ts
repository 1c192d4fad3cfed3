/**
 * Command round trip: our `sandbox.exec` (a command written to the sandbox's persistent shell
 * session) against a raw Docker exec in the same container (create, start, read the stream to its
 * end, inspect for the exit code), which is what running a command costs without the session.
 * Every call of ours is checked: `true` must give exit 0 and no output, and a second series runs
 * `printf "%s" i; printf "e%s" i >&2; exit i%7` and must give back exactly i, ei and i%7.
 */
import type Docker from 'dockerode';
import { DockerSandbox } from '../server/src/sandbox/dockerSandbox.js';
import type { BenchResult } from './result.js';
import { percentiles } from './stats.js';
import { benchSpec, drain, Mismatches, sig3, spreadDetails, timed, type SandboxBench } from './sandboxSupport.js';

export const execFigureName = 'sandbox-exec-round-trip';

const goalRatio = 0.1;
const rounds = 10;
// Per round: ours runs twice as many `true` calls as the anchor, since each costs far less.
const oursPerRound = 20;
const checkedPerRound = 20;
const rawPerRound = 10;
const oursWarmup = 20;
const rawWarmup = 10;

/** One raw Docker exec of `true`; its exit code, or null when the engine did not report one. */
async function rawTrue(container: Docker.Container): Promise<number | null> {
  const exec = await container.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
  await drain(await exec.start({}));
  return (await exec.inspect()).ExitCode;
}

async function oursTrue(sandbox: DockerSandbox, checks: Mismatches): Promise<void> {
  const r = await sandbox.exec(['true']);
  checks.check(
    'ours',
    r.exitCode === 0 && r.stdout === '' && r.stderr === '',
    () => `true gave exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`,
  );
}

async function oursChecked(sandbox: DockerSandbox, i: number, checks: Mismatches): Promise<void> {
  const r = await sandbox.exec(`printf "%s" ${i}; printf "e%s" ${i} >&2; exit ${i % 7}`);
  const ok = r.stdout === String(i) && r.stderr === `e${i}` && r.exitCode === i % 7;
  checks.check('ours', ok, () => `call ${i} gave exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`);
}

async function anchorTrue(container: Docker.Container, checks: Mismatches): Promise<void> {
  const code = await rawTrue(container);
  checks.check('anchor', code === 0, () => `raw exec of true reported exit code ${code}`);
}

export async function benchExecRoundTrip(bench: SandboxBench): Promise<BenchResult> {
  const sandbox = await DockerSandbox.open(benchSpec(bench, 'exec-round-trip'));
  try {
    const container = bench.docker.getContainer(sandbox.id);
    const checks = new Mismatches();
    for (let i = 0; i < oursWarmup; i++) await oursTrue(sandbox, checks);
    for (let i = 0; i < rawWarmup; i++) await anchorTrue(container, checks);
    const ours: number[] = [];
    const checked: number[] = [];
    const raw: number[] = [];
    // Rounds interleave the two, so that other work on the machine falls on both alike.
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < oursPerRound; i++) ours.push((await timed(() => oursTrue(sandbox, checks))).ms);
      for (let i = 0; i < checkedPerRound; i++) {
        const n = round * checkedPerRound + i;
        checked.push((await timed(() => oursChecked(sandbox, n, checks))).ms);
      }
      for (let i = 0; i < rawPerRound; i++) raw.push((await timed(() => anchorTrue(container, checks))).ms);
    }
    bench.log(`sandbox: exec round trip measured (${ours.length} + ${checked.length} ours, ${raw.length} raw)`);
    const oursP50 = percentiles(ours).p50;
    const rawP50 = percentiles(raw).p50;
    const ratio = oursP50 / rawP50;
    return {
      name: execFigureName,
      what: `one command in a running ${benchSpec(bench, 'x').image} container, p50 of ${ours.length} calls of ours (\`sandbox.exec(['true'])\` through the shell session) vs ${raw.length} raw Docker execs of \`true\` (create + start + read to end + inspect) in the same container; every call of ours checked`,
      unit: 'ms',
      ours: sig3(oursP50),
      anchor: sig3(rawP50),
      anchorName: 'dockerode exec create+start+inspect',
      ratio,
      goal: `ratio <= ${goalRatio}`,
      pass: ratio <= goalRatio && checks.total === 0,
      details: {
        ...spreadDetails('ours', ours),
        ...spreadDetails('oursChecked', checked),
        ...spreadDetails('anchor', raw),
        ...checks.details('ours', 'anchor'),
        oursCheckedCommand: 'printf "%s" i; printf "e%s" i >&2; exit i%7',
      },
    };
  } finally {
    await sandbox.close();
  }
}
