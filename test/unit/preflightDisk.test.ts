/**
 * The preflight rules that read files: missing dataset and model paths, and the GPU memory
 * estimate from a model's config.json. Each test builds its own folder under the OS temp dir.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { experimentConfigSchema, type ExperimentConfig, type ExperimentConfigInput } from '../../server/src/config/schema.js';
import { preflightDisk, runDiskRules, type DiskRule } from '../../server/src/config/preflight.js';
import type { ConfigEdit, Finding } from '../../server/src/protocol/index.js';

const fixtures = join(__dirname, '..', 'fixtures', 'models');
let base = '';

before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gp-preflight-'));
  await mkdir(join(base, 'datasets'), { recursive: true });
  await writeFile(join(base, 'datasets', 'train.jsonl'), '');
  await mkdir(join(base, 'models', 'broken'), { recursive: true });
  await writeFile(join(base, 'models', 'broken', 'config.json'), '{"hidden_size": 64');
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A config whose paths exist unless a test overrides them; CGM is remote so only the planner is checked. */
function config(input: ExperimentConfigInput = {}): ExperimentConfig {
  return experimentConfigSchema.parse({
    ...input,
    paths: { dataset_train: 'datasets/train.jsonl', dataset_val: null, planner_model: join(fixtures, 'tiny'), ...input.paths },
    backends: { cgm_backend: 'openai', cgm_endpoint: 'http://localhost:8000/v1', ...input.backends },
  });
}

/** Applies `set` edits to a copy (the only kind disk fixes use) and parses it again. */
function applyConfigEdits(cfg: ExperimentConfig, edits: readonly ConfigEdit[]): ExperimentConfig {
  const copy = structuredClone(cfg) as unknown as Record<string, Record<string, unknown>>;
  for (const edit of edits) {
    assert.equal(edit.op, 'set');
    const [section, key] = edit.path;
    const target = typeof section === 'string' ? copy[section] : undefined;
    assert.ok(target && typeof key === 'string' && edit.path.length === 2 && edit.op === 'set');
    target[key] = edit.value;
  }
  return experimentConfigSchema.parse(copy);
}

async function withCode(cfg: ExperimentConfig, code: string): Promise<Finding[]> {
  return (await preflightDisk(cfg, base)).filter((f) => f.code === code);
}

describe('preflightDisk: paths', () => {
  void test('reports nothing when every path exists', async () => {
    assert.deepEqual(await preflightDisk(config(), base).then((fs) => fs.filter((f) => f.severity !== 'info')), []);
  });

  void test('warns about a dataset that does not exist, resolved against the base folder', async () => {
    const found = await withCode(config({ paths: { dataset_train: 'datasets/missing.jsonl' } }), 'preflight/path-missing');
    assert.equal(found.length, 1);
    assert.equal(found[0]?.severity, 'warning');
    assert.deepEqual(found[0]?.path, ['paths', 'dataset_train']);
    assert.ok(found[0]?.message.includes(join(base, 'datasets', 'missing.jsonl')));
  });

  void test('asks "did you mean" the closest existing file for a misspelt folder and file, as the preferred fix', async () => {
    const bad = config({ paths: { dataset_train: 'datsets/trian.jsonl' } });
    const [f] = await withCode(bad, 'preflight/path-missing');
    assert.ok(f);
    assert.match(f.message, /Did you mean `datasets\/train\.jsonl`\?/);
    const fix = f.fixes[0];
    assert.deepEqual([fix?.title, fix?.preferred], ['Did you mean `datasets/train.jsonl`?', true]);
    assert.deepEqual(await withCode(applyConfigEdits(bad, fix?.edits ?? []), 'preflight/path-missing'), []);
    const far = await withCode(config({ paths: { dataset_train: 'datasets/completely-different.jsonl' } }), 'preflight/path-missing');
    assert.deepEqual(far[0]?.fixes, [], 'no suggestion when nothing is close');
  });

  void test('reports a dataset path that names a folder as an error that names the files inside, each a fix', async () => {
    const bad = config({ paths: { dataset_train: 'datasets/' } });
    const [f] = await withCode(bad, 'preflight/path-is-folder');
    assert.ok(f);
    assert.equal(f.severity, 'error');
    assert.match(f.message, /points to the folder .*datasets, but a dataset is a JSONL file .* it holds `train\.jsonl`\. Name one of its files\./);
    assert.deepEqual(
      f.fixes.map((x) => [x.title, x.preferred]),
      [['Use `datasets/train.jsonl`', true]],
    );
    assert.deepEqual(await withCode(applyConfigEdits(bad, f.fixes[0]?.edits ?? []), 'preflight/path-is-folder'), []);
    assert.deepEqual(await withCode(config({ paths: { planner_model: 'models/broken' } }), 'preflight/path-is-folder'), [], 'a model is a folder');
  });

  void test('offers to train without validation when the validation set is missing', async () => {
    const bad = config({ paths: { dataset_val: 'datasets/val.jsonl' } });
    const [f] = await withCode(bad, 'preflight/path-missing');
    assert.ok(f);
    assert.deepEqual(f.path, ['paths', 'dataset_val']);
    const fix = f.fixes[0];
    assert.ok(fix);
    assert.deepEqual(await withCode(applyConfigEdits(bad, fix.edits), 'preflight/path-missing'), []);
  });

  void test('warns about a missing model folder under an existing local folder', async () => {
    const found = await withCode(config({ paths: { planner_model: 'models/Qwen3-14B' } }), 'preflight/path-missing');
    assert.deepEqual(
      found.map((f) => [f.severity, f.path]),
      [['warning', ['paths', 'planner_model']]],
    );
  });

  void test('treats a missing owner/name model as a Hugging Face name, as information', async () => {
    const cfg = config({ paths: { planner_model: 'Qwen/Qwen3-14B' } });
    assert.deepEqual(await withCode(cfg, 'preflight/path-missing'), []);
    const found = await withCode(cfg, 'preflight/model-not-local');
    assert.deepEqual(
      found.map((f) => [f.severity, f.path]),
      [['info', ['paths', 'planner_model']]],
    );
  });

  void test('does not check the path of a model served over an endpoint', async () => {
    const cfg = config({
      paths: { cgm_model: 'models/nowhere' },
      backends: { cgm_backend: 'openai', cgm_endpoint: 'http://localhost:8000/v1' },
    });
    assert.deepEqual(await withCode(cfg, 'preflight/path-missing'), []);
  });

  void test('turns a disk rule that throws into a preflight/internal finding', async () => {
    const broken: DiskRule = {
      name: 'broken-disk',
      check: () => Promise.reject(new Error('disk on fire')),
    };
    const found = await runDiskRules(config(), base, [broken]);
    assert.deepEqual(
      found.map((f) => f.code),
      ['preflight/internal'],
    );
    assert.match(found[0]?.message ?? '', /broken-disk.*disk on fire/);
  });
});

