/**
 * Every command that takes a config reaches the same verdict on the same file and flags: `gp config
 * check`, `gp config resolve`, `gp rollout`, `gp eval` and `gp task test` all resolve through
 * `launch/loadConfig.ts`. Each command runs for real through `runCli`; the launching ones are given
 * a task file that does not exist, so they stop right after resolving the config, having printed
 * its findings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';

type Verdict = 'ok' | 'warnings' | 'errors';

const dir = mkdtempSync(join(tmpdir(), 'gp-verdicts-'));
writeFileSync(join(dir, 'tasks.jsonl'), '');
// Paths that exist, and a served planner and CGM, so the disk rules have nothing to say about them.
const base = [
  'experiment:\n  name: verdicts',
  'paths:\n  dataset_train: tasks.jsonl\n  dataset_val: null\n  planner_model: tasks.jsonl\n  cgm_model: tasks.jsonl',
  'logging:\n  output_dir: out',
].join('\n');

const files: Record<string, string> = {
  'valid.yaml': `${base}\nenv:\n  max_steps: 6\n`,
  // A config that opts out of unknown keys being errors gets them as warnings (validate.ts).
  'warnings.yaml': `${base}\nenv:\n  max_step: 6\n`.replace('name: verdicts', 'name: verdicts\n  allow_unknown_keys: true'),
  'misspelt.yaml': `${base}\nbackends:\n  planer_backend: openai\n`,
  'errors.yaml': `${base}\nenv:\n  failure_penalty: -1\n`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);

interface Case {
  readonly name: string;
  readonly file: string;
  readonly flags: readonly string[];
  readonly expected: Verdict;
}

const cases: readonly Case[] = [
  { name: 'a valid file', file: 'valid.yaml', flags: [], expected: 'ok' },
  { name: 'a file with warnings only', file: 'warnings.yaml', flags: [], expected: 'warnings' },
  { name: 'a file with errors', file: 'errors.yaml', flags: [], expected: 'errors' },
  { name: 'a misspelt key', file: 'misspelt.yaml', flags: [], expected: 'errors' },
  { name: 'an override that fixes an error', file: 'errors.yaml', flags: ['--set', 'env.failure_penalty=1'], expected: 'ok' },
  { name: 'an override that causes an error', file: 'valid.yaml', flags: ['--set', 'env.step_penalty=-0.5'], expected: 'errors' },
];

/** The command lines under test, each ending in a task file that does not exist. */
const commands: Readonly<Record<string, (file: string, flags: readonly string[]) => string[]>> = {
  'config check': (file, flags) => ['config', 'check', file, ...flags],
  'config resolve': (file, flags) => ['config', 'resolve', file, '--print-config', ...flags],
  rollout: (file, flags) => ['rollout', 'missing.jsonl', '--config', file, ...flags],
  eval: (file, flags) => ['eval', 'missing.jsonl', '--config', file, ...flags],
  'task test': (file, flags) => ['task', 'test', 'missing.jsonl', '--config', file, ...flags],
};

interface Outcome {
  readonly verdict: Verdict;
  /** The error and warning lines about the config, each `location severity code`. */
  readonly findings: readonly string[];
  readonly code: number;
}

async function run(argv: string[], file: string): Promise<Outcome> {
  const lines: string[] = [];
  const code = await runCli(argv, { out: (l) => lines.push(l), err: (l) => lines.push(l) }, dir);
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const finding = new RegExp(`^(${escaped}(?::\\d+:\\d+|: --\\S+(?: \\S+)?:)) (error|warning) (\\S+)`);
  const findings = lines.flatMap((l) => {
    const m = finding.exec(l);
    return m ? [`${m[1]} ${m[2]} ${m[3]}`] : [];
  });
  const verdict: Verdict = findings.some((f) => f.includes(' error ')) ? 'errors' : findings.length > 0 ? 'warnings' : 'ok';
  return { verdict, findings: [...new Set(findings)].sort(), code };
}

