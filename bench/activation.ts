/**
 * The extension's activation time in real VS Code, as VS Code itself reports it, against the
 * built-in JSON language features extension (`vscode.json-language-features`), which like ours
 * activates on a language and starts a language server. Each sample is one fresh code-server
 * session (the end-to-end harness in `test/e2e/`): open the fixture experiment YAML and a small
 * JSON file, then read both activation times from "Developer: Show Running Extensions".
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Session } from '../test/e2e/harness.js';
import type { RunningExtension } from '../test/e2e/workbench.js';
import type { BenchResult } from './result.js';
import { round1, summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';
import { errorMessage } from '../server/src/util/errors.js';

const execFileAsync = promisify(execFile);

export interface ActivationBenchOptions {
  /** Fresh code-server sessions, one sample of each extension per session. */
  readonly activationSessions: number;
}

const figureName = 'extension-activation';
const oursName = 'graph-planner';
const anchorName = 'json-language-features';
const anchorId = `vscode.${anchorName}`;
const experimentYaml = 'configs/experiments/broken.yaml';
/** Written into the session's copy of the workspace, never into `test/e2e/fixtures`. */
const anchorJson = 'anchor/sample.json';
const anchorJsonText = `${JSON.stringify({ name: 'activation anchor', values: [1, 2, 3], nested: { ok: true } }, null, 2)}\n`;
const privateVsix = join(repoRoot, '.cache', 'bench', 'graph-planner.vsix');

/** The package a session installs, or why there is none that matches the current build. */
type Package = { readonly kind: 'ready'; readonly path: string; readonly note: string } | { readonly kind: 'unavailable'; readonly reason: string };

interface Sample {
  readonly ours: RunningExtension;
  readonly anchor: RunningExtension;
  readonly oursHover: string;
  readonly anchorHover: string;
  /** "Graph Planner activated in N ms" from our output channel. */
  readonly loggedActivationMs: number;
  /** "Graph Planner server ready N ms after activation" from our output channel. */
  readonly loggedServerReadyMs: number;
  readonly workbenchStartupMs: number;
}

export async function benchActivation(options: ActivationBenchOptions, log: (line: string) => void): Promise<FigureOutcome> {
  const pkg = await extensionPackage(log);
  if (pkg.kind === 'unavailable') return notMeasured(pkg.reason);
  // The harness reads GP_E2E_VSIX once, when it is loaded, so it is set before the import.
  process.env['GP_E2E_VSIX'] = pkg.path;
  const harness = await import('../test/e2e/harness.js');
  try {
    harness.checkPrerequisites();
  } catch (error) {
    return notMeasured(errorMessage(error));
  }
  log(`extension activation: ${options.activationSessions} fresh code-server ${harness.codeServerVersion} sessions with ${pkg.note}`);
  const samples: Sample[] = [];
  const failures: string[] = [];
  for (let i = 1; i <= options.activationSessions; i++) {
    try {
      const sample = await measureSession();
      samples.push(sample);
      log(`  session ${i}: ${describe(sample)}`);
    } catch (error) {
      failures.push(errorMessage(error));
      log(`  session ${i} FAILED: ${errorMessage(error).split('\n')[0] ?? ''}`);
    }
  }
  if (samples.length === 0) return notMeasured(`every code-server session failed; the first: ${failures[0] ?? ''}`);
  return { results: [result(samples, failures, pkg.note, harness.codeServerVersion)], notMeasured: [] };
}

