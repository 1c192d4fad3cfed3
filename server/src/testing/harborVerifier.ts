/**
 * Running a Harbor task's verifier in its sandbox (docs/field-formats.md, "Running a Harbor task"),
 * as Harbor's own verifier does: the task's `tests/` folder is placed at `/tests`, the reward files
 * of an earlier run are removed, `/tests/test.sh` runs with bash from the working directory under
 * the verifier's time limit, and the reward it leaves in `/logs/verifier/` grades the run
 * (harborReward.ts). No reward, an unreadable one or a run out of time is a reason the run cannot
 * be graded, never a zero.
 *
 * On the local backend there is no `/tests` or `/logs` to write to, so the verifier's files are
 * placed in the working copy's scratch folder and every text file among them has the absolute
 * roots Harbor's scripts name (`/tests`, `/logs` and the task's workdir) rewritten to where they are
 * on this machine (`rewriteRoots`). Returns the record and the output and writes nothing else.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { TestGrade, TestRunRecord } from '../protocol/testReport.js';
import { testStatuses } from '../protocol/testReport.js';
import { runsOnHost } from '../protocol/sandboxBackends.js';
import { shellQuote, type Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { isoTimestamp } from '../util/time.js';
import { harborReward } from './harborReward.js';
import type { ParsedTestLog } from './logText.js';

/** The verifier's output kept in the log, as much as a test log keeps. */
const verifierLogBytes = 16 * 1024 * 1024;
/** A reward file is a number or a small JSON object; anything larger is not one. */
const rewardFileBytes = 64 * 1024;
/** What a tests folder may hold before it is refused: the converter keeps the same caps (datasets/harborCopy.ts). */
const testsFolderFiles = 2000;
const testsFolderBytes = 64 * 1024 * 1024;

/** Where Harbor's absolute roots are in this sandbox. */
export interface VerifierRoots {
  readonly tests: string;
  readonly logs: string;
  readonly workdir: string;
}

/** Paths the local backend rewrites into scripts must need no quoting: letters, digits and `_ . / -`. */
const plainPath = /^[A-Za-z0-9_./-]+$/;

/** The roots in a container are Harbor's own; on the local backend, folders of the sandbox's scratch space. */
export function verifierRoots(sandbox: Sandbox): VerifierRoots {
  if (!runsOnHost(sandbox.backend)) return { tests: '/tests', logs: '/logs', workdir: sandbox.workdir };
  return { tests: sandbox.scratchPath('harbor/tests'), logs: sandbox.scratchPath('harbor/logs'), workdir: sandbox.workdir };
}

/**
 * `text` with each of Harbor's absolute roots replaced where it starts a path: `/tests/test_x.py`,
 * `"/logs/verifier/reward.txt"` and `cd /app` are rewritten, while `./tests`, `$HOME/logs`,
 * `/opt/tests` and `/testsuite` are not. A root is found only where nothing that could continue a
 * path comes before it and where it ends at `/`, a quote, a space or punctuation.
 */
export function rewriteRoots(text: string, roots: ReadonlyMap<string, string>): string {
  const from = [...roots.keys()].filter((root) => root !== '/' && root !== '').sort((a, b) => b.length - a.length);
  if (from.length === 0) return text;
  const escaped = from.map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(^|[^A-Za-z0-9_.~$/-])(${escaped.join('|')})(?=$|[^A-Za-z0-9_.-])`, 'gm');
  return text.replace(pattern, (_match, before: string, root: string) => `${before}${roots.get(root) ?? root}`);
}

interface HostFile {
  readonly path: string;
  readonly content: Buffer;
  readonly mode: number;
}

/** The files of the task's tests folder on this machine, or why they cannot be used. */
async function readTestsFolder(dir: string): Promise<{ ok: true; files: HostFile[] } | { ok: false; reason: string }> {
  const files: HostFile[] = [];
  let bytes = 0;
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    return {
      ok: false,
      reason: `the verifier's folder ${dir} cannot be read (${(error as Error).message}); prepare the task again with gp dataset prepare harbor`,
    };
  }
  for (const entry of entries) {
    const full = join(entry.parentPath, entry.name);
    const path = relative(dir, full).split(sep).join('/');
    if (entry.isDirectory()) continue;
    // A link could carry any file of this machine into the sandbox and its log.
    if (!entry.isFile())
      return {
        ok: false,
        reason: `${full} in the verifier's folder is not a regular file (a symbolic link or a device); the verifier's files must be plain files`,
      };
    const info = await lstat(full);
    bytes += info.size;
    if (files.length >= testsFolderFiles || bytes > testsFolderBytes)
      return { ok: false, reason: `the verifier's folder ${dir} holds more than ${testsFolderFiles} files or ${testsFolderBytes / 1024 / 1024} MiB` };
    files.push({ path, content: await readFile(full), mode: info.mode & 0o777 });
  }
  if (!files.some((f) => f.path === 'test.sh')) return { ok: false, reason: `the verifier's folder ${dir} has no test.sh` };
  return { ok: true, files };
}

