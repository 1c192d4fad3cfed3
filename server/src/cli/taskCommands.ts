/**
 * `gp task test FILE [--task ID]... [--patch DIFF] [flags]`: opens each task's sandbox, applies
 * an optional patch, runs the task's tests, grades them per test and records the run. It is how
 * a person checks a dataset row, an image or a candidate fix without starting a rollout.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../util/errors.js';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseConfigFlags } from '../config/index.js';
import { sandboxOptionsFromConfig } from '../launch/index.js';
import { backendChoiceOf, openSandbox, sandboxSpecForTask, SandboxError, type Sandbox } from '../sandbox/index.js';
import { BackendTally } from '../rollout/index.js';
import { backendLine, fallbackNotice } from './rolloutSummary.js';
import { loadTasks, taskFileProblem, type TaskEntry } from '../tasks/index.js';
import { recordTestRun, runLayout, writeInstanceReport } from '../runs/index.js';
import type { GraderFinding } from '../protocol/graderSurface.js';
import {
  describeFindings,
  gradeInstance,
  gradePassed,
  graderFacts,
  graderFindingsOfPatch,
  graderTaskSurface,
  runTaskTests,
  type TestRun,
} from '../testing/index.js';
import { loadTestCommandConfig } from './testCommandConfig.js';
import { compactUtcStamp } from '../util/time.js';
import { backendFlagUsage, parseCommandArgs, usageError } from './args.js';
import { installInterrupt } from './interrupt.js';
import { plural, type Io } from './output.js';

export const taskTestUsage = `gp task test FILE [--task ID]... [--patch DIFF] [--allow-protected] ${backendFlagUsage}
               [--config YAML] [--run-dir DIR] [--timeout S] [--json] [config flags]
      Open each task's sandbox, apply the patch if given, run the task's tests and
      grade them per test (SWE-bench lists or R2E expected output). A patch that
      changes what the grader reads (the task's tests, the runner's configuration,
      package metadata, a module that shadows an imported one) is refused as in an
      episode and earns nothing; --allow-protected grades it anyway and says which
      protected paths it changed. The config goes
      through the same checks as gp config check. Records the run in
      DIR/test_runs.jsonl with the raw log and report.json.`;

/** The options of `gp task test` besides the config flags, which are parsed first. */
export const taskTestOptions = {
  task: { type: 'string', multiple: true },
  patch: { type: 'string' },
  'allow-protected': { type: 'boolean' },
  backend: { type: 'string' },
  config: { type: 'string' },
  'run-dir': { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const command = { name: 'task test', usage: taskTestUsage };

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
          : g.kind === 'verifier'
            ? `verifier reward ${g.reward} from ${g.from}${g.resolved ? ' (resolved)' : ''}, test.sh exited ${g.exitCode ?? 'without a status'}`
            : `not gradable: ${g.reason}`;
  // pytest's own report disagreeing with the log is the sign of a log written to by the code under test.
  const check = r.crossCheck;
  const witness =
    check?.state === 'disagreed'
      ? [
          `  pytest's JUnit report disagrees with the log on ${plural(check.mismatchCount, 'test')}, graded failed: ${check.mismatches
            .slice(0, 3)
            .map((m) => `${m.test} (log ${m.log}, report ${m.report})`)
            .join('; ')}${check.mismatchCount > 3 ? '; …' : ''}`,
        ]
      : check?.state === 'not-written'
        ? [`  note: ${check.reason ?? 'no JUnit report'}`]
        : [];
  return [...lines, ...witness, `  ${verdict} [${r.backend}, ${(r.durationMs / 1000).toFixed(1)} s${r.timedOut ? ', timed out' : ''}]`];
}

/** What a refused patch earns (nothing), which paths it changed and why, and what to do. */
function describeRefusal(taskId: string, findings: readonly GraderFinding[], json: boolean): string[] {
  if (json) return [JSON.stringify({ task_id: taskId, refused: true, protected_paths: findings })];
  return [
    '  refused: the patch changes what the grader reads, so it is not applied and earns nothing:',
    ...describeFindings(findings).map((l) => `    ${l}`),
    '  Fix the code under test instead; a gold patch that really needs such a change passes with --allow-protected.',
  ];
}

/** Applies the patch (if any), runs and records the task's tests; 1 when the task did not pass, else 0. */
async function applyAndTest(
  sandbox: Sandbox,
  task: TaskEntry,
  patch: string | null,
  runDir: string,
  how: { json: boolean; timeoutMs: number },
  io: Io,
): Promise<number> {
  const applied = patch === null ? undefined : await sandbox.applyPatch(patch);
  if (applied !== undefined) io.out(`  patch: ${applied.message}`);
  if (patch !== null && applied?.applied === false) {
    const report = gradeInstance({ patch, patchApplied: false, tests: new Map(), gold: { FAIL_TO_PASS: [], PASS_TO_PASS: [] } });
    await writeInstanceReport(runDir, task.task_id, report);
    return 1;
  }
  const run = await runTaskTests(sandbox, task, { ...(patch === null ? {} : { patch }), timeoutMs: how.timeoutMs });
  const record = await recordTestRun(runDir, run);
  if (how.json) io.out(JSON.stringify(record));
  else describeRun(run).forEach((l) => io.out(l));
  return gradePassed(run.record.grade) ? 0 : 1;
}

/** `--timeout` when given, else a Harbor task's own verifier timeout, else the config's `sandbox.test_timeout`. */
function testTimeoutMs(task: TaskEntry, flag: number | undefined, configMs: number): number {
  if (flag !== undefined) return flag * 1000;
  const own = task.verifier?.timeout_sec;
  return own === undefined ? configMs : own * 1000;
}

export async function taskTest(args: readonly string[], io: Io, cwd: string): Promise<number> {
  // The config flags (`--set`, `--config-file`, …) are the launching commands' own, so a config
  // reaches the same verdict here as in `gp config check` and `gp rollout`.
  const configFlags = parseConfigFlags(args);
  const parsed = parseCommandArgs(command, configFlags.rest, taskTestOptions, io);
  if (!parsed.ok) return parsed.exit;
  const { values, positionals, errors } = parsed;
  errors.push(...configFlags.errors);
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) errors.push('name one dataset file.');
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) errors.push('--timeout needs a positive number of seconds.');
  if (values.config !== undefined && configFlags.flags.configFile !== undefined) errors.push('give the config once, with --config or --config-file.');
  if (errors.length > 0 || file === undefined) return usageError(command, io, errors);
  const loadedConfig = await loadTestCommandConfig(
    { command: 'gp task test', flags: configFlags.flags, config: values.config, backend: values.backend, cwd, nothingDone: 'no task was run' },
    io,
  );
  if (typeof loadedConfig === 'number') return loadedConfig;
  const { config } = loadedConfig;
  let patch: string | null = null;
  if (values.patch !== undefined) {
    // A folder or a missing file is the person's to correct, said with the path; never an internal error.
    try {
      patch = readFileSync(resolve(cwd, values.patch), 'utf8');
    } catch (error) {
      const folder = typeof error === 'object' && error !== null && 'code' in error && error.code === 'EISDIR';
      io.err(
        `gp task test: --patch ${values.patch}: ${folder ? 'is a folder; pass a patch file (a unified diff)' : `cannot read it (${errorMessage(error)})`}.`,
      );
      return 2;
    }
  }
  const path = resolve(cwd, file);
  const fileProblem = taskFileProblem(path, file);
  if (fileProblem !== undefined) {
    io.err(`gp task test: ${fileProblem}`);
    return 2;
  }
  const loaded = await loadTasks(path);
  for (const p of loaded.problems) io.err(p);
  // A row the schema refused is a task that cannot run: never "0 passed, 0 not" and exit 0.
  if (loaded.tasks.length === 0) {
    io.err(
      `gp task test: no task of ${file} can run${loaded.problems.length > 0 ? ` (${plural(loaded.problems.length, 'problem')} above)` : ' (the file has no tasks)'}; nothing was tested.`,
    );
    return 1;
  }
  const wanted = values.task ?? [];
  const tasks = loaded.tasks.filter((t) => wanted.length === 0 || wanted.includes(t.task.task_id));
  const unknown = wanted.filter((id) => !loaded.tasks.some((t) => t.task.task_id === id));
  if (unknown.length) {
    io.err(`gp task test: ${file} has no task ${unknown.join(', ')}.`);
    return 2;
  }
  const runName = `tests-${compactUtcStamp(new Date())}`;
  const runDir = resolve(cwd, values['run-dir'] ?? join(config.logging.output_dir, runName));
  await mkdir(runDir, { recursive: true });
  const options = sandboxOptionsFromConfig(config.sandbox, runName);

  let failed = 0;
  // Each fall-back reason is announced once, however many tasks it concerns.
  const backends = new BackendTally();
  let current: Sandbox | undefined;
  // Tasks that ran to their verdict; one cut short by Ctrl-C counts neither as passed nor failed.
  let completed = 0;
  // Ctrl-C must not leave a container behind: the first closes the open sandbox (its tests stop)
  // and starts no other task; the second exits once that close is done.
  const interrupt = installInterrupt({
    onFirst: () => {
      io.err('Interrupted: closing the open sandbox and starting no more tasks (Ctrl-C again to exit at once).');
      void current?.close();
    },
    onForce: () => current?.close() ?? Promise.resolve(),
  });
  try {
    for (const { task, line } of tasks) {
      if (interrupt.signal.aborted) break;
      const failedBefore = failed;
      io.out(`${task.task_id} (${file}:${line})`);
      try {
        current = await openSandbox(sandboxSpecForTask(task, { ...options, baseDir: dirname(path) }));
        const fallback = backends.addChoice(backendChoiceOf(current));
        if (fallback !== undefined) io.err(fallbackNotice(fallback));
        // The patch meets the rule an episode's patch meets (testing/graderSurface.ts) before it touches the repository.
        const findings = patch === null ? [] : graderFindingsOfPatch(patch, graderTaskSurface(task), await graderFacts(current));
        if (findings.length > 0 && values['allow-protected'] !== true) {
          describeRefusal(task.task_id, findings, values.json === true).forEach((l) => io.out(l));
          failed++;
        } else {
          if (findings.length > 0) io.out(`  allowed protected paths (--allow-protected): ${describeFindings(findings).join('; ')}`);
          failed += await applyAndTest(
            current,
            task,
            patch,
            runDir,
            { json: values.json === true, timeoutMs: testTimeoutMs(task, timeout, options.testTimeoutMs) },
            io,
          );
        }
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
        io.err(`  ${error.message}`);
        failed++;
      } finally {
        await current?.close();
        current = undefined;
      }
      if (interrupt.signal.aborted) failed = failedBefore;
      else completed++;
    }
  } finally {
    interrupt.dispose();
  }
  const interrupted = interrupt.signal.aborted;
  // Rows that did not load count as tasks that could not run, unless --task picked others.
  const unreadable = wanted.length === 0 ? loaded.problems.length : 0;
  const counts = `${plural(completed - failed, 'task')} passed, ${failed} not${unreadable > 0 ? `, ${unreadable} could not be read` : ''}`;
  io.out(`${interrupted ? `interrupted: ${completed} of ${tasks.length} tasks ran; ` : ''}${counts}; records in ${runLayout(runDir).testRuns}`);
  if (!backends.empty) io.out(backendLine(backends.summary()));
  if (interrupted) return 130;
  return failed > 0 || unreadable > 0 ? 1 : 0;
}
