/**
 * `gp task test FILE [--task ID]... [--patch DIFF] [flags]`: opens each task's sandbox, applies
 * an optional patch, runs the task's tests, grades them per test and records the run. It is how
 * a person checks a dataset row, an image or a candidate fix without starting a rollout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { experimentConfigSchema } from '../config/index.js';
import { sandboxBackendSchema } from '../protocol/sandbox.js';
import { openSandbox, sandboxSpecForTask, SandboxError, type Sandbox } from '../sandbox/index.js';
import { loadTasks } from '../tasks/index.js';
import { gradeInstance, gradePassed, runTaskTests, writeInstanceReport, type TestRun } from '../testing/index.js';
import { plural, type Io } from './output.js';
import { sandboxOptionsFromConfig } from './sandboxOptions.js';

const help = `gp task test FILE [--task ID]... [--patch DIFF] [--backend auto|docker|local]
            [--config YAML] [--run-dir DIR] [--timeout S] [--json]`;

function describeRun(run: TestRun): string[] {
  const r = run.record;
  const lines = Object.entries(r.tests).map(([id, status]) => `  ${status.padEnd(7)} ${id}`);
  const g = r.grade;
  const verdict =
    g.kind === 'swebench'
      ? `${g.resolution}${g.report.resolved ? ' (resolved)' : ''}: FAIL_TO_PASS ${g.report.tests_status?.FAIL_TO_PASS.success.length ?? 0}/${(g.report.tests_status?.FAIL_TO_PASS.success.length ?? 0) + (g.report.tests_status?.FAIL_TO_PASS.failure.length ?? 0)} pass, PASS_TO_PASS ${g.report.tests_status?.PASS_TO_PASS.failure.length ?? 0} broken`
      : g.kind === 'r2e'
        ? `R2E reward ${g.grade.reward}${g.grade.mismatched.length ? `, ${plural(g.grade.mismatched.length, 'mismatch')}` : ''}${g.grade.missing.length ? `, ${g.grade.missing.length} missing` : ''}`
        : g.kind === 'log'
          ? `${g.passed ? 'passed' : 'failed'}: ${g.reason}`
          : `not gradable: ${g.reason}`;
  return [...lines, `  ${verdict} [${r.backend}, ${(r.durationMs / 1000).toFixed(1)} s${r.timedOut ? ', timed out' : ''}]`];
}

export async function taskTest(args: readonly string[], io: Io, cwd: string): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        task: { type: 'string', multiple: true },
        patch: { type: 'string' },
        backend: { type: 'string' },
        config: { type: 'string' },
        'run-dir': { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    io.err(`gp task test: ${(error as Error).message}\nUsage: ${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) {
    io.err(`gp task test: name one dataset file.\nUsage: ${help}`);
    return 2;
  }
  const backend = values.backend === undefined ? undefined : sandboxBackendSchema.safeParse(values.backend);
  if (backend && !backend.success) {
    io.err(`gp task test: --backend must be auto, docker or local, not ${values.backend}.`);
    return 2;
  }
  let config = experimentConfigSchema.parse({});
  if (values.config !== undefined) {
    const parsedConfig = experimentConfigSchema.safeParse(parseYaml(readFileSync(resolve(cwd, values.config), 'utf8')));
    if (!parsedConfig.success) {
      const issue = parsedConfig.error.issues[0];
      io.err(`${values.config}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'} (run gp config check ${values.config})`);
      return 2;
    }
    config = parsedConfig.data;
  }
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) {
    io.err('gp task test: --timeout needs a positive number of seconds.');
    return 2;
  }
  const patch = values.patch === undefined ? null : readFileSync(resolve(cwd, values.patch), 'utf8');
  const path = resolve(cwd, file);
  if (!existsSync(path)) {
    io.err(`gp task test: ${file} does not exist.`);
    return 2;
  }
  const loaded = await loadTasks(path);
  for (const p of loaded.problems) io.err(p);
  const wanted = values.task ?? [];
  const tasks = loaded.tasks.filter((t) => wanted.length === 0 || wanted.includes(t.task.task_id));
  const unknown = wanted.filter((id) => !loaded.tasks.some((t) => t.task.task_id === id));
  if (unknown.length) {
    io.err(`gp task test: ${file} has no task ${unknown.join(', ')}.`);
    return 2;
  }
  const runName = `tests-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
  const runDir = resolve(cwd, values['run-dir'] ?? join(config.logging.output_dir, runName));
  await mkdir(runDir, { recursive: true });
  const options = sandboxOptionsFromConfig(config.sandbox, runName);
  if (backend?.success) options.backend = backend.data;

  let failed = 0;
  let current: Sandbox | undefined;
  // Ctrl-C must not leave a container behind: close the open sandbox, then exit.
  const onSigint = () => {
    void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  try {
    for (const { task, line } of tasks) {
      io.out(`${task.task_id} (${file}:${line})`);
      try {
        current = await openSandbox(sandboxSpecForTask(task, { ...options, baseDir: dirname(path) }));
        if (patch !== null) {
          const applied = await current.applyPatch(patch);
          io.out(`  patch: ${applied.message}`);
          if (!applied.applied) {
            const report = gradeInstance({ patch, patchApplied: false, tests: new Map(), gold: { FAIL_TO_PASS: [], PASS_TO_PASS: [] } });
            await writeInstanceReport(runDir, task.task_id, report);
            failed++;
            continue;
          }
        }
        const run = await runTaskTests(current, task, { runDir, ...(patch === null ? {} : { patch }), timeoutMs: timeout === undefined ? options.testTimeoutMs : timeout * 1000 });
        if (values.json) io.out(JSON.stringify(run.record));
        else describeRun(run).forEach((l) => io.out(l));
        if (!gradePassed(run.record.grade)) failed++;
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
        io.err(`  ${error.message}`);
        failed++;
      } finally {
        await current?.close();
        current = undefined;
      }
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  io.out(`${plural(tasks.length - failed, 'task')} passed, ${failed} not; records in ${join(runDir, 'test_runs.jsonl')}`);
  return failed > 0 ? 1 : 0;
}
