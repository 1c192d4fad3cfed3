/**
 * One test per preflight rule: it fires on a bad config with the right code, severity and path,
 * stays silent on a good one, and applying its preferred fix makes the finding go away.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { experimentConfigSchema, type ExperimentConfig, type ExperimentConfigInput } from '../../server/src/config/schema.js';
import { preflight, runRules, type Rule } from '../../server/src/config/preflight.js';
import type { ConfigEdit, Finding, Fix, KeyPath } from '../../server/src/protocol/index.js';
import { isRecord } from '../../server/src/util/isRecord.js';

function config(input: ExperimentConfigInput = {}): ExperimentConfig {
  return experimentConfigSchema.parse(input);
}

/** Applies `set` and `remove` edits to a copy, then parses it again so a fix must yield a valid config. */
function applyConfigEdits(base: ExperimentConfig, edits: readonly ConfigEdit[]): ExperimentConfig {
  const root: unknown = structuredClone(base);
  for (const edit of edits) {
    if (edit.op !== 'set' && edit.op !== 'remove') throw new Error(`applyConfigEdits does not handle ${edit.op}`);
    let node: unknown = root;
    for (const key of edit.path.slice(0, -1)) {
      node = isRecord(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[key] : undefined;
    }
    const last = edit.path.at(-1);
    if (last === undefined || (!isRecord(node) && !Array.isArray(node))) throw new Error(`no parent for ${edit.path.join('.')}`);
    const parent = node as Record<string | number, unknown>;
    if (edit.op === 'set') parent[last] = edit.value;
    else delete parent[last];
  }
  return experimentConfigSchema.parse(root);
}

function withCode(findings: readonly Finding[], code: string): Finding[] {
  return findings.filter((f) => f.code === code);
}

/** The single finding with this code; fails the test when there are none or several. */
function one(cfg: ExperimentConfig, code: string): Finding {
  const found = withCode(preflight(cfg), code);
  assert.equal(found.length, 1, `expected one ${code}, got ${JSON.stringify(preflight(cfg), null, 1)}`);
  const [first] = found;
  assert.ok(first);
  return first;
}

function preferred(f: Finding): Fix {
  const fixes = f.fixes.filter((x) => x.preferred === true);
  assert.equal(fixes.length, 1, `expected one preferred fix on ${f.code}`);
  const [fix] = fixes;
  assert.ok(fix);
  return fix;
}

function assertSilent(cfg: ExperimentConfig, code: string): void {
  assert.deepEqual(withCode(preflight(cfg), code), []);
}

/** Checks code, severity and path, then that the preferred fix clears the finding. */
function assertRule(bad: ExperimentConfig, code: string, severity: Finding['severity'], path: KeyPath): Finding {
  const f = one(bad, code);
  assert.equal(f.severity, severity);
  assert.deepEqual(f.path, path);
  assert.ok(f.message.length > 20, 'the message says what to do');
  if (severity !== 'info') assertSilent(applyConfigEdits(bad, preferred(f).edits), code);
  return f;
}

function errors(cfg: ExperimentConfig): Finding[] {
  return preflight(cfg).filter((f) => f.severity === 'error');
}

describe('preflight: defaults and robustness', () => {
  void test('reports no error for a config at its schema defaults', () => {
    assert.deepEqual(errors(experimentConfigSchema.parse({})), []);
  });

  void test('turns a rule that throws into one preflight/internal finding and keeps the other rules', () => {
    const broken: Rule = {
      name: 'broken',
      check: () => {
        throw new Error('boom');
      },
    };
    const working: Rule = { name: 'working', check: () => preflight(config({ env: { failure_penalty: -1 } })) };
    const findings = runRules(config(), [broken, working]);
    const internal = withCode(findings, 'preflight/internal');
    assert.equal(internal.length, 1);
    assert.match(internal[0]?.message ?? '', /broken.*boom/);
    assert.equal(withCode(findings, 'preflight/negative-penalty').length, 1);
  });
});

describe('preflight: tensor parallelism', () => {
  void test('rejects a planner tensor parallel size larger than the GPUs and offers to lower it', () => {
    const bad = config({ parallel: { tensor_parallel_planner: 2 } });
    const f = assertRule(bad, 'preflight/tp-exceeds-gpus', 'error', ['parallel', 'tensor_parallel_planner']);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [['resources', 'num_gpus']],
    );
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['parallel', 'tensor_parallel_planner'], value: 1 }]);
    assertSilent(config({ resources: { num_gpus: 2, ray_num_gpus: 2 }, parallel: { tensor_parallel_planner: 2 } }), 'preflight/tp-exceeds-gpus');
  });

  void test('rejects a CGM tensor parallel size larger than the GPUs', () => {
    const bad = config({ resources: { num_gpus: 2, ray_num_gpus: 2 }, parallel: { tensor_parallel_cgm: 4 } });
    assertRule(bad, 'preflight/tp-exceeds-gpus', 'error', ['parallel', 'tensor_parallel_cgm']);
  });

  void test('offers to add GPUs, with the Ray budget, when a run has none', () => {
    const bad = config({
      resources: { num_gpus: 0, ray_num_gpus: 0 },
      backends: { cgm_backend: 'openai', cgm_endpoint: 'http://localhost:8000/v1' },
    });
    const f = assertRule(bad, 'preflight/tp-exceeds-gpus', 'error', ['parallel', 'tensor_parallel_planner']);
    assert.deepEqual(
      preferred(f).edits.map((e) => (e.op === 'set' ? [e.path.join('.'), e.value] : [])),
      [
        ['resources.num_gpus', 1],
        ['resources.ray_num_gpus', 1],
      ],
    );
  });

  void test('ignores the tensor parallel size of a model served over an endpoint', () => {
    const remote = config({
      backends: { cgm_backend: 'openai', cgm_endpoint: 'http://localhost:8000/v1' },
      parallel: { tensor_parallel_cgm: 8 },
    });
    assertSilent(remote, 'preflight/tp-exceeds-gpus');
  });

  void test('rejects a planner tensor parallel size that does not divide the GPUs and proposes the nearest divisor', () => {
    const bad = config({ resources: { num_gpus: 6, ray_num_gpus: 6 }, parallel: { tensor_parallel_planner: 4 } });
    const f = assertRule(bad, 'preflight/tp-not-divisor', 'error', ['parallel', 'tensor_parallel_planner']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['parallel', 'tensor_parallel_planner'], value: 3 }]);
    // The other fix raises the GPUs to the next count that TP 4 divides.
    const raise = f.fixes.find((x) => x.preferred !== true);
    assert.ok(raise);
    assertSilent(applyConfigEdits(bad, raise.edits), 'preflight/tp-not-divisor');
    assertSilent(config({ resources: { num_gpus: 8, ray_num_gpus: 8 }, parallel: { tensor_parallel_planner: 4 } }), 'preflight/tp-not-divisor');
  });
});

