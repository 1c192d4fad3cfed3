/**
 * `gp dataset verify FILE`: certifies a dataset before anyone trains on it. Every task's tests run
 * with no patch (which must not resolve it) and with its gold patch (which must resolve it fully),
 * `--repeat N` times to find flaky tests, `--parallel N` tasks at once, into a run folder that a
 * second call with `--run-dir` resumes (rollout/verify.ts). `--out FILE` writes the certified
 * dataset (datasets/certifiedDataset.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, relative, resolve } from 'node:path';
import { parseConfigFlags } from '../config/index.js';
import { defaultGoldFile, readGoldPatches, writeCertifiedDataset } from '../datasets/index.js';
import { planRunFolder, moveRunFolder, sandboxOptionsFromConfig, writeResolvedConfig } from '../launch/index.js';
import type { TaskVerdict } from '../protocol/verify.js';
import { verifyTasks, type VerifyTask } from '../rollout/index.js';
import { RunLock } from '../runs/index.js';
import { openSandbox, sandboxSpecForTask } from '../sandbox/index.js';
import { loadTasks, taskFileProblem } from '../tasks/index.js';
import { ioFailure, ioFailureAdvice } from '../util/ioFailure.js';
import { backendFlagUsage, parseCommandArgs, usageError } from './args.js';
import { loadTestCommandConfig } from './testCommandConfig.js';
import { installInterrupt } from './interrupt.js';
import { intFlag, plural, type Io } from './output.js';

export const datasetVerifyUsage = `gp dataset verify FILE [--gold PREDICTIONS] [--repeat N] [--parallel N] [--task ID]...
               [--out FILE] [--run-dir DIR] ${backendFlagUsage} [--timeout S]
               [--config YAML] [--allow-protected] [--json] [config flags]
      Certify a dataset before training on it: run every task's tests with no patch
      (it must not resolve) and with its gold patch (it must be RESOLVED_FULL), N times
      each (default 1) to find flaky tests, N tasks at once (default: rollout.parallel).
      Gold patches come from --gold (SWE-bench predictions: {instance_id, model_patch}
      per line) or gold_predictions_<name>.jsonl beside FILE, as gp dataset prepare
      writes them. Each task gets a verdict: certified, flaky (tests named), gold-fails,
      empty-passes, gold-does-not-apply, gold-protected (the gold patch changes what
      the grader reads: the task's tests, the runner's configuration, package metadata
      or a module that shadows an imported one; --allow-protected grades it anyway and
      the verdict lists those paths), not-gradable (why), no-gold, cannot-run or
      infrastructure. Everything goes into a run folder (verdicts.jsonl, test_runs.jsonl,
      the logs); --run-dir of an earlier verification resumes it. --out writes the
      certified tasks, flaky tests left out of their lists, each with a certification.`;

/** The options of `gp dataset verify` besides the config flags, which are parsed first. */
export const datasetVerifyOptions = {
  gold: { type: 'string' },
  repeat: { type: 'string' },
  parallel: { type: 'string' },
  task: { type: 'string', multiple: true },
  out: { type: 'string' },
  'run-dir': { type: 'string' },
  backend: { type: 'string' },
  timeout: { type: 'string' },
  config: { type: 'string' },
  'allow-protected': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const command = { name: 'dataset verify', usage: datasetVerifyUsage };

function verdictLine(v: TaskVerdict): string {
  const runs = v.runs.map((r) => `${r.patch}${v.repeats > 1 ? ` #${r.repeat}` : ''} ${r.resolution}`).join(', ');
  const why = v.reason === undefined ? '' : `: ${v.reason}`;
  // Where our grading is stricter than the harness's, the line says by which rule (docs/upstream-contracts.md#where-we-are-stricter).
  const stricter = v.strictness === undefined ? '' : ` (stricter than the harness: ${v.strictness.join(', ')})`;
  const allowed =
    v.protected_paths === undefined || v.status === 'gold-protected' ? '' : ` (allowed protected paths: ${v.protected_paths.map((f) => f.path).join(', ')})`;
  return `${v.task_id} (line ${v.line}): ${v.status}${why}${stricter}${allowed}${runs === '' ? '' : ` [${runs}; ${(v.duration_ms / 1000).toFixed(1)} s]`}${v.environment === undefined ? '' : ` in ${v.environment}`}`;
}

export async function datasetVerify(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const configFlags = parseConfigFlags(argv);
  const parsed = parseCommandArgs(command, configFlags.rest, datasetVerifyOptions, io);
  if (!parsed.ok) return parsed.exit;
  const { values, positionals, errors } = parsed;
  errors.push(...configFlags.errors);
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) errors.push('name one dataset file.');
  const repeats = intFlag('--repeat', values.repeat, errors) ?? 1;
  const parallelFlag = intFlag('--parallel', values.parallel, errors);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) errors.push('--timeout needs a positive number of seconds.');
  if (values.config !== undefined && configFlags.flags.configFile !== undefined) errors.push('give the config once, with --config or --config-file.');
  if (errors.length > 0 || file === undefined) return usageError(command, io, errors);

  const configFile = values.config ?? configFlags.flags.configFile;
  const loadedConfig = await loadTestCommandConfig(
    { command: 'gp dataset verify', flags: configFlags.flags, config: values.config, backend: values.backend, cwd, nothingDone: 'nothing was verified' },
    io,
  );
  if (typeof loadedConfig === 'number') return loadedConfig;
  const { config } = loadedConfig;

  const path = resolve(cwd, file);
  const fileProblem = taskFileProblem(path, file);
  if (fileProblem !== undefined) {
    io.err(`gp dataset verify: ${fileProblem}`);
    return 2;
  }
  const goldFile = values.gold === undefined ? defaultGoldFile(path) : resolve(cwd, values.gold);
  if (goldFile !== undefined && values.gold !== undefined && existsSync(goldFile) && statSync(goldFile).isDirectory()) {
    io.err(`gp dataset verify: --gold ${values.gold} is a folder; pass a predictions file (JSONL, SWE-bench's shape).`);
    return 2;
  }
  if (goldFile !== undefined && !existsSync(goldFile)) {
    io.err(`gp dataset verify: ${values.gold ?? goldFile} does not exist.`);
    return 2;
  }
  const gold = goldFile === undefined ? { patches: new Map<string, string>(), problems: [] } : await readGoldPatches(goldFile);
  for (const p of gold.problems) io.err(p);
  if (goldFile === undefined)
    io.err(
      `gp dataset verify: no gold patches: give --gold PREDICTIONS, or put gold_predictions_${basename(path).replace(/\.jsonl$/, '')}.jsonl beside ${file}; every task will be no-gold.`,
    );
  const loaded = await loadTasks(path);
  for (const p of loaded.problems) io.err(p);
  const wanted = values.task ?? [];
  const unknown = wanted.filter((id) => !loaded.tasks.some((t) => t.task.task_id === id));
  if (unknown.length > 0) {
    io.err(`gp dataset verify: ${file} has no task ${unknown.join(', ')}.`);
    return 2;
  }
  const items: VerifyTask[] = loaded.tasks
    .filter((t) => wanted.length === 0 || wanted.includes(t.task.task_id))
    .map((t) => ({ task: t.task, line: t.line, gold: gold.patches.get(t.task.task_id) }));
  if (items.length === 0) {
    io.err(
      `gp dataset verify: no task of ${file} can run${loaded.problems.length > 0 ? ` (${plural(loaded.problems.length, 'problem')} above)` : ''}; nothing was verified.`,
    );
    return 1;
  }

  const planned = planRunFolder(config, {
    command: 'verify',
    now: new Date(),
    commandLine: ['gp', 'dataset', 'verify', ...argv].join(' '),
    ignored: loadedConfig.ignored,
  });
  const run = values['run-dir'] === undefined ? planned : moveRunFolder(planned, resolve(cwd, values['run-dir']));
  const parallel = parallelFlag ?? config.rollout.parallel;
  const options = sandboxOptionsFromConfig(config.sandbox, run.name);
  let lock: RunLock;
  try {
    await mkdir(run.dir, { recursive: true });
    const taken = await RunLock.acquire(run.layout.lock, ['gp', 'dataset', 'verify', ...argv].join(' '));
    if (!taken.ok) {
      io.err(`gp dataset verify: ${relative(cwd, run.dir) || '.'}: ${taken.message}`);
      return 2;
    }
    lock = taken.lock;
  } catch (error) {
    return machineFailure(error, io);
  }
  const controller = new AbortController();
  const interrupt = installInterrupt({
    onFirst: () => {
      io.err('Interrupted: starting no more tasks and closing the open sandboxes (Ctrl-C again to exit at once).');
      controller.abort();
    },
  });
  try {
    await writeResolvedConfig(run, configFile === undefined ? '(defaults)' : resolve(cwd, configFile));
    const say = values.json ? io.err : io.out;
    say(`run dir: ${relative(cwd, run.dir) || '.'}`);
    const result = await verifyTasks(items, {
      runDir: run.dir,
      command: ['gp', 'dataset', 'verify', ...argv].join(' '),
      dataset: path,
      repeats,
      parallel,
      testTimeoutMs: timeout === undefined ? options.testTimeoutMs : timeout * 1000,
      signal: interrupt.signal.aborted ? interrupt.signal : controller.signal,
      allowProtected: values['allow-protected'] === true,
      openSandbox: (task) => openSandbox(sandboxSpecForTask(task, { ...options, baseDir: dirname(path), runDir: resolve(run.dir) })),
      observer: {
        runStarted: (info) => {
          if (info.alreadyDone > 0) say(`resuming: ${info.alreadyDone} of ${info.total} tasks already have a verdict; ${info.toRun} to run`);
        },
        taskFinished: (_item, verdict) => {
          if (!values.json) io.out(verdictLine(verdict));
        },
      },
    });
    for (const w of result.warnings) io.err(`warning: ${w}`);
    let certifiedCount: number | undefined;
    const outFile = values.out === undefined ? undefined : resolve(cwd, values.out);
    if (outFile !== undefined && result.state !== 'interrupted') {
      const byId = new Map(result.verdicts.map((v) => [v.task_id, v]));
      const inputs = items.flatMap((i) => {
        const verdict = byId.get(i.task.task_id);
        return verdict === undefined ? [] : [{ task: i.task, verdict }];
      });
      await mkdir(dirname(outFile), { recursive: true });
      certifiedCount = await writeCertifiedDataset(outFile, inputs, relative(dirname(outFile), run.dir) || '.', dirname(path));
    }
    if (values.json)
      io.out(
        JSON.stringify(
          {
            run_dir: run.dir,
            state: result.state,
            counts: result.counts,
            verdicts: result.verdicts,
            ...(outFile === undefined ? {} : { certified_dataset: outFile, certified: certifiedCount }),
          },
          null,
          2,
        ),
      );
    const counts = Object.entries(result.counts)
      .filter(([, n]) => n > 0)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ');
    say(
      `${plural(result.verdicts.length, 'task')} verified (${counts || 'none'})${result.resumed > 0 ? `, ${result.resumed} from an earlier run` : ''}; verdicts in ${relative(cwd, run.layout.verdicts)}`,
    );
    if (outFile !== undefined && certifiedCount !== undefined) say(`certified dataset: ${relative(cwd, outFile)} (${plural(certifiedCount, 'task')})`);
    const resume = `gp dataset verify ${file} --run-dir ${relative(cwd, run.dir) || '.'}`;
    if (result.state === 'interrupted') {
      io.err(`interrupted: ${result.verdicts.length} of ${items.length} tasks have a verdict; resume with: ${resume}`);
      return 130;
    }
    if (result.counts.infrastructure > 0) {
      io.err(`gp dataset verify: ${plural(result.counts.infrastructure, 'task')} failed for a reason of the machine, not of the task; resume with: ${resume}`);
      return 75;
    }
    const certified = result.counts.certified + result.counts.flaky;
    return certified === result.verdicts.length && loaded.problems.length === 0 ? 0 : 1;
  } catch (error) {
    return machineFailure(error, io);
  } finally {
    interrupt.dispose();
    await lock.release().catch(() => undefined);
  }
}

function machineFailure(error: unknown, io: Io): number {
  const failure = ioFailure(error);
  if (failure === undefined) throw error;
  io.err(`gp dataset verify: ${ioFailureAdvice(failure)}; a verification that had started continues with --run-dir.`);
  return 75;
}