/** Text Harbor's scripts would read: valid UTF-8 without NUL bytes. Other files are copied as they are. */
function asText(content: Buffer): string | undefined {
  if (content.includes(0)) return undefined;
  const text = content.toString('utf8');
  return Buffer.from(text, 'utf8').equals(content) ? text : undefined;
}

/** The files as they go into the sandbox: under the tests root, with the roots rewritten on the local backend. */
function placedFiles(files: readonly HostFile[], roots: VerifierRoots, harborWorkdir: string, local: boolean): HostFile[] {
  const map = new Map([
    ['/tests', roots.tests],
    ['/logs', roots.logs],
    [harborWorkdir.replace(/\/+$/, ''), roots.workdir],
  ]);
  return files.map((f) => {
    const text = local ? asText(f.content) : undefined;
    const content = text === undefined ? f.content : Buffer.from(rewriteRoots(text, map), 'utf8');
    return { path: `${roots.tests}/${f.path}`, content, mode: f.mode };
  });
}

/** The reward files the verifier left, each read when it is a small regular file. */
async function readRewardFiles(sandbox: Sandbox, logs: string): Promise<{ json?: string; text?: string; problem?: string }> {
  const dir = `${logs}/verifier`;
  const probe = await sandbox.exec(
    `for n in reward.json reward.txt; do f=${shellQuote(dir)}/$n; if [ -L "$f" ]; then echo "$n link"; elif [ -f "$f" ]; then echo "$n $(wc -c < "$f")"; elif [ -e "$f" ]; then echo "$n other"; fi; done`,
    { timeoutMs: 60_000 },
  );
  if (probe.exitCode !== 0)
    return { problem: `the reward files in ${dir} could not be looked at (${probe.stderr.trim() || `exit ${probe.exitCode ?? 'killed'}`})` };
  const found: { json?: string; text?: string; problem?: string } = {};
  for (const line of probe.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')) {
    const [name = '', what = ''] = line.split(' ');
    if (what === 'link' || what === 'other')
      return {
        problem: `/logs/verifier/${name} is not a regular file (${what === 'link' ? 'a symbolic link' : 'a folder or device'}), so it is not read as a reward`,
      };
    if (Number(what) > rewardFileBytes) return { problem: `/logs/verifier/${name} holds ${what} bytes, more than a reward (${rewardFileBytes} bytes at most)` };
    const content = (await sandbox.readFile(`${dir}/${name}`)).toString('utf8');
    if (name === 'reward.json') found.json = content;
    else found.text = content;
  }
  return found;
}

function emptyCounts(): TestRunRecord['counts'] {
  return Object.fromEntries(testStatuses.map((s) => [s, 0])) as TestRunRecord['counts'];
}

const noTests: ParsedTestLog = { tests: new Map(), complete: true };

export interface VerifierOptions {
  /** The verifier's time limit: the task's `verifier.timeout_sec`, else the config's `sandbox.test_timeout`. */
  readonly timeoutMs: number;
}