describe('preflight: shared devices', () => {
  void test('accepts a single-GPU debug run where planner and CGM share GPU 0, as information', () => {
    const debug = config({ backends: { device_map_planner: [0], device_map_cgm: [0] } });
    const f = assertRule(debug, 'preflight/shared-devices', 'info', ['parallel', 'tensor_parallel_cgm']);
    assert.match(f.message, /share GPU 0/);
    assert.deepEqual(errors(debug), []);
    assertSilent(config(), 'preflight/tp-sum-exceeds-gpus');
  });

  void test('leaves out the GPU notes for the rule agent on the local backend, which loads no model, but keeps errors', () => {
    const codes = (c: ExperimentConfig) => preflight(c).map((f) => f.code);
    const sample = config({ rollout: { agent: 'rule' }, sandbox: { backend: 'local' } });
    assert.ok(!codes(sample).includes('preflight/shared-devices'), codes(sample).join(' '));
    assert.ok(
      codes(config({ rollout: { agent: 'rule' }, sandbox: { backend: 'docker' } })).includes('preflight/shared-devices'),
      'a training config in containers keeps it',
    );
    assert.ok(codes(config({ rollout: { agent: 'model' }, sandbox: { backend: 'local' } })).includes('preflight/shared-devices'), 'a model agent keeps it');
    const tooBig = config({ rollout: { agent: 'rule' }, sandbox: { backend: 'local' }, parallel: { tensor_parallel_planner: 2 } });
    assert.ok(codes(tooBig).includes('preflight/tp-exceeds-gpus'), 'an error about the same settings still shows');
  });

  void test('says nothing about sharing when planner and CGM fit on separate GPUs', () => {
    const split = config({
      resources: { num_gpus: 4, ray_num_gpus: 4 },
      backends: { device_map_planner: [0, 1], device_map_cgm: [2, 3] },
      parallel: { tensor_parallel_planner: 2, tensor_parallel_cgm: 2 },
      training: { rollout_n: 4 },
    });
    assertSilent(split, 'preflight/shared-devices');
    assertSilent(split, 'preflight/tp-sum-exceeds-gpus');
  });

  void test('rejects device maps that separate planner and CGM onto more GPUs than exist and offers to add GPUs', () => {
    const bad = config({
      resources: { num_gpus: 2, ray_num_gpus: 2 },
      backends: { device_map_planner: [0], device_map_cgm: [1] },
      parallel: { tensor_parallel_planner: 2 },
    });
    assertRule(bad, 'preflight/tp-sum-exceeds-gpus', 'error', ['parallel', 'tensor_parallel_cgm']);
    assertSilent(bad, 'preflight/shared-devices');
  });
});

