/**
 * Patches rebuilt as whole files before and after: the diff parser and applier against diffs made
 * by real git (modified, added, deleted, renamed files, a missing final newline), the pre-image
 * store (once per content, caps), and patchImages on an episode whose pre-images are in a run
 * folder, including the final patch against the base commit and the reasons a file cannot be shown.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Preimage } from '../../server/src/protocol/observation.js';
import type { TrajectoryStep } from '../../server/src/protocol/runs.js';
import { buildEpisodeModel } from '../../server/src/episodes/episodeModel.js';
import { patchImages } from '../../server/src/episodes/patchImages.js';
import { PreimageStore, readPreimage } from '../../server/src/runs/preimageStore.js';
import { parseTrajectory } from '../../server/src/runs/trajectory.js';
import { parseUnifiedDiff } from '../../server/src/protocol/unifiedDiff.js';
import { applyHunks } from '../../server/src/util/unifiedDiff.js';
import { readFileSync } from 'node:fs';

const scratch = mkdtempSync(join(tmpdir(), 'gp-patch-images-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  });
}

/** A repository with `before` committed and `after` in the working tree; returns git's diff of the two. */
function realDiff(name: string, before: Record<string, string>, after: Record<string, string>): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  for (const [path, text] of Object.entries(before)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base', '--allow-empty');
  for (const path of Object.keys(before)) if (!(path in after)) rmSync(join(dir, path));
  for (const [path, text] of Object.entries(after)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  return git(dir, 'diff', '--cached', '-M', '--no-color', 'HEAD');
}

const lines = (n: number, change?: (i: number) => string | undefined): string =>
  Array.from({ length: n }, (_, i) => change?.(i + 1) ?? `line ${i + 1}`).join('\n') + '\n';

describe('unified diffs from real git', () => {
  test('a modified file with two hunks rebuilds to the new text exactly', () => {
    const before = lines(40);
    const afterText = lines(40, (i) => (i === 3 ? 'changed three' : i === 35 ? 'changed thirty-five' : undefined));
    const [file] = parseUnifiedDiff(realDiff('modified', { 'a.py': before }, { 'a.py': afterText }));
    assert.equal(file?.status, 'modified');
    assert.equal(file?.hunks.length, 2);
    assert.deepEqual(applyHunks(before, file?.hunks ?? []), { ok: true, text: afterText });
  });

  test('added, deleted and renamed files, and a file that loses its final newline', () => {
    const kept = lines(30);
    const diff = realDiff(
      'mixed',
      { 'old/name.py': kept, 'gone.py': 'bye\n', 'tail.py': 'one\ntwo\n' },
      { 'new/name.py': kept.replace('line 20', 'line twenty'), 'fresh.py': 'hello\nworld\n', 'tail.py': 'one\ntwo' },
    );
    const files = parseUnifiedDiff(diff);
    const by = (p: string) => files.find((f) => f.newPath === p || f.oldPath === p);
    assert.deepEqual(
      [by('fresh.py')?.status, by('gone.py')?.status, by('new/name.py')?.status, by('tail.py')?.status],
      ['added', 'deleted', 'renamed', 'modified'],
    );
    assert.equal(by('new/name.py')?.oldPath, 'old/name.py');
    assert.deepEqual(applyHunks('', by('fresh.py')?.hunks ?? []), { ok: true, text: 'hello\nworld\n' });
    assert.deepEqual(applyHunks('bye\n', by('gone.py')?.hunks ?? []), { ok: true, text: '' });
    assert.deepEqual(applyHunks(kept, by('new/name.py')?.hunks ?? []), { ok: true, text: kept.replace('line 20', 'line twenty') });
    assert.deepEqual(applyHunks('one\ntwo\n', by('tail.py')?.hunks ?? []), { ok: true, text: 'one\ntwo' });
  });

  test('a pre-image that does not match the hunk fails and says which line', () => {
    const [file] = parseUnifiedDiff(realDiff('mismatch', { 'a.py': lines(10) }, { 'a.py': lines(10, (i) => (i === 5 ? 'five' : undefined)) }));
    const result = applyHunks(
      lines(10, (i) => (i === 5 ? 'not what the patch saw' : undefined)),
      file?.hunks ?? [],
    );
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /line 5 is "not what the patch saw", but the patch expects "line 5"/);
  });
});

describe('the pre-image store', () => {
  test('keeps one copy per content, says when a file did not exist, and refuses files over the caps', async () => {
    const run = join(scratch, 'store-run');
    const store = new PreimageStore(run, { maxFileBytes: 100, maxTotalBytes: 150 });
    const a = await store.record('a.py', Buffer.from('same text\n'));
    const b = await store.record('b.py', Buffer.from('same text\n'));
    assert.equal(a.sha256, b.sha256);
    assert.equal(readdirSync(join(run, 'preimages')).length, 1, 'one file for one content');
    assert.equal((await readPreimage(run, a.sha256 ?? ''))?.toString(), 'same text\n');
    assert.deepEqual(await store.record('new.py', undefined), { path: 'new.py', sha256: null });
    const big = await store.record('big.py', Buffer.alloc(101, 'x'));
    assert.match(big.skipped ?? '', /over the 100-byte cap/);
    await store.record('c.py', Buffer.alloc(90, 'c'));
    const full = await store.record('d.py', Buffer.alloc(90, 'd'));
    assert.match(full.skipped ?? '', /reached their 150-byte cap/);
    assert.equal(await readPreimage(run, '../../etc/passwd'), undefined, 'only hashes name pre-images');
  });
});