/** Runs the task's verifier in `sandbox` and grades the run by the reward it wrote. */
export async function runHarborVerifier(
  sandbox: Sandbox,
  task: TaskEntry,
  options: VerifierOptions,
): Promise<{ record: TestRunRecord; parsed: ParsedTestLog; output: string }> {
  const startedAt = isoTimestamp();
  const started = performance.now();
  const roots = verifierRoots(sandbox);
  const command = `bash ${roots.tests}/test.sh`;
  const record = (grade: TestGrade, run?: { exitCode: number | null; timedOut: boolean; truncated: boolean }): TestRunRecord => ({
    kind: 'test_run',
    task: task.task_id,
    backend: sandbox.backend,
    ...(sandbox.choice?.fallback === undefined ? {} : { backendFallback: sandbox.choice.fallback }),
    command,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    exitCode: run?.exitCode ?? null,
    timedOut: run?.timedOut ?? false,
    truncated: run?.truncated ?? false,
    parser: 'verifier',
    complete: run !== undefined && !run.timedOut,
    counts: emptyCounts(),
    tests: {},
    grade,
  });
  const refuse = (reason: string) => ({
    record: record({ kind: 'invalid', reason }),
    parsed: noTests,
    output: `graph-planner: the verifier did not run: ${reason}\n`,
  });
  const dir = sandbox.spec.verifierTests;
  if (dir === undefined || task.verifier === undefined) return refuse('the task names no verifier folder (verifier.tests)');
  const local = runsOnHost(sandbox.backend);
  if (local && ![roots.tests, roots.logs, roots.workdir].every((p) => plainPath.test(p))) {
    return refuse(
      `the local backend rewrites the verifier's absolute paths into ${roots.workdir}, which holds characters a script would need quoted; set TMPDIR to a plain path or run the task with --backend docker`,
    );
  }
  const read = await readTestsFolder(dir);
  if (!read.ok) return refuse(read.reason);
  // Harbor deletes the reward files before a run, so a reward left earlier is never read as this run's.
  const prepare = await sandbox.exec(
    `rm -rf -- ${shellQuote(roots.tests)} ${shellQuote(`${roots.logs}/verifier`)} && mkdir -p -- ${shellQuote(roots.tests)} ${shellQuote(`${roots.logs}/verifier`)} ${shellQuote(`${roots.logs}/agent`)}`,
    { timeoutMs: 60_000 },
  );
  if (prepare.exitCode !== 0) return refuse(`the verifier's folders could not be made (${prepare.stderr.trim() || `exit ${prepare.exitCode ?? 'killed'}`})`);
  for (const file of placedFiles(read.files, roots, task.sandbox.workdir, local)) await sandbox.writeFile(file.path, file.content, file.mode);
  const ran = await sandbox.exec(command, { timeoutMs: options.timeoutMs, maxOutputBytes: verifierLogBytes, env: task.verifier.env });
  let output = ran.stderr.length > 0 ? `${ran.stdout}${ran.stdout.endsWith('\n') || ran.stdout === '' ? '' : '\n'}${ran.stderr}` : ran.stdout;
  const run = { exitCode: ran.exitCode, timedOut: ran.timedOut, truncated: ran.truncated };
  if (ran.timedOut) {
    const seconds = Math.round(options.timeoutMs / 1000);
    return {
      record: record({ kind: 'invalid', reason: `the verifier did not finish within its time limit (${seconds} s, verifier.timeout_sec)` }, run),
      parsed: noTests,
      output,
    };
  }
  const files = await readRewardFiles(sandbox, roots.logs);
  for (const [name, text] of [
    ['reward.json', files.json],
    ['reward.txt', files.text],
  ] as const) {
    if (text !== undefined)
      output += `${output.endsWith('\n') || output === '' ? '' : '\n'}--- /logs/verifier/${name} ---\n${text}${text.endsWith('\n') ? '' : '\n'}`;
  }
  if (files.problem !== undefined) return { record: record({ kind: 'invalid', reason: files.problem }, run), parsed: noTests, output };
  const reward = harborReward({ json: files.json, text: files.text });
  if (!reward.ok) return { record: record({ kind: 'invalid', reason: reward.reason }, run), parsed: noTests, output };
  const grade: TestGrade = {
    kind: 'verifier',
    reward: reward.reward,
    rewards: { ...reward.rewards },
    from: reward.from,
    resolved: reward.reward >= 1,
    exitCode: ran.exitCode,
  };
  return { record: record(grade, run), parsed: noTests, output };
}