describe('preflight: replicas and workflow', () => {
  void test('rejects more planner replicas than the GPUs hold and offers to lower them', () => {
    const bad = config({ resources: { num_gpus: 2, ray_num_gpus: 4 }, parallel: { replicas: 3 } });
    const f = assertRule(bad, 'preflight/replicas-exceed-gpus', 'error', ['parallel', 'replicas']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['parallel', 'replicas'], value: 2 }]);
    assertSilent(config({ resources: { num_gpus: 2, ray_num_gpus: 2 }, parallel: { replicas: 2 } }), 'preflight/replicas-exceed-gpus');
  });

  void test('rejects a workflow_parallel below the agents and workers and offers to raise it', () => {
    const bad = config({ parallel: { parallel_agents: 4, rollout_workers: 2 }, resources: { ray_num_cpus: 8 } });
    const f = assertRule(bad, 'preflight/workflow-parallel-too-low', 'error', ['parallel', 'workflow_parallel']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['parallel', 'workflow_parallel'], value: 4 }]);
    assertSilent(config({ parallel: { parallel_agents: 4, workflow_parallel: 4 } }), 'preflight/workflow-parallel-too-low');
  });
});

describe('preflight: device maps', () => {
  void test('rejects each device index beyond num_gpus and offers to drop them', () => {
    // Index 2 is the first that does not exist on a two-GPU node.
    const bad = config({ resources: { num_gpus: 2, ray_num_gpus: 2 }, backends: { device_map_planner: [0, 2] } });
    const f = assertRule(bad, 'preflight/device-index-out-of-range', 'error', ['backends', 'device_map_planner', 1]);
    assert.equal(preferred(f).title, 'Drop GPU 2 from device_map_planner');
    assertSilent(config({ resources: { num_gpus: 4, ray_num_gpus: 4 }, backends: { device_map_planner: [0, 3] } }), 'preflight/device-index-out-of-range');
  });

  void test('reports two bad indices separately, and one fix clears both', () => {
    const bad = config({ backends: { device_map_cgm: [1, 2] } });
    const found = withCode(preflight(bad), 'preflight/device-index-out-of-range');
    assert.deepEqual(
      found.map((f) => f.path),
      [
        ['backends', 'device_map_cgm', 0],
        ['backends', 'device_map_cgm', 1],
      ],
    );
    const [first] = found;
    assert.ok(first);
    assertSilent(applyConfigEdits(bad, preferred(first).edits), 'preflight/device-index-out-of-range');
    // Raising num_gpus instead covers the highest index.
    const raise = first.fixes.find((x) => x.preferred !== true);
    assert.ok(raise);
    assertSilent(applyConfigEdits(bad, raise.edits), 'preflight/device-index-out-of-range');
  });

  void test('warns when a device map is shorter than the tensor parallel size and offers the missing GPUs', () => {
    const bad = config({
      resources: { num_gpus: 4, ray_num_gpus: 4 },
      parallel: { tensor_parallel_planner: 2 },
      backends: { device_map_planner: [1] },
    });
    const f = assertRule(bad, 'preflight/device-map-size-mismatch', 'warning', ['backends', 'device_map_planner']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['backends', 'device_map_planner'], value: [1, 0] }]);
  });

  void test('accepts a planner map that lists the GPUs of every replica', () => {
    const ok = config({
      resources: { num_gpus: 4, ray_num_gpus: 4 },
      parallel: { tensor_parallel_planner: 2, replicas: 2 },
      backends: { device_map_planner: [0, 1, 2, 3] },
    });
    assertSilent(ok, 'preflight/device-map-size-mismatch');
    const tooLong = config({ resources: { num_gpus: 4, ray_num_gpus: 4 }, backends: { device_map_cgm: [0, 1, 2] } });
    assertRule(tooLong, 'preflight/device-map-size-mismatch', 'warning', ['backends', 'device_map_cgm']);
  });
});

