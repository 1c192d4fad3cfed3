/**
 * `gp rollout FILE... [flags]` and `gp eval FILE... [flags]`: resolve the config, load the tasks,
 * run the episodes into the run directory with a bounded pool, print a summary. Exit codes: 0 when
 * the run ran (whatever it resolved), 1 when every episode failed to run, 2 for usage, config and
 * task file errors, 130 when interrupted.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configFlagHelp, parseConfigFlags, parseYamlSource, resolveConfig, writeResolvedConfig, type Override, type ResolvedRun } from '../config/index.js';
import { planEpisodes, runRollout, type PlannedTask, type RolloutResult } from '../rollout/index.js';
import { listRuns, readStatus, runLayout, statusIsLive } from '../runs/index.js';
import { loadTasks } from '../tasks/index.js';
import { withDeadline } from '../util/deadline.js';
import { formatLocated, formatUnlocated, intFlag, type Io } from './output.js';
import { RolloutProgress, type ProgressSink } from './progress.js';
import { containerReaper, episodeDepsFromConfig } from './rolloutDeps.js';
import { displayPath, episodeTable, evalSummary, interruptedLines, totalsLine } from './rolloutSummary.js';

export type RolloutCommand = 'rollout' | 'eval';

const flagsLine = `[--config YAML] [--agent rule|model] [--task ID]... [--limit N] [--parallel N]`;
const runLine = `[--backend auto|docker|local] [--run-name NAME | --run-dir DIR] [--resume] [--max-steps N] [--json]`;

export const rolloutUsage = `gp rollout FILE... ${flagsLine}
             [--attempts N] ${runLine}
      Run the agent on each task (x attempts) in its sandbox, --parallel at once (default
      rollout.parallel). Writes <output_dir>/<run>/: resolved_config.yaml, status.json,
      events.jsonl, trajectories/<episode>.jsonl, report.json. Re-running into an existing
      run, or --resume (the newest unfinished run when none is named), skips finished episodes
      and redoes the others. Ctrl-C ends the running episodes, closes their sandboxes and
      exits 130. Exit 0 when it ran, 1 when every episode failed to run, 2 on usage errors.
  gp eval FILE... ${flagsLine}
             ${runLine}
      A rollout with one attempt per task that ends with a SWE-bench-style summary (resolved
      rate, per-task outcome, why each unresolved task failed) and reports/<task>/report.json.`;

/** The first lines of a command's usage: its flags without the explanation. */
function synopsis(command: RolloutCommand): string {
  const from = rolloutUsage.indexOf(`gp ${command} `);
  return rolloutUsage.slice(from).split('\n').slice(0, 2).join('\n');
}

/** What differs between a terminal session and a test: where progress goes and how Ctrl-C arrives. */
export interface RolloutRuntime {
  /** A raw progress sink (a terminal); absent: plain progress lines through `io.err`. */
  readonly progress?: ProgressSink;
  /**
   * Calls `first` on the first SIGINT/SIGTERM and `force` on the next; returns the removal of the
   * handlers. `force` cleans up what it can before the process exits.
   */
  readonly onInterrupt: (first: () => void, force: () => Promise<void>) => () => void;
}

export function processRuntime(): RolloutRuntime {
  const stderr = process.stderr;
  return {
    ...(stderr.isTTY
      ? {
          progress: {
            isTTY: true,
            // Read at each redraw, so a resized terminal gets a bar that fits; 0 means unknown.
            get columns() {
              return stderr.columns > 0 ? stderr.columns : 80;
            },
            write: (t: string) => void stderr.write(t),
          },
        }
      : {}),
    onInterrupt: (first, force) => {
      let count = 0;
      const handler = () => {
        count += 1;
        if (count === 1) first();
        else void force().finally(() => process.exit(130));
      };
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.removeListener('SIGINT', handler);
        process.removeListener('SIGTERM', handler);
      };
    },
  };
}

