import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../server/src/launch/loadConfig.js';
import { parseConfigFlags, type LocatedFinding } from '../../server/src/config/index.js';

/** The findings `gp config check` gives a YAML text in a fresh folder (no dataset, no model on disk), with `argv` as its flags. */
async function check(text: string, argv: string[] = []): Promise<{ findings: readonly LocatedFinding[]; text: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gp-placeholders-'));
  writeFileSync(join(dir, 'exp.yaml'), text);
  writeFileSync(join(dir, 'mine.jsonl'), '');
  const loaded = await loadConfig({ file: 'exp.yaml', flags: parseConfigFlags(argv).flags, cwd: dir, disk: true });
  assert.ok(loaded.kind === 'resolved');
  return { findings: loaded.resolution.findings, text };
}

const pathCodes = (fs: readonly LocatedFinding[]) =>
  fs
    .filter((f) => f.path[0] === 'paths')
    .map((f) => `${f.code} ${f.path.join('.')}`)
    .sort();

test('a config that names no path says nothing about the default dataset and model paths', async () => {
  const { findings } = await check('rollout:\n  agent: model\nbackends:\n  planner_backend: embedded\n');
  assert.deepEqual(pathCodes(findings), []);
});

test('a path the file writes is checked as written, on its value', async () => {
  const { findings, text } = await check('paths:\n  dataset_train: nowhere.jsonl\n  dataset_val: null\n');
  const missing = findings.find((f) => f.code === 'preflight/path-missing');
  assert.deepEqual(missing?.path, ['paths', 'dataset_train']);
  assert.equal(text.slice(missing.range.start, missing.range.end), 'nowhere.jsonl');
  assert.doesNotMatch(missing.message, /is not set/);
});

test('beside a named training set, the default validation set gp train would read is reported on paths:, saying the default applies, with a fix', async () => {
  const { findings, text } = await check('paths:\n  dataset_train: mine.jsonl\n');
  const val = findings.find((f) => f.code === 'preflight/path-missing' && f.path[1] === 'dataset_val');
  assert.ok(val !== undefined, JSON.stringify(findings.map((f) => f.code)));
  assert.match(val.message, /^paths\.dataset_val is not set, so its default applies: .*datasets\/r2e_gym\/val\.jsonl/);
  assert.equal(text.slice(val.range.start, val.range.end), 'paths');
  assert.ok(
    val.fixes.some((x) => /dataset_val to null/.test(x.title)),
    JSON.stringify(val.fixes),
  );
});

test('a path set by a flag counts as named, so the flag is blamed for it', async () => {
  const { findings } = await check('experiment:\n  name: x\n', ['--dataset', 'nowhere.jsonl']);
  const train = findings.find((f) => f.code === 'preflight/path-missing' && f.path[1] === 'dataset_train');
  assert.equal(train?.flag, '--dataset nowhere.jsonl');
  // The flag names a path, so the default validation set is reported too, as a default.
  assert.ok(
    findings.some((f) => f.path[1] === 'dataset_val' && /is not set/.test(f.message)),
    JSON.stringify(findings.map((f) => f.message)),
  );
});
