/**
 * TEST PEER for test/integration/ownerDeath.test.ts: a process that owns one Docker sandbox and
 * is then killed. It opens the sandbox through the engine's own opener (`openSandbox`), checks that
 * a command runs, leaves a long command running in an exec session (which must not keep the
 * container alive), prints `{"id": <container id>}` on one line and waits to be killed.
 *
 * Usage: node --import tsx test/integration/ownerDeathPeer.ts <run> <image>
 */
import { sandboxSpecSchema } from '../../server/src/protocol/sandbox.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox } from '../../server/src/sandbox/index.js';

async function main(): Promise<void> {
  const [run = 'owner-death-peer', image = 'graph-planner/repoenv-sample:latest'] = process.argv.slice(2);
  const sandbox = await openSandbox(
    sandboxSpecSchema.parse({ ...defaultSandboxOptions(run), backend: 'docker', image, workdir: '/testbed', run, task: 'owner-death' }),
  );
  const echo = await sandbox.exec('echo ready');
  if (echo.stdout !== 'ready\n') throw new Error(`the sandbox did not run a command: ${JSON.stringify(echo)}`);
  // Its result never comes: the process is killed while it runs.
  sandbox.exec('sleep 600', { timeoutMs: 700_000 }).catch(() => undefined);
  process.stdout.write(`${JSON.stringify({ id: sandbox.id })}\n`);
  // The lifeline does not keep the process running (lifeline.ts), so this does.
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  process.stderr.write(`owner death peer: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
