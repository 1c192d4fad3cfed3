#!/usr/bin/env node
/**
 * Builds, without GitHub, a git repository per SWE-bench Lite instance of
 * test/fixtures/swebench-lite/ whose single commit IS the instance's base commit: the same tree,
 * the same commit object, the same SHA-1 as `base_commit` in the row.
 *
 * For each entry of test/fixtures/swebench-lite/repos.json:
 *   1. the release sdist is downloaded from the package index (pinned URL, checked against its
 *      SHA-256), or taken from $GP_SWEBENCH_SDIST_DIR when that folder holds a file of that name;
 *   2. it is unpacked, the files setuptools adds to an sdist are removed (`remove`), and the
 *      overlay (`git diff --binary` from that tree to the base commit's tree) is applied;
 *   3. the tree is written and must hash to `tree`; the recorded commit object (`commit_object`,
 *      the base commit's bytes as `git cat-file commit` prints them) is written and must hash to
 *      `base_commit`. Its parents are not there, so the commit is marked shallow (.git/shallow),
 *      as `git clone --depth 1` would leave it;
 *   4. branch `main` points at it and the working tree is checked out, clean.
 *
 * A hash that does not match means the overlay or the sdist is not what the fixture was made
 * from: the script fails and says which.
 *
 * Repositories are cached under $XDG_CACHE_HOME/graph-planner/swebench-lite/ (default
 * ~/.cache/graph-planner/swebench-lite/): `repos/<instance_id>-<key>` where key hashes the entry,
 * its overlay and this script's BUILD_FORMAT, so a changed fixture builds anew. A cached repository
 * is reused when its HEAD is still the base commit and `git status` is clean; otherwise rebuilt.
 * Sdists are cached in `sdists/<sha256>/<file>`.
 *
 * Usage: node test/integration/swebench-lite/build-repos.mjs [--json] [--cache DIR] [INSTANCE_ID...]
 * Prints one line per instance (`<instance_id> <base_commit> <path>`), or with --json one JSON
 * object {instances: [{instance_id, repo, base_commit, path, built, seconds}]}. Exit 1 on any failure.
 *
 * Clone mode, for `gp dataset prepare --repos DIR`, which wants one clone per repository, named
 * `owner__name`, holding every commit its rows name:
 *   node test/integration/swebench-lite/build-repos.mjs --clone [--repos-dir DIR] [--json] [--cache DIR]
 * builds ONE repository `pallets__flask` holding every instance's base commit and every commit of
 * repos.json's `commits` (the environment_setup_commit of version 2.0; 2.3's is 5063's base
 * commit), each built as above from its sdist and overlay, each with its real id, none with its
 * parents (all listed in .git/shallow). `main` (HEAD) is the last instance's base commit and is
 * checked out, clean; the other commits are in the object store with no ref, as after
 * `git fetch --depth 1 origin <sha>`. Without --repos-dir it is cached as
 * `clones/<key>/pallets__flask`; with it, built as DIR/pallets__flask (reused when already good).
 * Prints `<repo> <path>` per clone, or with --json {clones: [{repo, path, repos_dir, head, commits, built, seconds}]}.
 *
 * Needs node >= 18 (fetch), git and tar. Importable: `buildRepos({ ids, cacheDir, log })`,
 * `buildClone({ repo, cacheDir, reposDir, log })`.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Raise when the way a repository is built changes, so cached ones are rebuilt. */
const BUILD_FORMAT = 1;

const here = dirname(fileURLToPath(import.meta.url));
export const fixtureDir = resolve(here, '../../fixtures/swebench-lite');

export function defaultCacheDir() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'graph-planner', 'swebench-lite');
}

/** git with no user or system configuration, so a developer's settings cannot change the bytes. */
function git(cwd, args, input) {
  return gitWith(cwd, args, input, {});
}