async function measureSession(): Promise<Sample> {
  const harness = await import('../test/e2e/harness.js');
  const workbench = await import('../test/e2e/workbench.js');
  const session = await harness.startSession();
  try {
    await mkdir(join(session.workspace, 'anchor'), { recursive: true });
    await writeFile(join(session.workspace, anchorJson), anchorJsonText);
    await workbench.openFile(session.page, experimentYaml);
    await workbench.openFile(session.page, anchorJson);
    const loggedActivationMs = await loggedMs(session, 'Graph Planner activated in', /Graph Planner activated in\D*?(\d+(?:\.\d+)?)\s*ms/);
    const loggedServerReadyMs = await loggedMs(session, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
    await workbench.runCommand(session.page, 'Developer: Show Running Extensions');
    // The editor updates live, so this also waits for the anchor to finish activating.
    const rows = await workbench.waitForRunningExtensions(session.page, [oursName, anchorName]);
    const ours = rows.get(oursName);
    const anchor = rows.get(anchorName);
    if (ours === undefined || anchor === undefined) throw new Error('waitForRunningExtensions returned without both rows');
    // The hover names the activating extension and event; it is a detail, so a missing one is noted, not fatal.
    const hover = async (name: string): Promise<string> =>
      workbench.runningExtensionActivationHover(session.page, name).catch((e: unknown) => `not read: ${errorMessage(e).split('\n')[0] ?? ''}`);
    const oursHover = await hover(oursName);
    const anchorHover = await hover(anchorName);
    if (!anchorHover.startsWith('not read') && !anchorHover.includes(anchorId)) {
      throw new Error(`the ${anchorName} row is not ${anchorId}: its hover says "${anchorHover}"`);
    }
    return { ours, anchor, oursHover, anchorHover, loggedActivationMs, loggedServerReadyMs, workbenchStartupMs: session.startupMs };
  } finally {
    await harness.stopSession(session);
  }
}

/** Reads a number of milliseconds from our output channel ("Graph Planner"), waiting for the line. */
async function loggedMs(session: Session, what: string, pattern: RegExp): Promise<number> {
  const { readLogs, tail } = await import('../test/e2e/harness.js');
  const { done, pending, waitFor } = await import('../test/e2e/wait.js');
  return waitFor(
    `the Graph Planner output channel to log "${what}"`,
    async () => {
      const text = await readLogs(session, /Graph Planner\.log$/);
      const m = pattern.exec(text);
      return m?.[1] !== undefined ? done(Number(m[1])) : pending(text === '' ? '(no Graph Planner output channel yet)' : tail(text));
    },
    { timeoutMs: 60_000 },
  );
}

/**
 * The package that carries the current build: `dist/graph-planner.vsix` when its bundles and
 * manifest are byte for byte those in `dist/` and the repository, otherwise a private package made
 * from them in `.cache/bench/` (kept while it matches), so that the figure never measures an older
 * build than the other figures do.
 * `GP_E2E_VSIX` names another package to measure as it is.
 */
async function extensionPackage(log: (line: string) => void): Promise<Package> {
  const chosen = process.env['GP_E2E_VSIX'];
  if (chosen !== undefined && chosen !== '') {
    return existsSync(chosen)
      ? { kind: 'ready', path: chosen, note: `${chosen} (GP_E2E_VSIX)` }
      : { kind: 'unavailable', reason: `GP_E2E_VSIX names ${chosen}, which does not exist` };
  }
  // scripts/bench.mjs sets this when the server does not build, so an older bundle is not measured.
  const unavailable = process.env['GP_BENCH_OURS_UNAVAILABLE'] ?? '';
  if (unavailable !== '') return { kind: 'unavailable', reason: unavailable };
  const contents = ['dist/extension.js', 'dist/server.js', 'package.json'];
  const absent = contents.filter((f) => !existsSync(join(repoRoot, f)));
  if (absent.length > 0) return { kind: 'unavailable', reason: `${absent.join(', ')} missing: build with \`npm run package\`` };
  const shipped = join(repoRoot, 'dist', 'graph-planner.vsix');
  if (!existsSync(shipped)) return { kind: 'unavailable', reason: 'dist/graph-planner.vsix does not exist: build it with `npm run package`' };
  const stale = await differingFiles(shipped, contents);
  if (stale.length === 0) return { kind: 'ready', path: shipped, note: 'dist/graph-planner.vsix' };
  const note = `${relative(repoRoot, privateVsix)} (dist/graph-planner.vsix differs from the current build in ${stale.join(', ')})`;
  if (existsSync(privateVsix) && (await differingFiles(privateVsix, contents)).length === 0) return { kind: 'ready', path: privateVsix, note };
  log(`extension activation: dist/graph-planner.vsix differs from the current build (${stale.join(', ')}); packaging ${relative(repoRoot, privateVsix)}`);
  try {
    await mkdir(join(repoRoot, '.cache', 'bench'), { recursive: true });
    const vsce = join(repoRoot, 'node_modules', '.bin', 'vsce');
    // The same arguments as `npm run package`: the package's page is extension/README.md, whose
    // images are bundled, where the repository's README links docs/images vsce cannot resolve.
    await execFileAsync(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--readme-path', 'extension/README.md', '-o', privateVsix], {
      cwd: repoRoot,
      timeout: 120_000,
    });
  } catch (error) {
    return {
      kind: 'unavailable',
      reason: `dist/graph-planner.vsix is stale and vsce could not package the current build: ${errorMessage(error).split('\n')[0] ?? ''}`,
    };
  }
  return { kind: 'ready', path: privateVsix, note };
}