describe('preflightDisk: GPU memory estimate', () => {
  void test('reports the estimate as information when the model fits one GPU', async () => {
    const cfg = config({ paths: { planner_model: join(fixtures, 'qwen3-14b') } });
    const found = await withCode(cfg, 'preflight/gpu-memory-estimate');
    assert.equal(found.length, 1);
    const [f] = found;
    assert.ok(f);
    assert.equal(f.severity, 'info');
    assert.deepEqual(f.path, ['paths', 'planner_model']);
    // 27.5 GiB of bf16 weights dominate the estimate.
    assert.match(f.message, /14\.8B parameters.*27\.5 GiB weights/);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [
        ['parallel', 'tensor_parallel_planner'],
        ['backends', 'dtype'],
        ['backends', 'max_gpu_memory'],
      ],
    );
  });

  void test('warns when the model exceeds max_gpu_memory and offers a tensor parallel size that fits', async () => {
    const bad = config({
      paths: { planner_model: join(fixtures, 'qwen3-14b') },
      backends: { max_gpu_memory: '24GiB' },
      resources: { num_gpus: 4, ray_num_gpus: 4 },
    });
    const [f] = await withCode(bad, 'preflight/gpu-memory-exceeded');
    assert.ok(f);
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.path, ['paths', 'planner_model']);
    const fix = f.fixes.find((x) => x.preferred === true);
    assert.deepEqual(fix?.edits, [{ op: 'set', path: ['parallel', 'tensor_parallel_planner'], value: 2 }]);
    assert.ok(fix);
    const fixed = applyConfigEdits(bad, fix.edits);
    assert.deepEqual(await withCode(fixed, 'preflight/gpu-memory-exceeded'), []);
    assert.equal((await withCode(fixed, 'preflight/gpu-memory-estimate')).length, 1);
  });

  void test('explains why there is no estimate when config.json is malformed', async () => {
    const found = await withCode(config({ paths: { planner_model: 'models/broken' } }), 'preflight/memory-estimate-unavailable');
    assert.deepEqual(
      found.map((f) => [f.severity, f.path]),
      [['info', ['paths', 'planner_model']]],
    );
    assert.match(found[0]?.message ?? '', /not valid JSON/);
  });
});

test('prompt files that do not exist, or are folders, are errors naming the key', async () => {
  await writeFile(join(base, 'system.txt'), 'You fix bugs.');
  const cfg = config({ prompts: { system: 'system.txt', reply_format: 'missing.txt', few_shot: 'datasets' } });
  const findings = (await preflightDisk(cfg, base)).filter((f) => f.code === 'preflight/prompt-file-missing');
  assert.deepEqual(
    findings.map((f) => f.path),
    [
      ['prompts', 'reply_format'],
      ['prompts', 'few_shot'],
    ],
  );
  assert.ok(findings.every((f) => f.severity === 'error'));
  assert.match(findings[0]?.message ?? '', /missing\.txt, which does not exist/);
  assert.match(findings[1]?.message ?? '', /is a folder/);
});