describe('preflight: Verl batches', () => {
  void test('rejects a mini-batch larger than the batch and offers the batch size', () => {
    const bad = config({ training: { train_batch_size: 4, ppo_mini_batch_size: 8 } });
    const f = assertRule(bad, 'preflight/mini-batch-exceeds-batch', 'error', ['training', 'ppo_mini_batch_size']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['training', 'ppo_mini_batch_size'], value: 4 }]);
    assertSilent(config({ training: { ppo_mini_batch_size: null } }), 'preflight/mini-batch-exceeds-batch');
  });

  void test('rejects a mini-batch that does not divide the batch and proposes the nearest divisor', () => {
    const bad = config({ training: { train_batch_size: 6, ppo_mini_batch_size: 4, rollout_n: 2 } });
    const f = assertRule(bad, 'preflight/mini-batch-not-divisor', 'error', ['training', 'ppo_mini_batch_size']);
    assert.match(f.message, /\(12\).*\(8\)/);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['training', 'ppo_mini_batch_size'], value: 3 }]);
    assertSilent(config({ training: { train_batch_size: 6, ppo_mini_batch_size: 3 } }), 'preflight/mini-batch-not-divisor');
  });

  void test('rejects episodes per step that do not divide across the GPUs and proposes the nearest batch', () => {
    const bad = config({ resources: { num_gpus: 8, ray_num_gpus: 8 }, training: { train_batch_size: 4, rollout_n: 1 } });
    const f = assertRule(bad, 'preflight/batch-not-divisible-by-gpus', 'error', ['training', 'train_batch_size']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['training', 'train_batch_size'], value: 8 }]);
    // The alternative raises the group size instead: 4 × 2 = 8 episodes.
    const byN = f.fixes.find((x) => x.preferred !== true);
    assert.deepEqual(byN?.edits, [{ op: 'set', path: ['training', 'rollout_n'], value: 2 }]);
    assertSilent(
      config({ resources: { num_gpus: 8, ray_num_gpus: 8 }, training: { train_batch_size: 4, rollout_n: 2 } }),
      'preflight/batch-not-divisible-by-gpus',
    );
  });

  void test('keeps the proposed batch a multiple of the mini-batch', () => {
    const bad = config({ resources: { num_gpus: 4, ray_num_gpus: 4 }, training: { train_batch_size: 6, ppo_mini_batch_size: 3, rollout_n: 1 } });
    const f = one(bad, 'preflight/batch-not-divisible-by-gpus');
    const fixed = applyConfigEdits(bad, preferred(f).edits);
    assert.equal(fixed.training.train_batch_size, 12);
    assertSilent(fixed, 'preflight/mini-batch-not-divisor');
  });

  void test('warns that GRPO with one episode per task has zero advantage and offers a group of two', () => {
    const bad = config({ training: { adv_estimator: 'grpo', rollout_n: 1 } });
    const f = assertRule(bad, 'preflight/group-size-one', 'warning', ['training', 'rollout_n']);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [['training', 'adv_estimator']],
    );
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['training', 'rollout_n'], value: 2 }]);
    assertRule(config({ training: { adv_estimator: 'rloo', rollout_n: 1 } }), 'preflight/group-size-one', 'warning', ['training', 'rollout_n']);
    assertSilent(config({ training: { adv_estimator: 'gae', rollout_n: 1 } }), 'preflight/group-size-one');
  });
});