for (const c of cases) {
  test(`every config-taking command gives one verdict on ${c.name} (${c.expected})`, async () => {
    const outcomes = new Map<string, Outcome>();
    for (const [name, argv] of Object.entries(commands)) outcomes.set(name, await run(argv(c.file, c.flags), c.file));
    for (const [name, outcome] of outcomes) assert.equal(outcome.verdict, c.expected, `gp ${name} on ${c.file} ${c.flags.join(' ')}`);
    const reference = outcomes.get('config check')?.findings;
    for (const [name, outcome] of outcomes) assert.deepEqual(outcome.findings, reference, `gp ${name} prints the findings gp config check prints`);
    const check = outcomes.get('config check');
    const resolve = outcomes.get('config resolve');
    assert.equal(check?.code, c.expected === 'errors' ? 1 : 0);
    assert.equal(resolve?.code, c.expected === 'errors' ? 1 : 0);
    // The launching commands refuse a config with errors (2) and otherwise go on to the task file,
    // which does not exist (also 2): what tells them apart is whether they said the config failed.
    for (const name of ['rollout', 'eval', 'task test']) assert.equal(outcomes.get(name)?.code, 2, `gp ${name} exit code`);
  });
}

test('a flag that fixes a YAML error removes the error instead of printing it beside the fixed config', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    ['config', 'resolve', 'errors.yaml', '--print-config', '--set', 'env.failure_penalty=1'],
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    dir,
  );
  assert.equal(code, 0);
  assert.deepEqual(
    err.filter((l) => l.includes('negative-penalty')),
    [],
  );
  assert.match(out.join('\n'), /failure_penalty: 1\b/);
});

test('a flag that causes an error is named as its place', async () => {
  const err: string[] = [];
  const code = await runCli(['config', 'check', 'valid.yaml', '--set', 'env.step_penalty=-0.5'], { out: (l) => err.push(l), err: (l) => err.push(l) }, dir);
  assert.equal(code, 1);
  assert.ok(
    err.some((l) => l.startsWith('valid.yaml: --set env.step_penalty=-0.5: error preflight/negative-penalty')),
    err.join('\n'),
  );
});

test('an unknown key under env: is reported once, at its place in the YAML', async () => {
  const lines: string[] = [];
  await runCli(['rollout', 'missing.jsonl', '--config', 'warnings.yaml'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, dir);
  const unknown = lines.filter((l) => l.includes('schema/unknown-key'));
  assert.equal(unknown.length, 1, unknown.join('\n'));
  assert.match(unknown[0] ?? '', /^warnings\.yaml:12:3 warning schema\/unknown-key/);
});

test('a misspelt key stops gp rollout before it starts, naming the key and the one it meant', async () => {
  const lines: string[] = [];
  const code = await runCli(['rollout', 'missing.jsonl', '--config', 'misspelt.yaml'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, dir);
  assert.equal(code, 2);
  assert.ok(
    lines.some((l) => /^misspelt\.yaml:\d+:3 error schema\/unknown-key Unknown key 'planer_backend' in backends\. Did you mean 'planner_backend'\?/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /config has errors/.test(l)),
    `it stopped at the config, not at the task file: ${lines.join('\n')}`,
  );
  assert.ok(!lines.some((l) => /missing\.jsonl: no such file/.test(l)), lines.join('\n'));
});

test('gp task test accepts a config that gp config resolve and gp rollout accept with a warning', async () => {
  const lines: string[] = [];
  const code = await runCli(['task', 'test', 'missing.jsonl', '--config', 'warnings.yaml'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, dir);
  assert.equal(code, 2);
  assert.ok(
    lines.some((l) => /missing\.jsonl: no such file/.test(l)),
    `it got past the config to the task file: ${lines.join('\n')}`,
  );
  assert.ok(!lines.some((l) => /Unrecognized key|config has errors/.test(l)), lines.join('\n'));
});
