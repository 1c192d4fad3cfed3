/**
 * Moving an episode's records from the folder a sandbox host wrote them in to the run folder of
 * the front door that routed the episode (docs/sandbox-hosts.md). A host runs each episode in a
 * folder of its own, laid out as a run folder, so everything in it belongs to that one episode:
 * its trajectory, its instance report, its test logs and `test_runs.jsonl` lines, its patch
 * pre-images. The front door writes what arrives as if the episode had run in its own process.
 * Paths are checked before anything is written: a path outside those folders, absolute, or
 * climbing out with `..` is refused by name, so a host can never write anywhere else.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { EpisodeFile } from '../protocol/sandboxHosts.js';
import { testRunRecordSchema, type TestRunRecord } from '../protocol/testReport.js';
import { trajectoryLineSchema } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { parseJsonLines } from './jsonLines.js';
import { appendTestRunRecord } from './testRuns.js';

/** The folders of a run that hold one episode's own files; the appended lines of `test_runs.jsonl` come apart. */
const episodeFolders = ['trajectories', 'reports', 'tests', 'preimages'] as const;
const testRunsName = 'test_runs.jsonl';

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(root, path)));
    else if (entry.isFile()) found.push(relative(root, path).split(sep).join('/'));
  }
  return found;
}

/** Everything one episode's folder holds that belongs in a run folder, as files to send. */
export async function collectEpisodeFiles(episodeDir: string): Promise<EpisodeFile[]> {
  const paths = [
    ...(await Promise.all(episodeFolders.map((f) => filesUnder(episodeDir, join(episodeDir, f))))).flat(),
    ...(existsSync(join(episodeDir, testRunsName)) ? [testRunsName] : []),
  ];
  return Promise.all(paths.sort().map(async (path) => ({ path, data: (await readFile(join(episodeDir, path))).toString('base64') })));
}

export class TransferError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransferError';
  }
}

/** Why a path may not be written into a run folder, or undefined when it may. */
export function refusedPath(path: string): string | undefined {
  if (path === testRunsName) return undefined;
  if (path.includes('\\') || path.includes('\0')) return 'holds a backslash or a NUL';
  if (path.startsWith('/')) return 'is absolute';
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return 'has an empty, `.` or `..` segment';
  if (!(episodeFolders as readonly string[]).includes(parts[0] ?? '') || parts.length < 2)
    return `is not inside ${episodeFolders.join('/, ')}/ or ${testRunsName}`;
  return undefined;
}

/**
 * Writes an episode's files into the run folder: each file atomically (a pre-image already there
 * is kept, since its name is its content's hash), a trajectory only once every line of it checks,
 * and the test runs' lines appended one by one. All paths are checked before the first write.
 */
export async function writeEpisodeFiles(runDir: string, files: readonly EpisodeFile[]): Promise<void> {
  const testRuns: TestRunRecord[] = [];
  for (const file of files) {
    const why = refusedPath(file.path);
    if (why !== undefined)
      throw new TransferError(`an episode file's path ${JSON.stringify(file.path.slice(0, 200))} ${why}; nothing of this episode was written`);
    const text = (): string => Buffer.from(file.data, 'base64').toString('utf8');
    const problem = (problems: readonly string[]): TransferError | undefined =>
      problems.length > 0 ? new TransferError(`${file.path} of an episode: ${problems[0] ?? ''}; nothing of this episode was written`) : undefined;
    if (file.path === testRunsName) {
      const parsed = parseJsonLines(text(), testRunRecordSchema);
      const refused = problem(parsed.problems);
      if (refused !== undefined) throw refused;
      testRuns.push(...parsed.records);
    } else if (file.path.startsWith('trajectories/')) {
      const refused = problem(parseJsonLines(text(), trajectoryLineSchema).problems);
      if (refused !== undefined) throw refused;
    }
  }
  for (const file of files) {
    if (file.path === testRunsName) continue;
    const target = join(runDir, ...file.path.split('/'));
    if (file.path.startsWith('preimages/') && existsSync(target)) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, Buffer.from(file.data, 'base64'));
  }
  // One write per line, as recordTestRun appends them, so concurrent episodes' lines never interleave.
  for (const record of testRuns) await appendTestRunRecord(runDir, record);
}