function gitWith(cwd, args, input, extraEnv) {
  const inherited = { ...process.env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES']) delete inherited[k];
  return execFileSync('git', args, {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...inherited,
      ...extraEnv,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'build-repos',
      GIT_AUTHOR_EMAIL: 'build-repos@localhost',
      GIT_COMMITTER_NAME: 'build-repos',
      GIT_COMMITTER_EMAIL: 'build-repos@localhost',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  }).trim();
}

function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

export function readManifest() {
  return JSON.parse(readFileSync(join(fixtureDir, 'repos.json'), 'utf8'));
}

async function sdistFile(sdist, cacheDir, log) {
  const local = process.env.GP_SWEBENCH_SDIST_DIR ? join(process.env.GP_SWEBENCH_SDIST_DIR, sdist.filename) : undefined;
  if (local !== undefined && existsSync(local)) {
    const got = sha256(readFileSync(local));
    if (got !== sdist.sha256) throw new Error(`${local}: sha256 ${got}, expected ${sdist.sha256}`);
    return local;
  }
  const dir = join(cacheDir, 'sdists', sdist.sha256);
  const file = join(dir, sdist.filename);
  if (existsSync(file) && sha256(readFileSync(file)) === sdist.sha256) return file;
  log(`downloading ${sdist.url}`);
  let response;
  try {
    response = await globalThis.fetch(sdist.url);
  } catch (error) {
    throw new Error(
      `cannot download ${sdist.url} (${error.cause?.message ?? error.message}); put ${sdist.filename} in $GP_SWEBENCH_SDIST_DIR to build offline`,
    );
  }
  if (!response.ok) throw new Error(`cannot download ${sdist.url}: HTTP ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const got = sha256(bytes);
  if (got !== sdist.sha256) throw new Error(`${sdist.url}: sha256 ${got}, expected ${sdist.sha256}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.part`, bytes);
  renameSync(`${file}.part`, file);
  return file;
}

function cacheKey(entry, overlay) {
  const h = createHash('sha256');
  h.update(`format ${BUILD_FORMAT}\n`);
  h.update(JSON.stringify(entry));
  h.update(overlay);
  return h.digest('hex').slice(0, 16);
}

/** A folder's name in `gp dataset prepare --repos DIR`: `pallets/flask` is `pallets__flask`. */
export function cloneName(repo) {
  return repo.replace('/', '__');
}

/**
 * Writes the tree of `entry` (sdist + overlay) into the object store of `gitDir` and checks its
 * id, unpacking into `scratch` with an index of its own, so several trees can go into one repository.
 */
async function writeTreeInto(gitDir, scratch, entry, label, cacheDir, log) {
  const overlayPath = join(fixtureDir, entry.overlay);
  const tarball = await sdistFile(entry.sdist, cacheDir, log);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const index = `${scratch}.index`;
  rmSync(index, { force: true });
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: scratch, GIT_INDEX_FILE: index };
  const g = (args, input) => gitWith(scratch, args, input, env);
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', scratch, '--strip-components=1', '--no-same-owner'], { stdio: 'pipe' });
    for (const p of entry.remove) rmSync(join(scratch, p), { recursive: true, force: true });
    g(['apply', '--whitespace=nowarn', overlayPath]);
    g(['add', '-A', '-f']);
    const tree = g(['write-tree']);
    if (tree !== entry.tree) {
      throw new Error(`${label}: tree ${tree} after ${entry.sdist.filename} + ${entry.overlay}, expected ${entry.tree}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(index, { force: true });
  }
}

/** The commits of `repo` a clone holds: each instance's base commit, then repos.json's `commits`, each once. */
function cloneCommits(manifest, repo) {
  const out = [];
  const seen = new Set();
  for (const e of manifest.instances.filter((i) => i.repo === repo)) {
    if (seen.has(e.base_commit)) continue;
    seen.add(e.base_commit);
    out.push({ commit: e.base_commit, label: `${e.instance_id} base_commit`, entry: e });
  }
  for (const e of (manifest.commits ?? []).filter((c) => c.repo === repo)) {
    if (seen.has(e.commit)) continue;
    seen.add(e.commit);
    out.push({ commit: e.commit, label: `${repo} ${e.commit.slice(0, 12)} (${e.role})`, entry: e });
  }
  return out;
}

function isGoodClone(path, head, commits) {
  try {
    if (git(path, ['rev-parse', 'HEAD']) !== head || git(path, ['status', '--porcelain', '--ignored']) !== '') return false;
    for (const c of commits) git(path, ['cat-file', '-e', `${c.commit}^{commit}`]);
    const shallow = readFileSync(join(path, '.git', 'shallow'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    return commits.every((c) => shallow.includes(c.commit));
  } catch {
    return false;
  }
}

/**
 * Builds (or reuses) one repository of `repo` holding all the commits its instances name, for
 * `gp dataset prepare --repos DIR`. Returns { repo, path, repos_dir, head, commits, built, seconds }:
 * `path` is `<repos_dir>/pallets__flask`. `reposDir` builds it there; otherwise it is cached.
 */
export async function buildClone({
  repo = 'pallets/flask',
  cacheDir = defaultCacheDir(),
  reposDir,
  log = (m) => process.stderr.write(`[build-repos] ${m}\n`),
} = {}) {
  const started = Date.now();
  const manifest = readManifest();
  const commits = cloneCommits(manifest, repo);
  if (commits.length === 0) throw new Error(`${join(fixtureDir, 'repos.json')} has no instance of ${repo}`);
  const instances = manifest.instances.filter((i) => i.repo === repo);
  const head = instances[instances.length - 1].base_commit;
  const h = createHash('sha256');
  h.update(`clone format ${BUILD_FORMAT}\n${head}\n`);
  for (const c of commits) {
    h.update(JSON.stringify(c.entry));
    h.update(readFileSync(join(fixtureDir, c.entry.overlay)));
  }
  const parent = reposDir === undefined ? join(cacheDir, 'clones', h.digest('hex').slice(0, 16)) : resolve(reposDir);
  const final = join(parent, cloneName(repo));
  const result = (built) => ({
    repo,
    path: final,
    repos_dir: parent,
    head,
    commits: commits.map((c) => c.commit),
    built,
    seconds: (Date.now() - started) / 1000,
  });
  if (existsSync(final)) {
    if (isGoodClone(final, head, commits)) return result(false);
    if (reposDir !== undefined) throw new Error(`${final} exists and is not a clean clone of the fixture's ${repo} commits; remove it first`);
    log(`${final} is not a clean clone of the fixture's commits; rebuilding`);
    rmSync(final, { recursive: true, force: true });
  }
  const work = `${final}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    git(work, ['init', '-q', '-b', 'main']);
    git(work, ['config', 'core.autocrlf', 'false']);
    git(work, ['config', 'core.fileMode', 'true']);
    const gitDir = join(work, '.git');
    for (const c of commits) {
      await writeTreeInto(gitDir, `${work}.tree`, c.entry, c.label, cacheDir, log);
      const id = git(work, ['hash-object', '-t', 'commit', '-w', '--stdin'], c.entry.commit_object);
      if (id !== c.commit) throw new Error(`${c.label}: commit object hashes to ${id}, expected ${c.commit}`);
    }
    writeFileSync(
      join(gitDir, 'shallow'),
      commits
        .map((c) => `${c.commit}\n`)
        .sort()
        .join(''),
    );
    git(work, ['update-ref', 'refs/heads/main', head]);
    git(work, ['reset', '-q', '--hard', head]);
    git(work, ['fsck', '--no-dangling', '--no-progress']);
    if (!isGoodClone(work, head, commits)) throw new Error(`${repo}: the clone is not clean after the build, or lacks a commit`);
    mkdirSync(parent, { recursive: true });
    renameSync(work, final);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  return result(true);
}

function isGood(path, entry) {
  try {
    return git(path, ['rev-parse', 'HEAD']) === entry.base_commit && git(path, ['status', '--porcelain', '--ignored']) === '';
  } catch {
    return false;
  }
}

async function buildOne(entry, cacheDir, log) {
  const overlayPath = join(fixtureDir, entry.overlay);
  const overlay = readFileSync(overlayPath);
  const final = join(cacheDir, 'repos', `${entry.instance_id}-${cacheKey(entry, overlay)}`);
  if (existsSync(final)) {
    if (isGood(final, entry)) return { path: final, built: false };
    log(`${final} is not a clean checkout of ${entry.base_commit}; rebuilding`);
    rmSync(final, { recursive: true, force: true });
  }
  const tarball = await sdistFile(entry.sdist, cacheDir, log);
  const work = `${final}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    git(work, ['init', '-q', '-b', 'main']);
    git(work, ['config', 'core.autocrlf', 'false']);
    git(work, ['config', 'core.fileMode', 'true']);
    execFileSync('tar', ['-xzf', tarball, '-C', work, '--strip-components=1', '--no-same-owner'], { stdio: 'pipe' });
    for (const p of entry.remove) rmSync(join(work, p), { recursive: true, force: true });
    git(work, ['apply', '--whitespace=nowarn', overlayPath]);
    // -f: the tree holds files its own .gitignore names (the base commit tracks them anyway).
    git(work, ['add', '-A', '-f']);
    const tree = git(work, ['write-tree']);
    if (tree !== entry.tree) {
      throw new Error(`${entry.instance_id}: tree ${tree} after ${entry.sdist.filename} + ${entry.overlay}, expected ${entry.tree} (the base commit's tree)`);
    }
    const commit = git(work, ['hash-object', '-t', 'commit', '-w', '--stdin'], entry.commit_object);
    if (commit !== entry.base_commit) {
      throw new Error(`${entry.instance_id}: commit object hashes to ${commit}, expected ${entry.base_commit}`);
    }
    writeFileSync(join(work, '.git', 'shallow'), `${commit}\n`);
    git(work, ['update-ref', 'refs/heads/main', commit]);
    git(work, ['reset', '-q', '--hard', commit]);
    git(work, ['fsck', '--no-dangling', '--no-progress']);
    if (!isGood(work, entry)) throw new Error(`${entry.instance_id}: the checkout is not clean after the build`);
    mkdirSync(dirname(final), { recursive: true });
    renameSync(work, final);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  return { path: final, built: true };
}

/** Builds (or reuses) the repositories of the given instances, all when `ids` is empty. */
export async function buildRepos({ ids = [], cacheDir = defaultCacheDir(), log = (m) => process.stderr.write(`[build-repos] ${m}\n`) } = {}) {
  const manifest = readManifest();
  const unknown = ids.filter((id) => !manifest.instances.some((e) => e.instance_id === id));
  if (unknown.length > 0) throw new Error(`not in ${join(fixtureDir, 'repos.json')}: ${unknown.join(', ')}`);
  const entries = ids.length === 0 ? manifest.instances : manifest.instances.filter((e) => ids.includes(e.instance_id));
  const out = [];
  for (const entry of entries) {
    const started = Date.now();
    const { path, built } = await buildOne(entry, cacheDir, log);
    out.push({ instance_id: entry.instance_id, repo: entry.repo, base_commit: entry.base_commit, path, built, seconds: (Date.now() - started) / 1000 });
  }
  // Leftovers of interrupted builds of these instances.
  const reposDir = join(cacheDir, 'repos');
  if (existsSync(reposDir)) {
    for (const name of readdirSync(reposDir)) {
      const m = /\.tmp-(\d+)$/.exec(name);
      if (m && !isAlive(Number(m[1]))) rmSync(join(reposDir, name), { recursive: true, force: true });
    }
  }
  return out;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const at = args.indexOf('--cache');
  const cacheDir = at >= 0 ? resolve(args[at + 1]) : defaultCacheDir();
  const reposAt = args.indexOf('--repos-dir');
  const reposDir = reposAt >= 0 ? resolve(args[reposAt + 1]) : undefined;
  const ids = args.filter((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1) && (reposAt < 0 || i !== reposAt + 1));
  try {
    if (args.includes('--clone') || reposDir !== undefined) {
      if (ids.length > 0) throw new Error(`--clone builds every commit of the fixture; it takes no instance ids (${ids.join(', ')})`);
      const clone = await buildClone({ cacheDir, reposDir });
      if (json) process.stdout.write(`${JSON.stringify({ clones: [clone] }, null, 2)}\n`);
      else process.stdout.write(`${clone.repo} ${clone.path}\n`);
      process.exit(0);
    }
    const result = await buildRepos({ ids, cacheDir });
    if (json) process.stdout.write(`${JSON.stringify({ instances: result }, null, 2)}\n`);
    else for (const r of result) process.stdout.write(`${r.instance_id} ${r.base_commit} ${r.path}\n`);
  } catch (error) {
    process.stderr.write(`[build-repos] ${error.message}\n`);
    process.exit(1);
  }
}
