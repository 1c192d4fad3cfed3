/**
 * The sandbox runtime's figures (`--only sandbox`): command round trip (`sandboxExec.ts`), sandbox
 * ready and reset (`sandboxLifecycle.ts`) and tree copy in and out (`sandboxCopy.ts`), each against
 * an anchor measured in the same run on the same Docker engine and image; and the local backend's
 * round trip under bubblewrap against plain spawning (`localSandboxExec.ts`), which needs no Docker.
 *
 * Every container this creates carries `graph-planner.run=bench-sandbox-<pid>`; whatever a figure
 * leaves behind, even after a failure, is removed here at the end. Without a daemon or without the
 * sample image the figures are listed as not measured, with the reason.
 * Runnable on its own: `npx tsx bench/sandboxFigures.ts` prints the outcome as JSON.
 */
import type Docker from 'dockerode';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { benchTreeCopy, copyFigureName } from './sandboxCopy.js';
import { benchExecRoundTrip, execFigureName } from './sandboxExec.js';
import { benchLocalExecRoundTrip, localExecFigureName } from './localSandboxExec.js';
import { benchLifecycle, readyFigureName, resetFigureName } from './sandboxLifecycle.js';
import { removeLeftovers, sampleImage, type SandboxBench } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';
import { errorMessage } from '../server/src/util/errors.js';

interface Group {
  readonly names: readonly string[];
  readonly run: (bench: SandboxBench) => Promise<FigureOutcome>;
}

const groups: readonly Group[] = [
  { names: [execFigureName], run: async (bench) => ({ results: [await benchExecRoundTrip(bench)], notMeasured: [] }) },
  { names: [readyFigureName, resetFigureName], run: async (bench) => ({ results: await benchLifecycle(bench), notMeasured: [] }) },
  { names: [copyFigureName], run: benchTreeCopy },
];

const allNames = groups.flatMap((g) => g.names);

function notMeasured(names: readonly string[], reason: string): FigureOutcome {
  return { results: [], notMeasured: names.map((name) => ({ name, reason })) };
}

/** A connected client when the daemon answers and has the sample image; otherwise why not. */
async function connectForBench(): Promise<{ reason: string } | { docker: Docker }> {
  let docker: Docker;
  try {
    ({ docker } = await connectDocker());
  } catch (error) {
    return { reason: errorMessage(error) };
  }
  try {
    await docker.getImage(sampleImage).inspect();
  } catch {
    return { reason: `image ${sampleImage} is not on this Docker engine; build it with \`npx tsx scripts/buildImages.ts\`` };
  }
  return { docker };
}

export async function benchSandbox(log: (line: string) => void): Promise<FigureOutcome> {
  let local: FigureOutcome;
  try {
    local = { results: [await benchLocalExecRoundTrip(log)], notMeasured: [] };
  } catch (error) {
    local = notMeasured([localExecFigureName], errorMessage(error));
  }
  const docker = await benchDockerSandbox(log);
  return { results: [...local.results, ...docker.results], notMeasured: [...local.notMeasured, ...docker.notMeasured] };
}

async function benchDockerSandbox(log: (line: string) => void): Promise<FigureOutcome> {
  const found = await connectForBench();
  if ('reason' in found) return notMeasured(allNames, found.reason);
  const bench: SandboxBench = { docker: found.docker, run: `bench-sandbox-${process.pid}`, log };
  log(`sandbox: measuring on ${sampleImage}, containers labelled graph-planner.run=${bench.run}`);
  const outcomes: FigureOutcome[] = [];
  try {
    for (const group of groups) {
      try {
        outcomes.push(await group.run(bench));
      } catch (error) {
        outcomes.push(notMeasured(group.names, errorMessage(error)));
      }
    }
  } finally {
    const left = await removeLeftovers(bench);
    if (left > 0) log(`sandbox: removed ${left} container(s) a figure left behind`);
  }
  return { results: outcomes.flatMap((o) => o.results), notMeasured: outcomes.flatMap((o) => o.notMeasured) };
}

if (require.main === module) {
  benchSandbox((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
