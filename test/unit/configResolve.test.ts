import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseConfigFlags, resolveConfig } from '../../server/src/config/index.js';
import { planRunFolder, writeResolvedConfig } from '../../server/src/launch/index.js';
import { runCli } from '../../server/src/cli/main.js';

const yaml = 'experiment:\n  name: demo\nenv:\n  max_steps: 9\nlogging:\n  output_dir: out\n';

function resolveWith(argv: string[], text = yaml, command = 'train', now = new Date('2026-11-21T10:00:00Z'), baseDir = mkdtempSync(join(tmpdir(), 'gp-'))) {
  const parsed = parseConfigFlags(argv);
  assert.deepEqual(parsed.errors, []);
  const resolution = resolveConfig({ text, flags: parsed.flags, baseDir });
  const r =
    resolution.config === undefined || resolution.verdict === 'errors'
      ? { ok: false as const, findings: resolution.findings }
      : {
          ok: true as const,
          findings: resolution.findings,
          run: { ...planRunFolder(resolution.config, { command, now, commandLine: 'gp test', ignored: resolution.ignored }), ignored: resolution.ignored },
        };
  return { r, baseDir };
}

test('merges defaults, then the YAML, then flags that were given', () => {
  const { r } = resolveWith(['--set', 'training.lr=1e-5', '--dataset', 'd.jsonl']);
  assert.ok(r.ok);
  assert.equal(r.run.config.env.max_steps, 9, 'YAML beats the default');
  assert.equal(r.run.config.training.lr, 1e-5, '--set beats the default');
  assert.ok(r.run.config.paths.dataset_train.endsWith('/d.jsonl'));
  assert.equal(r.run.config.env.reward_scale, 1, 'untouched keys keep their defaults');
});

test('a flag that is not given does not override the YAML (max_steps stays 9)', () => {
  const { r } = resolveWith([]);
  assert.ok(r.ok);
  assert.equal(r.run.config.env.max_steps, 9);
});

test('--max-steps overrides the YAML when given', () => {
  const { r } = resolveWith(['--max-steps', '3']);
  assert.ok(r.ok);
  assert.equal(r.run.config.env.max_steps, 3);
});

test('--yaml-only ignores overrides except --wandb-offline and names what it ignored', () => {
  const { r } = resolveWith(['--yaml-only', '--max-steps', '3', '--wandb-offline', '--model-path', 'm', '--set', 'training.lr=0.1']);
  assert.ok(r.ok);
  assert.equal(r.run.config.env.max_steps, 9);
  assert.equal(r.run.config.logging.wandb.offline, true);
  assert.deepEqual(
    r.run.ignored.map((o) => o.flag),
    ['--max-steps 3', '--model-path m', '--set training.lr=0.1'],
  );
  assert.deepEqual(r.run.config.run?.ignored_overrides, ['--max-steps 3', '--model-path m', '--set training.lr=0.1']);
});

test('an invalid override is an error that names the flag', () => {
  const { r } = resolveWith(['--set', 'env.max_steps=abc']);
  assert.equal(r.ok, false);
  assert.equal(r.findings[0]?.flag, '--set env.max_steps=abc');
});

test('rejects malformed flags with a message', () => {
  assert.match(parseConfigFlags(['--set', 'nokey']).errors[0] ?? '', /KEY=VALUE/);
  assert.match(parseConfigFlags(['--max-steps', 'x']).errors[0] ?? '', /integer/);
  assert.match(parseConfigFlags(['--dataset']).errors[0] ?? '', /needs a value/);
});

test('default run names carry the command and a timestamp, so train and eval never share a folder', () => {
  const base = mkdtempSync(join(tmpdir(), 'gp-'));
  const now = new Date('2026-11-21T10:00:00Z');
  const train = resolveWith([], yaml, 'train', now, base).r;
  const evalRun = resolveWith([], yaml, 'eval', now, base).r;
  assert.ok(train.ok && evalRun.ok);
  assert.equal(train.run.name, 'demo-train-20261121-100000');
  assert.notEqual(train.run.dir, evalRun.run.dir);
});

test('writes resolved_config.yaml atomically into the run folder with the run recorded', async () => {
  const { r, baseDir } = resolveWith(['--run-name', 'r1']);
  assert.ok(r.ok);
  const path = await writeResolvedConfig(r.run, 'x.yaml');
  assert.equal(path, join(baseDir, 'out', 'r1', 'resolved_config.yaml'));
  const written = parse(readFileSync(path, 'utf8')) as { run: { dir: string; name: string }; env: { max_steps: number } };
  assert.equal(written.run.dir, join(baseDir, 'out', 'r1'));
  assert.equal(written.run.name, 'r1');
  assert.equal(written.env.max_steps, 9);
  const second = resolveWith(['--run-name', 'r1'], yaml, 'train', new Date(), baseDir).r;
  assert.ok(second.ok);
});

test('gp config resolve --print-config prints YAML and writes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-'));
  const file = join(dir, 'e.yaml');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, yaml);
  const out: string[] = [];
  const code = await runCli(['config', 'resolve', file, '--print-config', '--max-steps', '2'], { out: (l) => out.push(l), err: () => undefined }, dir);
  assert.equal(code, 0);
  assert.equal((parse(out.join('\n')) as { env: { max_steps: number } }).env.max_steps, 2);
  assert.equal(existsSync(join(dir, 'out')), false);
});

test('gp config check prints file:line:col findings and exits 1 on errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-'));
  const { writeFileSync } = await import('node:fs');
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, 'env:\n  failure_penalty: -2\n');
  const out: string[] = [];
  const code = await runCli(['config', 'check', '--no-disk', file], { out: (l) => out.push(l), err: (l) => out.push(l) }, dir);
  assert.equal(code, 1);
  const line = out.find((l) => l.includes('preflight/negative-penalty')) ?? '';
  assert.match(
    line,
    new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:20 error preflight/negative-penalty env\\.failure_penalty is -2, .*rewards failure`),
  );
  const fixed = await runCli(['config', 'check', '--no-disk', '--fix', file], { out: () => undefined, err: () => undefined }, dir);
  assert.equal(fixed, 0);
  assert.match(readFileSync(file, 'utf8'), /failure_penalty: 2/);
});

test('gp config check exits 2 when a file cannot be read', async () => {
  const code = await runCli(['config', 'check', '/nonexistent/x.yaml'], { out: () => undefined, err: () => undefined }, '/');
  assert.equal(code, 2);
});

test('refuses a config with an unknown key, whose setting would silently stay at its default', () => {
  const { r } = resolveWith([], 'env:\n  max_step: 3\n');
  assert.equal(r.ok, false);
  assert.ok(
    r.findings.some((f) => f.code === 'schema/unknown-key' && f.severity === 'error'),
    JSON.stringify(r.findings),
  );
});

test('resolves a config that allows unknown keys, dropping the unknown key', () => {
  const { r } = resolveWith([], 'experiment:\n  allow_unknown_keys: true\nenv:\n  max_step: 3\n');
  assert.ok(r.ok, 'with experiment.allow_unknown_keys an unknown key is a warning, not a reason to refuse');
  assert.equal(r.run.config.env.max_steps, 6);
  assert.equal('max_step' in r.run.config.env, false);
});

test('refuses --set keys that would reach Object.prototype', () => {
  assert.match(parseConfigFlags(['--set', '__proto__.polluted=1']).errors[0] ?? '', /not a config key/);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});