describe('pre-images kept by episodes running in parallel', () => {
  test('the same content kept at once by several episodes is written once, and every episode gets its hash', async () => {
    const run = join(scratch, 'parallel-run');
    const store = new PreimageStore(run);
    const kept = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.record(`copy-${i}.py`, Buffer.from('def add(lhs, rhs):\n    return lhs - rhs\n'))),
    );
    assert.equal(new Set(kept.map((p) => p.sha256)).size, 1);
    assert.ok(
      kept.every((p) => p.sha256 !== null && p.skipped === undefined),
      JSON.stringify(kept),
    );
    assert.deepEqual(readdirSync(join(run, 'preimages')).filter((f) => !f.startsWith('.')).length, 1);
    assert.deepEqual(
      readdirSync(join(run, 'preimages')).filter((f) => f.startsWith('.')),
      [],
      'no temporary file is left',
    );
  });

  test('two stores of one run (two processes, or a resumed run) writing the same content at once both succeed', async () => {
    const run = join(scratch, 'two-stores-run');
    const content = Buffer.from('x = 1\n');
    const [a, b] = await Promise.all([new PreimageStore(run).record('a.py', content), new PreimageStore(run).record('a.py', content)]);
    assert.equal(a.sha256, b.sha256);
    assert.equal(a.skipped ?? b.skipped, undefined);
    assert.equal((await readPreimage(run, a.sha256 ?? ''))?.toString(), 'x = 1\n');
  });
});

describe('patchImages', () => {
  const fixture = readFileSync(join(__dirname, '../fixtures/trajectories/sample-calc-add.jsonl'), 'utf8');

  /** The fixture episode with its repair candidates given pre-images recorded in a run folder. */
  async function episodeWithPreimages(run: string, record: boolean) {
    const read = parseTrajectory(fixture);
    const store = new PreimageStore(run);
    const base = readFileSync(join(__dirname, '../../docker/repoenv_sample/sample_repo/app/calc.py'));
    for (const step of read.steps as TrajectoryStep[]) {
      const last = step.observation.last;
      if (last?.kind !== 'repair') continue;
      for (const c of last.candidates) {
        const preimages: Preimage[] = record ? [await store.record('app/calc.py', base)] : [];
        if (record) c.preimages = preimages;
      }
    }
    return buildEpisodeModel(read);
  }

  test('a repair candidate and the final patch rebuild app/calc.py before and after', async () => {
    const run = join(scratch, 'images-run');
    const model = await episodeWithPreimages(run, true);
    const repair = model.steps.find((s) => s.kind === 'repair');
    assert.ok(repair, 'the fixture has a repair step');
    const images = await patchImages(join(run, 'trajectories', 'sample-calc-add.jsonl'), model, { step: repair.step, candidate: 0 });
    assert.ok(images.ok, images.ok ? '' : images.message);
    assert.match(images.title, new RegExp(`^Step ${repair.step} · candidate #1 · tests passed$`));
    const [file] = images.files;
    assert.equal(file?.problem, null);
    assert.match(file?.before ?? '', /return lhs - rhs/);
    assert.match(file?.after ?? '', /return lhs \+ rhs/);
    assert.equal(file?.after, file?.before?.replace('return lhs - rhs', 'return lhs + rhs'));
    const final = await patchImages(join(run, 'trajectories', 'sample-calc-add.jsonl'), model, { step: null, candidate: null });
    assert.ok(final.ok);
    assert.equal(final.title, 'Final patch · resolved');
    assert.equal(final.files[0]?.after, file?.after);
  });

  test('without recorded pre-images, or with the store deleted, each file says why it cannot be shown', async () => {
    const run = join(scratch, 'no-images-run');
    const none = await patchImages(join(run, 'trajectories', 'x.jsonl'), await episodeWithPreimages(run, false), { step: null, candidate: null });
    assert.ok(none.ok);
    assert.match(none.files[0]?.problem ?? '', /recorded no pre-image of app\/calc\.py/);
    const deleted = join(scratch, 'deleted-run');
    const model = await episodeWithPreimages(deleted, true);
    rmSync(join(deleted, 'preimages'), { recursive: true });
    const gone = await patchImages(join(deleted, 'trajectories', 'x.jsonl'), model, { step: null, candidate: null });
    assert.ok(gone.ok);
    assert.match(gone.files[0]?.problem ?? '', /is missing from .*preimages/);
    const notRepair = await patchImages(join(run, 'trajectories', 'x.jsonl'), model, { step: 1, candidate: 0 });
    assert.deepEqual(notRepair, { ok: false, message: 'Step 1 is not a repair step.' });
  });
});
