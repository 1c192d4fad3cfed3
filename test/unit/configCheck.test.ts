import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyYamlEdits, checkConfigText, parseYamlSource, preflight, experimentConfigSchema } from '../../server/src/config/index.js';
import type { LocatedFinding } from '../../server/src/config/index.js';

function at(text: string, f: LocatedFinding): string {
  return text.slice(f.range.start, f.range.end);
}

function only(findings: readonly LocatedFinding[], code: string): LocatedFinding {
  const hits = findings.filter((f) => f.code === code);
  assert.equal(hits.length, 1, `expected one ${code}, got ${JSON.stringify(findings.map((f) => f.code))}`);
  return hits[0] as LocatedFinding;
}

test('reports an unknown key as an error on the key, with the closest known key as its preferred fix', () => {
  const text = 'env:\n  max_step: 6\n';
  const f = only(checkConfigText(text).findings, 'schema/unknown-key');
  assert.equal(f.severity, 'error');
  assert.equal(at(text, f), 'max_step');
  assert.match(f.message, /Did you mean 'max_steps'\?.*blocks a launch.*experiment\.allow_unknown_keys: true/);
  assert.deepEqual(f.fixes.find((x) => x.preferred)?.edits, [{ op: 'rename', path: ['env', 'max_step'], newKey: 'max_steps' }]);
});

test('a misspelt key leaves its setting at the default, which is why it is an error', () => {
  const check = checkConfigText('backends:\n  planer_backend: openai\n');
  assert.equal(only(check.findings, 'schema/unknown-key').severity, 'error');
  assert.equal(check.config?.backends.planner_backend, 'local');
});

test('experiment.allow_unknown_keys: true keeps unknown keys as warnings, everywhere in the file', () => {
  const text = 'experiment:\n  allow_unknown_keys: true\nenv:\n  max_step: 6\nfuture_section:\n  x: 1\n';
  const unknown = checkConfigText(text).findings.filter((f) => f.code === 'schema/unknown-key');
  assert.deepEqual(unknown.map((f) => [at(text, f), f.severity]).sort(), [
    ['future_section', 'warning'],
    ['max_step', 'warning'],
  ]);
  assert.match(unknown.find((f) => at(text, f) === 'max_step')?.message ?? '', /ignored \(experiment\.allow_unknown_keys is true\)/);
  const off = checkConfigText(text.replace('true', 'false')).findings.filter((f) => f.code === 'schema/unknown-key');
  assert.deepEqual(
    off.map((f) => f.severity),
    ['error', 'error'],
  );
});

test('reports a type error on the value and offers a coercion when it is unambiguous', () => {
  const text = 'env:\n  max_steps: "8"\nparallel:\n  replicas: two\n';
  const findings = checkConfigText(text).findings.filter((f) => f.code === 'schema/type');
  assert.equal(findings.length, 2);
  const [quoted, word] = findings as [LocatedFinding, LocatedFinding];
  assert.equal(at(text, quoted), '"8"');
  assert.deepEqual(quoted.fixes[0]?.edits, [{ op: 'set', path: ['env', 'max_steps'], value: 8 }]);
  assert.equal(at(text, word), 'two');
  assert.equal(word.fixes.length, 0);
});

test('reports an enum error with the closest allowed value', () => {
  const text = 'backends:\n  dtype: bf61\n';
  const f = only(checkConfigText(text).findings, 'schema/enum');
  assert.equal(at(text, f), 'bf61');
  assert.match(f.message, /Did you mean 'bf16'\?/);
});

test('clips a YAML syntax error to one line', () => {
  const text = 'env:\n  max_steps: [1, 2\n  reward_scale: 1\nparallel:\n  replicas: 1\n';
  const f = checkConfigText(text).findings.find((x) => x.code === 'yaml/syntax');
  assert.ok(f);
  assert.ok(!at(text, f).includes('\n'));
});

test('reports duplicate keys, tabs and non-mapping documents as findings', () => {
  assert.ok(checkConfigText('env:\n  max_steps: 1\n  max_steps: 2\n').findings.some((f) => f.code === 'yaml/duplicate-key'));
  assert.ok(checkConfigText('env:\n\tmax_steps: 1\n').findings.some((f) => f.severity === 'error'));
  assert.ok(checkConfigText('- a\n- b\n').findings.some((f) => f.code === 'yaml/not-a-mapping'));
  assert.deepEqual(
    checkConfigText('').findings.filter((f) => f.severity === 'error'),
    [],
  );
});