describe('preflight: Ray budgets', () => {
  void test('rejects a Ray GPU budget below the trainer GPUs and offers to raise it', () => {
    const bad = config({ resources: { num_gpus: 4, ray_num_gpus: 1 } });
    const f = assertRule(bad, 'preflight/ray-gpu-budget', 'error', ['resources', 'ray_num_gpus']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['resources', 'ray_num_gpus'], value: 4 }]);
    assertSilent(config({ resources: { num_gpus: 4, ray_num_gpus: 4 } }), 'preflight/ray-gpu-budget');
  });

  void test('rejects a Ray GPU budget below the replicas', () => {
    const bad = config({
      backends: { planner_backend: 'openai', planner_endpoint: 'http://localhost:8000/v1' },
      parallel: { replicas: 3 },
    });
    const f = assertRule(bad, 'preflight/ray-gpu-budget', 'error', ['resources', 'ray_num_gpus']);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [['parallel', 'replicas']],
    );
  });

  void test('rejects a Ray CPU budget below four CPUs per rollout worker and offers to raise it', () => {
    const bad = config({ parallel: { rollout_workers: 3, workflow_parallel: 3 }, resources: { ray_num_cpus: 8 } });
    const f = assertRule(bad, 'preflight/ray-cpu-budget', 'error', ['resources', 'ray_num_cpus']);
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['resources', 'ray_num_cpus'], value: 12 }]);
    assertSilent(config({ parallel: { rollout_workers: 3, workflow_parallel: 3 }, resources: { ray_num_cpus: 12 } }), 'preflight/ray-cpu-budget');
  });
});

describe('preflight: rewards', () => {
  void test('rejects a negative failure_penalty and offers to flip its sign', () => {
    const bad = config({ env: { failure_penalty: -1 } });
    const f = assertRule(bad, 'preflight/negative-penalty', 'error', ['env', 'failure_penalty']);
    assert.match(f.message, /penalties are subtracted, so a negative value rewards failure/);
    assert.equal(preferred(f).title, 'Flip the sign: set env.failure_penalty to 1');
    assert.deepEqual(preferred(f).edits, [{ op: 'set', path: ['env', 'failure_penalty'], value: 1 }]);
  });

  void test('rejects negative step and timeout penalties, each on its own key', () => {
    const bad = config({ env: { step_penalty: -0.05, timeout_penalty: -0.5 } });
    const found = withCode(preflight(bad), 'preflight/negative-penalty');
    assert.deepEqual(
      found.map((f) => f.path),
      [
        ['env', 'step_penalty'],
        ['env', 'timeout_penalty'],
      ],
    );
    assert.deepEqual(
      found.map((f) => (f.fixes[0] === undefined ? '' : f.fixes[0].title)),
      ['Flip the sign: set env.step_penalty to 0.05', 'Flip the sign: set env.timeout_penalty to 0.5'],
    );
    assertSilent(config({ env: { failure_penalty: 1, step_penalty: 0, timeout_penalty: 0.5 } }), 'preflight/negative-penalty');
  });
});