interface Parsed {
  readonly files: string[];
  readonly configFile: string | undefined;
  readonly flags: ReturnType<typeof parseConfigFlags>['flags'];
  readonly tasks: string[];
  readonly limit: number | undefined;
  readonly runDir: string | undefined;
  readonly resume: boolean;
  readonly json: boolean;
}

function parseRolloutArgs(command: RolloutCommand, argv: readonly string[]): { ok: true; value: Parsed } | { ok: false; errors: string[] } {
  const config = parseConfigFlags(argv);
  const errors = [...config.errors];
  let parsed;
  try {
    parsed = parseArgs({
      args: [...config.rest],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        agent: { type: 'string' },
        task: { type: 'string', multiple: true },
        limit: { type: 'string' },
        parallel: { type: 'string' },
        attempts: { type: 'string' },
        backend: { type: 'string' },
        'run-dir': { type: 'string' },
        resume: { type: 'boolean' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    // Node's message goes on to explain `--`; its first sentence is the useful part.
    return { ok: false, errors: [...errors, (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.')] };
  }
  const v = parsed.values;
  if (parsed.positionals.length === 0) errors.push('name at least one task file (JSONL).');
  if (v.config !== undefined && config.flags.configFile !== undefined) errors.push('give the config once, with --config or --config-file.');
  if (v['run-dir'] !== undefined && config.flags.overrides.some((o) => o.flag.startsWith('--run-name'))) errors.push('give --run-name or --run-dir, not both.');
  if (command === 'eval' && v.attempts !== undefined) errors.push('eval runs one attempt per task; use gp rollout --attempts N for more.');
  const extra: Override[] = [];
  const int = (name: string, value: string | undefined, path: string[]) => {
    const n = intFlag(name, value, errors);
    if (n !== undefined) extra.push({ flag: `${name} ${n}`, path, value: n });
  };
  int('--parallel', v.parallel, ['rollout', 'parallel']);
  int('--attempts', v.attempts, ['rollout', 'attempts']);
  if (v.agent !== undefined) extra.push({ flag: `--agent ${v.agent}`, path: ['rollout', 'agent'], value: v.agent });
  if (v.backend !== undefined) extra.push({ flag: `--backend ${v.backend}`, path: ['sandbox', 'backend'], value: v.backend });
  const limit = intFlag('--limit', v.limit, errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      files: parsed.positionals,
      configFile: v.config ?? config.flags.configFile,
      flags: { ...config.flags, overrides: [...config.flags.overrides, ...extra] },
      tasks: v.task ?? [],
      limit,
      runDir: v['run-dir'],
      resume: v.resume === true,
      json: v.json === true,
    },
  };
}

/** The run moved to `dir` (from --run-dir or --resume), its record in the config updated to match. */
function withRunDir(run: ResolvedRun, dir: string): ResolvedRun {
  const runName = basename(dir);
  const configPath = runLayout(dir).resolvedConfig;
  const record = run.config.run;
  return {
    ...run,
    runName,
    runDir: dir,
    configPath,
    config: { ...run.config, ...(record === undefined ? {} : { run: { ...record, name: runName, dir, config_path: configPath } }) },
  };
}

/** Sections whose findings matter to a rollout; the rest (training, GPUs, Ray) concern `gp train`. */
const rolloutSections = new Set(['env', 'sandbox', 'rollout', 'backends', 'logging', 'paths']);

async function resolveRun(command: RolloutCommand, argv: readonly string[], p: Parsed, io: Io, cwd: string): Promise<ResolvedRun | undefined> {
  let text = '';
  // Without a YAML, findings can only come from flags; they are labelled with the command.
  const file = p.configFile ?? `gp ${command}`;
  if (p.configFile !== undefined) {
    try {
      text = await readFile(resolve(cwd, p.configFile), 'utf8');
    } catch (error) {
      io.err(`${p.configFile}: cannot read it (${(error as Error).message}).`);
      return undefined;
    }
  }
  const result = resolveConfig({ text, file: resolve(cwd, file), flags: p.flags, command, baseDir: cwd, now: new Date(), commandLine: ['gp', command, ...argv].join(' ') });
  const lines = parseYamlSource(text).lineCounter;
  for (const f of result.yamlFindings) if (f.severity === 'error') io.err(formatLocated(file, lines, f));
  const relevant = result.findings.filter((f) => f.severity === 'error' || f.severity === 'warning').filter((f) => f.path.length === 0 || rolloutSections.has(String(f.path[0])));
  for (const f of relevant) io.err(formatUnlocated(file, f));
  if (!result.ok || relevant.some((f) => f.severity === 'error')) {
    io.err(`gp ${command}: the config has errors; nothing was run.`);
    return undefined;
  }
  return result.run;
}

/** The run directory: --run-dir, the named run, the newest unfinished run for a bare --resume, or a new one. */
async function chooseRunDir(command: RolloutCommand, p: Parsed, run: ResolvedRun, io: Io, cwd: string): Promise<ResolvedRun | undefined> {
  if (p.runDir !== undefined) return withRunDir(run, resolve(cwd, p.runDir));
  if (!p.resume || run.config.logging.wandb.run_name !== null) return run;
  const outputDir = run.config.logging.output_dir;
  const candidates = (await listRuns(outputDir)).filter((r) => r.status !== undefined && r.status.state !== 'finished' && r.status.command.startsWith(`gp ${command} `));
  const newest = candidates[0];
  if (newest === undefined) {
    io.err(`gp ${command}: --resume found no unfinished gp ${command} run under ${outputDir}; name one with --run-name or --run-dir.`);
    return undefined;
  }
  io.err(`Resuming ${newest.name} (${newest.status?.state ?? 'unknown'}, started ${newest.status?.started_at ?? '?'}).`);
  return withRunDir(run, newest.dir);
}

async function loadAll(command: RolloutCommand, p: Parsed, io: Io, cwd: string): Promise<PlannedTask[] | undefined> {
  const all: PlannedTask[] = [];
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const file of p.files) {
    const path = resolve(cwd, file);
    if (!existsSync(path)) {
      problems.push(`${file}: no such file.`);
      continue;
    }
    const loaded = await loadTasks(path);
    problems.push(...loaded.problems.map((m) => (m.startsWith(path) ? file + m.slice(path.length) : m)));
    for (const { task, line } of loaded.tasks) {
      const source = `${file}:${line}`;
      const first = seen.get(task.task_id);
      if (first !== undefined) problems.push(`${source}:1 task_id ${task.task_id} is already used at ${first}; episode ids must be unique.`);
      else seen.set(task.task_id, source);
      all.push({ task, baseDir: dirname(path), source });
    }
  }
  const unknown = p.tasks.filter((id) => !seen.has(id));
  if (unknown.length > 0) problems.push(`gp ${command}: no task ${unknown.join(', ')} in ${p.files.join(', ')}.`);
  for (const m of problems) io.err(m);
  if (problems.length > 0) return undefined;
  const chosen = p.tasks.length === 0 ? all : all.filter((t) => p.tasks.includes(t.task.task_id));
  const limited = p.limit === undefined ? chosen : chosen.slice(0, p.limit);
  if (limited.length === 0) {
    io.err(`gp ${command}: ${p.files.join(', ')} has no tasks to run.`);
    return undefined;
  }
  return limited;
}

function resumeCommand(command: RolloutCommand, argv: readonly string[], runDir: string, cwd: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--resume' || a.startsWith('--run-name=') || a.startsWith('--run-dir=')) continue;
    if (a === '--run-name' || a === '--run-dir') {
      i++;
      continue;
    }
    kept.push(a);
  }
  return ['gp', command, ...kept, '--run-dir', displayPath(runDir, cwd), '--resume'].join(' ');
}

export async function rolloutCommand(command: RolloutCommand, argv: readonly string[], io: Io, cwd: string, runtime: RolloutRuntime = processRuntime()): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${rolloutUsage}\n\nConfig flags:\n  ${configFlagHelp.join('\n  ')}`);
    return 0;
  }
  const parsed = parseRolloutArgs(command, argv);
  if (!parsed.ok) {
    for (const e of parsed.errors) io.err(`gp ${command}: ${e}`);
    io.err(`Usage: ${synopsis(command)}\n       (gp ${command} --help says more)`);
    return 2;
  }
  const p = parsed.value;
  const resolved = await resolveRun(command, argv, p, io, cwd);
  if (resolved === undefined) return 2;
  const run = await chooseRunDir(command, p, resolved, io, cwd);
  if (run === undefined) return 2;
  const tasks = await loadAll(command, p, io, cwd);
  if (tasks === undefined) return 2;
  const existing = await readStatus(runLayout(run.runDir).status);
  if (existing.ok && statusIsLive(existing.status) && existing.status.pid !== process.pid) {
    io.err(`gp ${command}: ${run.runDir} belongs to a run that is still going (pid ${existing.status.pid} on ${existing.status.host}); wait for it, stop it, or choose another --run-name.`);
    return 2;
  }
  let deps;
  try {
    deps = episodeDepsFromConfig(run.config, run.runName, run.runDir);
  } catch (error) {
    io.err(`gp ${command}: ${(error as Error).message}`);
    return 2;
  }
  await writeResolvedConfig(run, p.configFile === undefined ? '(defaults)' : resolve(cwd, p.configFile));
  const say = p.json ? io.err : io.out;
  say(`run dir: ${displayPath(run.runDir, cwd)}`);

  const config = run.config;
  const attempts = command === 'eval' ? 1 : config.rollout.attempts;
  const episodes = planEpisodes(tasks, attempts);
  const progress = new RolloutProgress(runtime.progress ?? { isTTY: false, write: (t) => io.err(t.replace(/\n$/, '')) });
  const controller = new AbortController();
  const reaper = containerReaper(config, run.runName);
  const removeHandlers = runtime.onInterrupt(
    () => {
      progress.stop();
      io.err('Interrupted: starting no more episodes; ending the running ones and closing their sandboxes (Ctrl-C again to force).');
      controller.abort();
    },
    async () => {
      io.err("Interrupted again: removing this run's containers and exiting.");
      if (reaper) await withDeadline(reaper(true), 10_000).catch(() => undefined);
    },
  );
  let result: RolloutResult;
  try {
    result = await runRollout(episodes, {
      runDir: run.runDir,
      runName: run.runName,
      command: ['gp', command, ...argv].join(' '),
      agent: config.rollout.agent,
      dataset: p.files.join(', '),
      parallel: config.rollout.parallel,
      signal: controller.signal,
      deps,
      observer: progress,
      ...(reaper === undefined ? {} : { reapContainers: reaper }),
    });
  } finally {
    progress.stop();
    removeHandlers();
  }
  for (const w of result.warnings) io.err(`warning: ${w}`);
  printSummary(command, result, run.runDir, p.json, io, cwd);
  if (result.state === 'interrupted') {
    for (const l of interruptedLines(result, resumeCommand(command, argv, run.runDir, cwd))) io.err(l);
    return 130;
  }
  if (result.state === 'failed') io.err(`gp ${command}: ${result.reason ?? 'the run failed'}`);
  return result.state === 'failed' ? 1 : 0;
}

function printSummary(command: RolloutCommand, result: RolloutResult, runDir: string, json: boolean, io: Io, cwd: string): void {
  if (json) {
    io.out(JSON.stringify(result.report, null, 2));
    return;
  }
  if (result.report.total > 0) episodeTable(result.report, runDir, cwd).forEach((l) => io.out(l));
  if (command === 'eval') evalSummary(result.report, runDir, cwd).forEach((l) => io.out(l));
  io.out(totalsLine(result.report));
  io.out(`run dir: ${displayPath(runDir, cwd)}  report: ${displayPath(join(runDir, 'report.json'), cwd)}`);
}