/** The files of `contents` whose copy inside the package differs from the repository's, or cannot be read. */
async function differingFiles(vsix: string, contents: readonly string[]): Promise<string[]> {
  const differing: string[] = [];
  for (const file of contents) {
    const packed = await execFileAsync('unzip', ['-p', vsix, `extension/${file}`], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })
      .then(({ stdout }) => stdout)
      .catch(() => null);
    const current = await readFile(join(repoRoot, file));
    if (packed === null || !current.equals(packed)) differing.push(file);
  }
  return differing;
}

function result(samples: readonly Sample[], failures: readonly string[], pkg: string, codeServer: string): BenchResult {
  const median = (values: readonly number[]): number => round1(summarize(values).median);
  const ours = median(samples.map((s) => s.ours.activationMs ?? Number.NaN));
  const anchor = median(samples.map((s) => s.anchor.activationMs ?? Number.NaN));
  const ratio = ours / anchor;
  const list = (values: readonly (number | undefined)[]): string => values.map((v) => String(v)).join(', ');
  const last = samples[samples.length - 1];
  return {
    name: figureName,
    what:
      `activation time VS Code reports in "Developer: Show Running Extensions" (code loading + activate call), median of ${samples.length} fresh code-server ${codeServer} sessions ` +
      `after opening ${experimentYaml} and a JSON file; anchor is VS Code's built-in JSON extension`,
    unit: 'ms',
    ours,
    anchor,
    anchorName: anchorId,
    ratio,
    goal: 'ratio <= 1 (issue sets no target)',
    pass: ratio <= 1,
    details: {
      sessions: samples.length,
      failed_sessions: failures.length,
      ...(failures.length > 0 ? { first_failure: failures[0]?.split('\n')[0] ?? '' } : {}),
      package: pkg,
      ours_samples_ms: list(samples.map((s) => s.ours.activationMs)),
      anchor_samples_ms: list(samples.map((s) => s.anchor.activationMs)),
      ours_startup_activations: samples.filter((s) => s.ours.startup).length,
      anchor_startup_activations: samples.filter((s) => s.anchor.startup).length,
      ours_logged_activation_median_ms: median(samples.map((s) => s.loggedActivationMs)),
      ours_logged_server_ready_median_ms: median(samples.map((s) => s.loggedServerReadyMs)),
      ours_logged_activation_samples_ms: list(samples.map((s) => s.loggedActivationMs)),
      ours_logged_server_ready_samples_ms: list(samples.map((s) => s.loggedServerReadyMs)),
      workbench_startup_median_ms: median(samples.map((s) => s.workbenchStartupMs)),
      ours_reason_last_session: last?.oursHover ?? '',
      anchor_reason_last_session: last?.anchorHover ?? '',
    },
  };
}

function describe(s: Sample): string {
  return (
    `ours "${s.ours.activationText}", anchor "${s.anchor.activationText}"; ` +
    `output channel: activated in ${s.loggedActivationMs} ms, server ready ${s.loggedServerReadyMs} ms after; ` +
    `ours: ${s.oursHover}; anchor: ${s.anchorHover}`
  );
}

function notMeasured(reason: string): FigureOutcome {
  return { results: [], notMeasured: [{ name: figureName, reason }] };
}
