/**
 * The trajectory viewer's edges: every message between the page and the extension is checked by
 * its schema (a real episode passes, malformed ones do not), and applying a patch to a checkout
 * runs `git apply --check` first, so a conflicting patch changes nothing and says why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { applyPatchToCheckout } from '../../extension/src/applyPatch.js';
import { compareWebviewMessageSchema, episodeWebviewMessageSchema } from '../../server/src/protocol/episodeWebview.js';
import { episodeHostMessageSchema } from '../../server/src/protocol/episodeView.js';
import { buildEpisodeModel } from '../../server/src/episodes/episodeModel.js';
import { episodeHeader, stepRow } from '../../server/src/episodes/episodeRows.js';
import { parseTrajectory } from '../../server/src/runs/trajectory.js';

const scratch = mkdtempSync(join(tmpdir(), 'gp-episode-messages-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const fixture = join(__dirname, '../fixtures/trajectories/sample-calc-add.jsonl');

test("what the extension sends about a real episode passes the page's schema; a tampered message does not", () => {
  const read = parseTrajectory(readFileSync(fixture, 'utf8'));
  const model = buildEpisodeModel(read);
  const episode = { type: 'episode', header: episodeHeader(fixture, model), rows: model.steps.map(stepRow), appended: false };
  assert.ok(episodeHostMessageSchema.safeParse(episode).success);
  assert.ok(episodeHostMessageSchema.safeParse({ type: 'steps', steps: read.steps }).success);
  assert.ok(!episodeHostMessageSchema.safeParse({ ...episode, rows: [{ step: 'one' }] }).success, 'a row that is not a row');
  assert.ok(
    !episodeHostMessageSchema.safeParse({ type: 'steps', steps: [{ ...read.steps[0], reward: 'lots' }] }).success,
    'a step whose reward is not a number',
  );
  assert.ok(!episodeHostMessageSchema.safeParse({ type: 'html', html: '<script>' }).success, 'an unknown message');
});

test('the page may ask only for what the extension does, within bounds', () => {
  const ok = (m: unknown) => episodeWebviewMessageSchema.safeParse(m).success;
  assert.ok(ok({ type: 'ready' }));
  assert.ok(ok({ type: 'needSteps', steps: [1, 2, 3] }));
  assert.ok(ok({ type: 'openLocation', file: 'app/calc.py', line: 6 }));
  assert.ok(ok({ type: 'openPatch', patch: { step: 3, candidate: 0 } }));
  assert.ok(ok({ type: 'applyPatch', patch: { step: null, candidate: null } }));
  assert.ok(!ok({ type: 'needSteps', steps: Array.from({ length: 201 }, (_, i) => i) }), 'at most 200 steps at a time');
  assert.ok(!ok({ type: 'openLocation', file: 'app/calc.py', line: 0 }), 'lines start at 1');
  assert.ok(!ok({ type: 'openPatch', patch: { step: 3, candidate: -1 } }), 'candidates start at 0');
  assert.ok(!ok({ type: 'search', query: 'x'.repeat(1001), caseSensitive: false }), 'a bounded query');
  assert.ok(!ok({ type: 'runCommand', command: 'rm -rf /' }), 'nothing else');
  assert.ok(compareWebviewMessageSchema.safeParse({ type: 'openEpisode', side: 'left' }).success);
  assert.ok(!compareWebviewMessageSchema.safeParse({ type: 'openEpisode', side: 'middle' }).success);
});

test('a patch applies to a checkout it fits, and a conflicting one changes nothing and says why', async () => {
  const repo = join(scratch, 'checkout');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  const patch = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
  assert.deepEqual(await applyPatchToCheckout(patch, repo), { ok: true });
  assert.equal(readFileSync(join(repo, 'calc.py'), 'utf8'), 'def add(a, b):\n    return a + b\n');
  // Applying it again conflicts: the file no longer says `a - b`.
  const again = await applyPatchToCheckout(patch, repo);
  assert.equal(again.ok, false);
  assert.match(again.ok ? '' : again.reason, /patch does not apply|patch failed/);
  assert.equal(readFileSync(join(repo, 'calc.py'), 'utf8'), 'def add(a, b):\n    return a + b\n', 'nothing changed');
  const twoFiles = `${patch.replace(/a - b/g, 'a + b').replace('-    return a + b\n+    return a + b', '-    return a + b\n+    return b + a')}diff --git a/missing.py b/missing.py\n--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-x\n+y\n`;
  const partial = await applyPatchToCheckout(twoFiles, repo);
  assert.equal(partial.ok, false, 'one file that does not fit refuses the whole patch');
  assert.equal(readFileSync(join(repo, 'calc.py'), 'utf8'), 'def add(a, b):\n    return a + b\n', 'not even the file that would fit changed');
});
