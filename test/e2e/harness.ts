/**
 * Starts real VS Code (code-server, installed by `test/e2e/setup.sh`) with our packaged extension,
 * and drives it in Debian's Chromium through playwright-core. Every session gets a fresh user-data
 * folder, extensions folder and copy of the fixture workspace, so tests may change files freely
 * and no state leaks between runs. The UI helpers live in `workbench.ts`.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { done, pending, waitFor } from './wait.js';
import { errorMessage } from '../../server/src/util/errors.js';

const execFileAsync = promisify(execFile);

export const repoRoot = resolve(__dirname, '../..');
export const artifactsDir = join(repoRoot, 'test-artifacts/e2e');
export const codeServerVersion = '4.100.3';
const codeServerEntry = join(repoRoot, '.cache/code-server/node_modules/code-server/out/node/entry.js');
const codeServerMarker = join(repoRoot, '.cache/code-server/.installed');
const chromiumPath = '/usr/bin/chromium';
// GP_E2E_VSIX lets a developer try another package (an older build, a stub) without repackaging.
const vsixPath = resolve(process.env['GP_E2E_VSIX'] ?? join(repoRoot, 'dist/graph-planner.vsix'));
const fixtureWorkspace = join(__dirname, 'fixtures/workspace');
const setupHint = 'Run `bash test/e2e/setup.sh` (it installs Chromium and code-server).';

/** Flags from docs/e2e.md: headless Chromium as root in a container, with nothing phoning home. */
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * User settings that keep the workbench quiet and predictable: no welcome page, no update or
 * extension-recommendation toasts, and no suggestions popping up while a test types (the test
 * asks for them explicitly).
 */
const userSettings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
  'editor.suggestOnTriggerCharacters': false,
  'editor.lightbulb.enabled': 'off',
  'files.autoSave': 'off',
  'chat.commandCenter.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  // The DOM renderer keeps a terminal's text in the page, so a scenario can read what a command
  // printed (and show it when the command did not do what the scenario waits for).
  'terminal.integrated.gpuAcceleration': 'off',
};

/**
 * Settings VS Code declares machine-scoped. code-server's window is a remote one, where such a
 * setting is read from the remote machine's settings (`<user-data-dir>/Machine/settings.json`, what
 * the Settings editor's "Remote" tab writes) and ignored in the user's settings.json, by the workbench
 * and by an extension's `getConfiguration` alike.
 */
const machineSettings = {
  // Our Getting Started walkthrough opens on the first activation unless this is off; only its own
  // test (gettingStarted.test.ts) turns it on, so the other scenarios start from the same screen.
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
};

export interface Session {
  readonly page: Page;
  readonly browser: Browser;
  /** The copy of the fixture workspace that code-server has open. */
  readonly workspace: string;
  readonly port: number;
  /** code-server's user-data folder; its `logs/` holds the extension host's logs. */
  readonly userDataDir: string;
  /** Everything this session created on disk; removed by `stopSession`. */
  readonly tempDir: string;
  readonly codeServer: ChildProcess;
  /** code-server's own stdout and stderr. */
  readonly serverLog: string;
  /** Milliseconds from launching code-server to a visible workbench. */
  readonly startupMs: number;
}

/** Fails with an actionable message when something the layer needs is not on this machine. */
export function checkPrerequisites(): void {
  const marker = existsSync(codeServerMarker) ? 'present' : 'missing';
  if (!existsSync(codeServerEntry) || marker === 'missing') {
    throw new Error(`code-server ${codeServerVersion} is not installed under .cache/code-server (marker ${marker}). ${setupHint}`);
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is not installed at ${chromiumPath}. ${setupHint}`);
  }
  if (!existsSync(vsixPath)) {
    throw new Error(`The extension package ${vsixPath} does not exist. Run \`npm run package\` first.`);
  }
}

/** Pieces of a session that exist so far, so that a failed start can still be cleaned up. */
interface Started {
  tempDir?: string;
  codeServer?: ChildProcess;
  browser?: Browser;
}

export interface SessionOptions {
  /** The fixture workspace to copy (a folder under `test/e2e/fixtures/`); `workspace` by default. */
  readonly fixture?: string;
  /** Extra copies into the workspace: repository-relative source → workspace-relative target. */
  readonly extraFiles?: Readonly<Record<string, string>>;
  /** Settings written to the workspace's `.vscode/settings.json` before code-server starts. */
  readonly workspaceSettings?: Readonly<Record<string, unknown>>;
  /** User settings over the quiet defaults above. */
  readonly userSettings?: Readonly<Record<string, unknown>>;
  /** Machine-scoped settings over the defaults above. */
  readonly machineSettings?: Readonly<Record<string, unknown>>;
}

export async function startSession(options: SessionOptions = {}): Promise<Session> {
  checkPrerequisites();
  const partial: Started = {};
  try {
    return await start(partial, options);
  } catch (error) {
    await cleanUp(partial);
    throw error;
  }
}