describe('preflight: logging', () => {
  void test('warns when Verl logs to W&B while W&B is disabled and offers to enable it', () => {
    const bad = config({ logging: { log_backend: 'wandb', wandb: { enabled: false } } });
    const f = assertRule(bad, 'preflight/wandb-backend-disabled', 'warning', ['logging', 'log_backend']);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [['logging', 'wandb', 'enabled']],
    );
    assertSilent(config({ logging: { log_backend: 'wandb', wandb: { enabled: true } } }), 'preflight/wandb-backend-disabled');
  });

  void test('notes that W&B offline mode does nothing while W&B is disabled and offers to remove it', () => {
    const bad = config({ logging: { wandb: { offline: true } } });
    const f = assertRule(bad, 'preflight/wandb-offline-without-enabled', 'info', ['logging', 'wandb', 'offline']);
    assertSilent(applyConfigEdits(bad, preferred(f).edits), 'preflight/wandb-offline-without-enabled');
    assertSilent(config({ logging: { wandb: { offline: true, enabled: true } } }), 'preflight/wandb-offline-without-enabled');
  });
});

describe('preflight: backends', () => {
  void test('rejects an openai planner backend without an endpoint and offers to serve it locally', () => {
    const bad = config({ backends: { planner_backend: 'openai' } });
    const f = assertRule(bad, 'preflight/endpoint-missing', 'error', ['backends', 'planner_backend']);
    assert.deepEqual(
      f.related.map((r) => r.path),
      [['backends', 'planner_endpoint']],
    );
    const withUrl = f.fixes.find((x) => x.preferred !== true);
    assert.ok(withUrl);
    assertSilent(applyConfigEdits(bad, withUrl.edits), 'preflight/endpoint-missing');
  });

  void test('rejects an openai CGM backend without an endpoint', () => {
    assertRule(config({ backends: { cgm_backend: 'openai' } }), 'preflight/endpoint-missing', 'error', ['backends', 'cgm_backend']);
    assertSilent(config({ backends: { cgm_backend: 'openai', cgm_endpoint: 'http://cgm:8000/v1' } }), 'preflight/endpoint-missing');
  });
});

describe('the embedded model', () => {
  test('its context must hold the prompt budget and the reply', () => {
    const bad = config({
      backends: { planner_backend: 'embedded', embedded_context_size: 4096 },
      planner_sampling: { max_input_tokens: 4096, max_new_tokens: 512 },
    });
    const f = assertRule(bad, 'preflight/context-too-small', 'error', ['backends', 'embedded_context_size']);
    assert.match(f.message, /4608 tokens/);
    assertSilent(config({ backends: { planner_backend: 'embedded' } }), 'preflight/context-too-small');
    // Not embedded: the context is the server's business.
    assertSilent(config({ backends: { embedded_context_size: 512 } }), 'preflight/context-too-small');
  });

  test('an endpoint beside the embedded backend is used instead, and preflight says so', () => {
    const f = one(config({ backends: { planner_backend: 'embedded', planner_endpoint: 'http://127.0.0.1:8000/v1' } }), 'preflight/embedded-endpoint');
    assert.equal(f.severity, 'info');
    assert.deepEqual(f.path, ['backends', 'planner_endpoint']);
    assertSilent(config({ backends: { planner_backend: 'embedded' } }), 'preflight/embedded-endpoint');
  });
});
