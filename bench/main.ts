/**
 * `npm run bench`: runs every figure, prints one table (figure, ours, anchor, ratio, goal, pass)
 * and writes `test-artifacts/bench/results.json`. A figure that cannot be measured is listed with
 * its reason, never filled with a number. The exit code is 0 whatever the figures say: a benchmark
 * reports, it is not a test.
 *
 * Options: `--only yaml,yaml-scale,jsonl,activation,sandbox,graph,rollout,launch,launch-exit,datasets,tasks,runs,idle,trajectory,inspect,fork,code-graph,service,smoke,model,localisation,env,verify,hosts,host-step,canary` (`canary` runs only when named), `--edits N` (default 60), `--warmup N` (20),
 * `--sessions N` (7), `--activation-sessions N` (5 code-server sessions), `--localisation-repos a,b` (every
 * repository), `--localisation-limit N` (every instance), `--no-embeddings` (localisation without the semantic retriever).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchActivation } from './activation.js';
import { benchDatasets } from './datasetFigures.js';
import type { BenchResult } from './result.js';
import { benchSandbox } from './sandboxFigures.js';
import { benchGraph } from './graphFigures.js';
import { benchHosts } from './hostsFigures.js';
import { benchHostStep } from './hostStepFigures.js';
import { benchLaunch } from './launchFigures.js';
import { benchLaunchExit } from './launchExitFigures.js';
import { benchLocalisation } from './localisationFigures.js';
import { benchPythonEnv } from './envFigures.js';
import { benchRollout } from './rolloutFigures.js';
import { benchService } from './serviceFigures.js';
import { benchSmoke } from './smokeFigures.js';
import { benchCanary } from './canaryFigures.js';
import { benchModel } from './modelFigures.js';
import { benchTasks } from './taskFigures.js';
import { benchVerify } from './verifyFigures.js';
import { benchRuns } from './runsFigures.js';
import { benchInspectExport } from './inspectExportFigures.js';
import { benchFork } from './forkFigures.js';
import { benchIdle } from './idleFigures.js';
import { benchTrajectory } from './trajectoryFigures.js';
import { benchCodeGraph } from './codeGraphFigures.js';
import { benchYaml, type FigureOutcome } from './yamlFigures.js';
import { benchYamlScale } from './yamlScaleFigures.js';
import { repoRoot } from './yamlServers.js';
import { errorMessage } from '../server/src/util/errors.js';

interface Options {
  readonly only: ReadonlySet<string> | null;
  readonly edits: number;
  readonly warmup: number;
  readonly sessions: number;
  /** Fresh code-server sessions for the activation figure; each takes about 20 s, so fewer than `sessions`. */
  readonly activationSessions: number;
  /** Repositories of the localisation figures (`owner/name` or `name`); every one when null. */
  readonly localisationRepos: ReadonlySet<string> | null;
  /** Most SWE-bench Lite instances the localisation figures score; all 300 when null. */
  readonly localisationLimit: number | null;
  /** `--no-embeddings`: the localisation figures without the semantic retriever. */
  readonly embeddings: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const count = (flag: string, fallback: number): number => {
    const raw = value(flag);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer, got ${raw ?? ''}`);
    return n;
  };
  const only = value('--only');
  const repos = value('--localisation-repos');
  return {
    only: only === undefined ? null : new Set(only.split(',')),
    edits: count('--edits', 60),
    warmup: count('--warmup', 20),
    sessions: count('--sessions', 7),
    activationSessions: count('--activation-sessions', 5),
    localisationRepos: repos === undefined ? null : new Set(repos.split(',').filter((r) => r !== '')),
    localisationLimit: value('--localisation-limit') === undefined ? null : count('--localisation-limit', 1),
    embeddings: !argv.includes('--no-embeddings'),
  };
}

function isBenchResult(value: unknown): value is BenchResult {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['name'] === 'string' && typeof r['ours'] === 'number' && typeof r['anchor'] === 'number' && typeof r['pass'] === 'boolean';
}

/**
 * The JSONL figure belongs to another file that may not exist yet; it is imported by path so this
 * harness type-checks and runs without it, and its absence is reported rather than hidden.
 */
async function benchJsonlIfPresent(log: (line: string) => void): Promise<FigureOutcome> {
  const file = join(repoRoot, 'bench', 'jsonlThroughput.ts');
  if (!existsSync(file)) {
    return { results: [], notMeasured: [{ name: 'jsonl-throughput', reason: 'bench/jsonlThroughput.ts does not exist yet' }] };
  }
  const mod: unknown = await import(pathToFileURL(file).href);
  const run = typeof mod === 'object' && mod !== null ? (mod as Record<string, unknown>)['benchJsonl'] : undefined;
  if (typeof run !== 'function') {
    return { results: [], notMeasured: [{ name: 'jsonl-throughput', reason: 'bench/jsonlThroughput.ts exports no benchJsonl()' }] };
  }
  log('JSONL throughput: running benchJsonl() from bench/jsonlThroughput.ts');
  const output: unknown = await (run as () => unknown)();
  const list = Array.isArray(output) ? (output as unknown[]) : [output];
  const results = list.filter(isBenchResult);
  const notMeasured = results.length === list.length ? [] : [{ name: 'jsonl-throughput', reason: 'benchJsonl() returned something that is not a BenchResult' }];
  return { results, notMeasured };
}

/** Three significant digits, or whole numbers from 1000 up, which is all a timing deserves. */
function shown(value: number): string {
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

function table(results: readonly BenchResult[]): string {
  const rows = [
    ['figure', 'ours', 'anchor', 'ratio', 'goal', 'pass'],
    ...results.map((r) => [
      r.name,
      `${shown(r.ours)} ${r.unit}`,
      `${shown(r.anchor)} ${r.unit} (${r.anchorName})`,
      r.ratio.toFixed(3),
      r.goal,
      r.pass ? 'yes' : 'NO',
    ]),
  ];
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string): void => console.log(line);
  const wanted = (figure: string): boolean => options.only === null || options.only.has(figure);
  const outcomes: FigureOutcome[] = [];
  const guard = async (name: string, run: () => Promise<FigureOutcome>): Promise<void> => {
    try {
      outcomes.push(await run());
    } catch (error) {
      outcomes.push({ results: [], notMeasured: [{ name, reason: errorMessage(error) }] });
    }
  };
  if (wanted('yaml')) await guard('yaml', () => benchYaml(options, log));
  if (wanted('yaml-scale')) await guard('yaml-scale', () => benchYamlScale(log));
  if (wanted('jsonl')) await guard('jsonl', () => benchJsonlIfPresent(log));
  if (wanted('activation')) await guard('extension-activation', () => benchActivation(options, log));
  if (wanted('sandbox')) await guard('sandbox', () => benchSandbox(log));
  if (wanted('graph')) await guard('graph', () => benchGraph(log));
  if (wanted('rollout')) await guard('rollout', () => benchRollout(log));
  if (wanted('launch')) await guard('launch', () => benchLaunch(log));
  if (wanted('launch-exit')) await guard('launch-exit', () => benchLaunchExit(log));
  if (wanted('datasets')) await guard('datasets', () => benchDatasets(log));
  if (wanted('tasks')) await guard('tasks', () => benchTasks(log));
  if (wanted('runs')) await guard('runs', () => benchRuns(log));
  if (wanted('idle')) await guard('idle', () => benchIdle(log));
  if (wanted('trajectory')) await guard('trajectory', () => benchTrajectory(log));
  if (wanted('inspect')) await guard('inspect', () => benchInspectExport(log));
  if (wanted('fork')) await guard('fork', () => benchFork(log));
  if (wanted('code-graph')) await guard('code-graph', () => benchCodeGraph(log));
  if (wanted('service')) await guard('service', () => benchService(log));
  if (wanted('smoke')) await guard('smoke', () => benchSmoke(log));
  if (wanted('model')) await guard('model', () => benchModel(log));
  if (wanted('localisation')) await guard('localisation', () => benchLocalisation(options, log));
  if (wanted('env')) await guard('env', () => benchPythonEnv(log));
  if (wanted('verify')) await guard('verify', () => benchVerify(log));
  if (wanted('hosts')) await guard('hosts', () => benchHosts(log));
  if (wanted('host-step')) await guard('host-step', () => benchHostStep(log));
  // About two hours on two cores: only when named (canaryFigures.ts).
  if (options.only?.has('canary') === true) await guard('canary', () => benchCanary(log));

  const results = outcomes.flatMap((o) => o.results);
  const notMeasured = outcomes.flatMap((o) => o.notMeasured);
  console.log(results.length > 0 ? `\n${table(results)}` : '\nno figure was measured');
  const [load1] = loadavg();
  if (load1 !== undefined && load1 > cpus().length) {
    console.log(`note: load average ${load1.toFixed(2)} on ${cpus().length} cores; other work shared the machine, so the figures are noisier than usual`);
  }
  for (const { name, reason } of notMeasured) console.log(`not measured: ${name}: ${reason}`);

  const outDir = join(repoRoot, 'test-artifacts', 'bench');
  await mkdir(outDir, { recursive: true });
  const report = {
    generatedAt: new Date().toISOString(),
    // The load average shows whether other work shared the cores while the figures were taken.
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', loadAverage: loadavg() },
    options: {
      edits: options.edits,
      warmup: options.warmup,
      sessions: options.sessions,
      activationSessions: options.activationSessions,
      localisationRepos: options.localisationRepos === null ? 'all' : [...options.localisationRepos].join(','),
      localisationLimit: options.localisationLimit ?? 'all',
      embeddings: options.embeddings,
    },
    results,
    notMeasured,
  };
  await writeFile(join(outDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${join('test-artifacts', 'bench', 'results.json')}`);
}

main().catch((error: unknown) => {
  // Only a bug in the harness itself lands here; figures report their own failures above.
  console.error(error);
  process.exitCode = 1;
});