async function start(partial: Started, options: SessionOptions): Promise<Session> {
  const tempDir = await mkdtemp(join(tmpdir(), 'gp-e2e-'));
  partial.tempDir = tempDir;
  const workspace = join(tempDir, 'workspace');
  const userDataDir = join(tempDir, 'user-data');
  const extensionsDir = join(tempDir, 'extensions');
  const serverLog = join(tempDir, 'code-server.log');
  await cp(options.fixture === undefined ? fixtureWorkspace : join(__dirname, 'fixtures', options.fixture), workspace, { recursive: true });
  for (const [from, to] of Object.entries(options.extraFiles ?? {})) await cp(join(repoRoot, from), join(workspace, to), { recursive: true });
  if (options.workspaceSettings !== undefined) {
    await mkdir(join(workspace, '.vscode'), { recursive: true });
    await writeFile(join(workspace, '.vscode/settings.json'), JSON.stringify(options.workspaceSettings, null, 2));
  }
  await mkdir(join(userDataDir, 'User'), { recursive: true });
  await writeFile(join(userDataDir, 'User/settings.json'), JSON.stringify({ ...userSettings, ...options.userSettings }, null, 2));
  await mkdir(join(userDataDir, 'Machine'), { recursive: true });
  await writeFile(join(userDataDir, 'Machine/settings.json'), JSON.stringify({ ...machineSettings, ...options.machineSettings }, null, 2));
  await installExtension(userDataDir, extensionsDir);

  const port = await freePort();
  const started = Date.now();
  const codeServer = spawnCodeServer(port, userDataDir, extensionsDir, workspace, serverLog);
  partial.codeServer = codeServer;
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, codeServer, serverLog);

  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
  partial.browser = browser;
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  // The workbench frame appears before its parts are restored; the status bar is one of the last.
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: 60_000 });
  return { page, browser, workspace, port, userDataDir, tempDir, codeServer, serverLog, startupMs: Date.now() - started };
}

async function installExtension(userDataDir: string, extensionsDir: string): Promise<void> {
  const args = [codeServerEntry, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsixPath];
  const { stdout, stderr } = await execFileAsync(process.execPath, args, { timeout: 120_000 });
  const output = `${stdout}\n${stderr}`;
  if (!/successfully installed/i.test(output)) {
    throw new Error(`code-server did not install ${vsixPath}:\n${output}`);
  }
}

function spawnCodeServer(port: number, userDataDir: string, extensionsDir: string, workspace: string, logFile: string): ChildProcess {
  const args = [
    codeServerEntry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-workspace-trust',
    '--disable-update-check',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    workspace,
  ];
  // `detached` puts code-server and everything it spawns (extension host, language server) in a
  // process group of its own, so `stopSession` can end all of them and nothing else.
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  // If the test process dies before its `after` hook (Ctrl+C, a crash), the group goes with it.
  const pid = child.pid;
  if (pid !== undefined) {
    const killGroup = (): void => signalGroup(pid, 'SIGKILL');
    process.once('exit', killGroup);
    child.once('exit', () => process.removeListener('exit', killGroup));
  }
  return child;
}

async function waitForHttp(url: string, child: ChildProcess, logFile: string): Promise<void> {
  await waitFor(
    `code-server to answer on ${url}/healthz`,
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        const log = await readFile(logFile, 'utf8').catch(() => '');
        throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}):\n${log}`);
      }
      const response = await fetch(`${url}/healthz`).catch((error: unknown) => String(error));
      return typeof response === 'string' || !response.ok ? pending(String(typeof response === 'string' ? response : response.status)) : done(true);
    },
    { timeoutMs: 60_000 },
  ).catch(async (error: unknown) => {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    throw new Error(`${errorMessage(error)}\ncode-server log:\n${log}`);
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolvePort(port) : reject(new Error('no free port'))));
    });
  });
}

/** Closes the browser, ends code-server's process group and removes the session's files. */
export async function stopSession(session: Session | undefined): Promise<void> {
  if (session === undefined) return;
  await cleanUp(session);
}

async function cleanUp(parts: Started): Promise<void> {
  await parts.browser?.close().catch(() => undefined);
  if (parts.codeServer !== undefined) await endProcessGroup(parts.codeServer);
  if (parts.tempDir !== undefined && process.env['GP_E2E_KEEP'] !== '1') {
    await rm(parts.tempDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function endProcessGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  signalGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  // Children that ignored SIGTERM (a language server mid-request) must not outlive the test.
  signalGroup(pid, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** All files under `dir`, recursively; an absent folder has none. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * Log text written by code-server under the session's user-data folder (extension host log,
 * output channels), each file headed by its path. Tests search it for our extension's lines and
 * print it when the extension never shows up.
 */
export async function readLogs(session: Session, nameFilter: RegExp = /\.log$/): Promise<string> {
  const files = (await filesUnder(join(session.userDataDir, 'logs'))).filter((f) => nameFilter.test(f)).sort();
  const parts = await Promise.all(files.map(async (f) => `== ${f.slice(session.userDataDir.length + 1)}\n${await readFile(f, 'utf8').catch(() => '')}`));
  return parts.join('\n');
}

/** The last `lines` lines of `text`, for failure messages that must stay readable. */
export function tail(text: string, lines = 40): string {
  return text.split('\n').slice(-lines).join('\n');
}

export async function saveTimings(timings: Record<string, unknown>): Promise<string> {
  await mkdir(artifactsDir, { recursive: true });
  const file = join(artifactsDir, 'timings.json');
  await writeFile(file, `${JSON.stringify(timings, null, 2)}\n`);
  return file;
}
