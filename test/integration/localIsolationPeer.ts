/**
 * The launching process of test/integration/localIsolation.test.ts's secret test: started with
 * secrets in its environment (where /proc/<pid>/environ shows them, which assigning to
 * `process.env` later would not), it opens a local sandbox on the sample repository, runs the
 * command given as its one argument, and prints the result as JSON.
 */
import { join, resolve } from 'node:path';
import { sandboxSpecSchema } from '../../server/src/protocol/index.js';
import { LocalSandbox } from '../../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'true';
  const localRepo = join(resolve(__dirname, '..', '..'), 'docker', 'repoenv_sample', 'sample_repo');
  const spec = sandboxSpecSchema.parse({
    ...defaultSandboxOptions(),
    backend: 'local',
    localRepo,
    workdir: '/testbed',
    run: 'test-local-isolation',
    task: 'local-isolation-peer',
  });
  const sb = await LocalSandbox.open(spec);
  try {
    const r = await sb.exec(command);
    process.stdout.write(JSON.stringify({ isolation: sb.isolation.kind, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }));
  } finally {
    await sb.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
