/**
 * The documentation's runnable commands (docs/README.md, "Runnable commands"): fenced blocks whose
 * info string is `sh runnable`, found with markdown-it as GitHub and VS Code read Markdown, and run
 * with bash in a fresh copy of the repository's files, `gp` being this repository's own CLI. Our
 * own documents are the only input, so running their text with bash is the point, not a risk.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import MarkdownIt from 'markdown-it';

/** How long a block may run when its info string names no `timeout=SECONDS`. */
export const defaultBlockTimeoutS = 60;

export interface RunnableBlock {
  /** The Markdown file, as given. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  readonly timeoutS: number;
}

/**
 * Whether a fence's info string marks it runnable: the language `sh` and the word `runnable`, with
 * an optional `timeout=SECONDS`. Renderers take the first word as the language and show no other.
 */
export function runnableInfo(info: string): { timeoutS: number } | undefined {
  const [language, ...words] = info.trim().split(/\s+/);
  if (language !== 'sh' || !words.includes('runnable')) return undefined;
  const timeout = words.find((w) => w.startsWith('timeout='));
  const seconds = timeout === undefined ? defaultBlockTimeoutS : Number(timeout.slice('timeout='.length));
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`${info.trim()}: timeout= needs a whole number of seconds.`);
  return { timeoutS: seconds };
}

/** The runnable blocks of one Markdown text, in order. */
export function runnableBlocks(markdown: string, file: string): RunnableBlock[] {
  const blocks: RunnableBlock[] = [];
  for (const token of new MarkdownIt().parse(markdown, {})) {
    if (token.type !== 'fence') continue;
    let info;
    try {
      info = runnableInfo(token.info);
    } catch (error) {
      throw new Error(`${file}:${(token.map?.[0] ?? 0) + 1}: ${(error as Error).message}`);
    }
    if (info !== undefined) blocks.push({ file, line: (token.map?.[0] ?? 0) + 1, code: token.content, ...info });
  }
  return blocks;
}

/**
 * A fresh copy of the repository as a clone would have it after `npm ci` and `npm run build` (its
 * tracked files, and new files that git does not ignore, so a page is tested before it is
 * committed), with `node_modules` linked from the repository, the built bundles copied into its
 * `dist/`, and a `gp` on the PATH that is that copy's `dist/cli.js`, as the README has it. The built
 * CLI rather than the sources under tsx, because compiling them took about two seconds of every
 * `gp` a block runs. Returns the copy's root and the folder to put first on the PATH.
 */
export function freshCopy(repo: string): { root: string; bin: string } {
  const root = mkdtempSync(join(tmpdir(), 'gp-docs-'));
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' });
  for (const path of listed.split('\0')) {
    if (path === '' || path === 'node_modules') continue;
    const to = join(root, path);
    mkdirSync(dirname(to), { recursive: true });
    try {
      cpSync(join(repo, path), to, { verbatimSymlinks: true });
    } catch (error) {
      // A file deleted in the working tree but still in the index is not part of a clone's checkout.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  copyBuilt(repo, root);
  const bin = join(root, '.gp-bin');
  mkdirSync(bin);
  const gp = join(bin, 'gp');
  writeFileSync(gp, `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(join(root, 'dist', 'cli.js'))} "$@"\n`);
  chmodSync(gp, 0o755);
  return { root, bin };
}

/**
 * The bundles and the parser's WebAssembly from the repository's `dist/` into the copy's (copied,
 * not linked, so the CLI finds the copy's own files from where it runs); the source maps and the
 * packaged extension are left out. The CLI must be built at least as late as its newest source.
 */
function copyBuilt(repo: string, root: string): void {
  const dist = join(repo, 'dist');
  const cli = join(dist, 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const built = statSync(cli).mtimeMs;
  const sources = readdirSync(join(repo, 'server', 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const newer = sources.find((f) => statSync(join(repo, 'server', 'src', f)).mtimeMs > built);
  if (newer !== undefined) throw new Error(`server/src/${newer} is newer than dist/cli.js: run npm run build first`);
  mkdirSync(join(root, 'dist'));
  for (const name of readdirSync(dist)) if (/\.(js|wasm)$/.test(name)) copyFileSync(join(dist, name), join(root, 'dist', name));
}

/** A path as one single-quoted shell word. */
function shellWord(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

export interface BlockResult {
  /** The exit status, or null when a signal (the time limit's) ended it. */
  readonly code: number | null;
  readonly timedOut: boolean;
  /** Standard output and error together, in order. */
  readonly output: string;
  readonly ms: number;
}

/**
 * Runs a block with bash (`-e -o pipefail`, no profile) in `cwd`, `bin` first on the PATH, in a
 * process group of its own that the time limit ends whole.
 */
export function runBlock(block: RunnableBlock, cwd: string, bin: string): Promise<BlockResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', block.code], {
      cwd,
      env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, block.timeoutS * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started });
    });
  });
}

/** What a failed block says: where it is, how it ended, the block and the end of its output. */
export function describeFailure(block: RunnableBlock, result: BlockResult, lines = 40): string {
  const how = result.timedOut ? `ran past its ${block.timeoutS} s limit and was stopped` : `exited ${result.code ?? 'on a signal'}`;
  const tail = result.output.trimEnd().split('\n').slice(-lines).join('\n');
  return `${block.file}:${block.line}: the runnable block ${how} after ${(result.ms / 1000).toFixed(1)} s.\n--- block ---\n${block.code.trimEnd()}\n--- output (last ${lines} lines) ---\n${tail}`;
}