test('refuses to expand an alias bomb and says so', () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 0; i < 9; i++) {
    const prev = String.fromCharCode(97 + i);
    const next = String.fromCharCode(98 + i);
    lines.push(`${next}: &${next} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
  }
  const started = process.hrtime.bigint();
  const check = checkConfigText(`${lines.join('\n')}\n`);
  assert.ok(
    check.findings.some((f) => f.code === 'yaml/alias-limit'),
    JSON.stringify(check.findings.map((f) => f.code)),
  );
  assert.ok(Number(process.hrtime.bigint() - started) / 1e9 < 5, 'an alias bomb must not take seconds');
});

test('reports bytes that were not valid UTF-8', () => {
  const text = Buffer.from([0x65, 0x6e, 0x76, 0x3a, 0x0a, 0x20, 0x20, 0xff, 0xfe, 0x3a, 0x20, 0x31, 0x0a]).toString('utf8');
  assert.ok(checkConfigText(text).findings.some((f) => f.code === 'yaml/encoding'));
});

test('keeps checking the rest of a document that has one bad value', () => {
  const text = 'parallel:\n  replicas: two\nenv:\n  failure_penalty: -1\n';
  const codes = checkConfigText(text).findings.map((f) => f.code);
  assert.ok(codes.includes('schema/type'));
  assert.ok(codes.includes('preflight/negative-penalty'));
});

test('places a preflight finding about a default value on its section key', () => {
  const text = 'parallel:\n  workflow_parallel: 1\n  rollout_workers: 3\nresources:\n  ray_num_cpus: 64\n';
  const f = checkConfigText(text).findings.find((x) => x.code === 'preflight/workflow-parallel-too-low');
  assert.ok(f, 'workflow_parallel below rollout_workers must be reported');
  assert.equal(at(text, f), '1');
});

test('a set fix replaces only the value and keeps the comment', () => {
  const out = applyYamlEdits('env:\n  failure_penalty: -1.0  # why\n', [{ op: 'set', path: ['env', 'failure_penalty'], value: 1 }]);
  assert.equal(out, 'env:\n  failure_penalty: 1  # why\n');
});

test('a set fix inserts missing keys and sections with the right indentation', () => {
  const text = 'env:\n    max_steps: 4\n';
  assert.equal(applyYamlEdits(text, [{ op: 'set', path: ['env', 'reward_scale'], value: 2 }]), 'env:\n    max_steps: 4\n    reward_scale: 2\n');
  const newSection = applyYamlEdits(text, [{ op: 'set', path: ['resources', 'ray_num_cpus'], value: 8 }]) ?? '';
  assert.equal(newSection, 'env:\n    max_steps: 4\nresources:\n  ray_num_cpus: 8\n');
  assert.deepEqual(parseYamlSource(newSection).value, { env: { max_steps: 4 }, resources: { ray_num_cpus: 8 } });
});

test('a fix with two edits under one missing section writes the section once', () => {
  const out = applyYamlEdits('parallel:\n  tensor_parallel_planner: 2\n', [
    { op: 'set', path: ['resources', 'num_gpus'], value: 2 },
    { op: 'set', path: ['resources', 'ray_num_gpus'], value: 2 },
  ]);
  assert.deepEqual(parseYamlSource(out ?? '').value, { parallel: { tensor_parallel_planner: 2 }, resources: { num_gpus: 2, ray_num_gpus: 2 } });
  assert.deepEqual(parseYamlSource(out ?? '').problems, []);
});

test('rename and remove fixes edit the key line only', () => {
  const text = 'env:\n  max_step: 6\n  reward_scale: 1\n';
  assert.equal(applyYamlEdits(text, [{ op: 'rename', path: ['env', 'max_step'], newKey: 'max_steps' }]), 'env:\n  max_steps: 6\n  reward_scale: 1\n');
  assert.equal(applyYamlEdits(text, [{ op: 'remove', path: ['env', 'max_step'] }]), 'env:\n  reward_scale: 1\n');
});

test('edits inside a flow mapping keep the rest of the mapping and still parse', () => {
  const removed = applyYamlEdits('env: {max_steps: 3, bogus_key: 1}\n', [{ op: 'remove', path: ['env', 'bogus_key'] }]) ?? '';
  assert.deepEqual(parseYamlSource(removed).value, { env: { max_steps: 3 } });
  const inserted = applyYamlEdits('parallel: {rollout_workers: 2}\n', [{ op: 'set', path: ['parallel', 'workflow_parallel'], value: 2 }]) ?? '';
  assert.deepEqual(parseYamlSource(inserted).value, { parallel: { rollout_workers: 2, workflow_parallel: 2 } });
  assert.deepEqual(parseYamlSource(inserted).problems, []);
});

test('fixes keep CRLF line endings and comments after an empty value', () => {
  const text = 'parallel:\r\n  workflow_parallel: # set later\r\n  rollout_workers: 2\r\n';
  const out =
    applyYamlEdits(text, [
      { op: 'set', path: ['parallel', 'workflow_parallel'], value: 4 },
      { op: 'set', path: ['resources', 'ray_num_cpus'], value: 8 },
    ]) ?? '';
  assert.equal(out, 'parallel:\r\n  workflow_parallel: 4 # set later\r\n  rollout_workers: 2\r\nresources:\r\n  ray_num_cpus: 8\r\n');
});

test('reports positions in a CRLF file exactly as in the LF copy', () => {
  const lf = 'env:\n  max_step: 6\n  failure_penalty: -1\n';
  const crlf = lf.replace(/\n/g, '\r\n');
  const pos = (t: string) => {
    const c = checkConfigText(t);
    return c.findings.map((f) => `${f.code}@${JSON.stringify(c.source.lineCounter.linePos(f.range.start))}:${t.slice(f.range.start, f.range.end)}`);
  };
  assert.deepEqual(pos(crlf), pos(lf));
});

test('every preflight fix, applied to a document that lacks its section, parses and clears its finding', () => {
  const bad = [
    'parallel:\n  tensor_parallel_planner: 2\n',
    'parallel:\n  rollout_workers: 3\n',
    'env:\n  failure_penalty: -1\n',
    'backends:\n  device_map_planner: [0, 5]\n',
    'training:\n  train_batch_size: 3\n  rollout_n: 3\nresources:\n  num_gpus: 2\n  ray_num_gpus: 2\n',
    'logging:\n  log_backend: wandb\n',
  ];
  for (const text of bad) {
    const check = checkConfigText(text);
    const withFix = check.findings.filter((f) => f.code.startsWith('preflight/') && f.fixes.length > 0);
    assert.ok(withFix.length > 0, `expected a fixable finding for ${JSON.stringify(text)}`);
    for (const f of withFix) {
      for (const fix of f.fixes) {
        const out = applyYamlEdits(text, fix.edits);
        assert.ok(out !== undefined, `fix '${fix.title}' could not be applied to ${JSON.stringify(text)}`);
        const after = parseYamlSource(out);
        assert.deepEqual(after.problems, [], `fix '${fix.title}' broke the YAML: ${out}`);
        const config = experimentConfigSchema.parse(after.value);
        const again = preflight(config).filter((x) => x.code === f.code && x.path.join('.') === f.path.join('.'));
        if (fix.preferred)
          assert.deepEqual(
            again.map((x) => x.message),
            [],
            `preferred fix '${fix.title}' left the finding`,
          );
      }
    }
  }
});

test('a 1 MB scalar and a binary file are handled without crashing', () => {
  const big = `experiment:\n  notes: "${'x'.repeat(1_000_000)}"\n`;
  assert.deepEqual(
    checkConfigText(big).findings.filter((f) => f.severity === 'error'),
    [],
  );
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)).toString('utf8');
  const check = checkConfigText(binary);
  assert.ok(check.findings.length > 0);
});

test('a bad value of a nullable field gets one error, not a second about null', () => {
  const findings = checkConfigText('training:\n  precision: fp17\n').findings.filter((f) => f.severity === 'error');
  assert.deepEqual(
    findings.map((f) => f.code),
    ['schema/enum'],
  );
});
