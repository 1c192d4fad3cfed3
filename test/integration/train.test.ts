/**
 * Training with the real engines: the Python adapter's pytest suite, the Verl override translation
 * composed with Verl 0.9.1's own Hydra config for every example config, `gp train --smoke` run
 * in-process (the trainer a local child), and the same smoke as a job on a real Ray head started on
 * loopback. Needs the trainer environment that python/setup.sh builds (npm test runs it).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { loadConfig } from '../../server/src/launch/index.js';
import { metricsLineSchema, stepSamplesLineSchema, type MetricsLine } from '../../server/src/protocol/metrics.js';
import { runEventSchema, type TrajectoryStep } from '../../server/src/protocol/runs.js';
import { readTrajectory } from '../../server/src/runs/index.js';
import { wholePrompts } from '../../server/src/episodes/index.js';
import { hydraArgument, verlOverrides } from '../../server/src/trainer/index.js';
import { realOutcomeEstimator } from '../../server/src/protocol/noOutcome.js';
import { trainerPython } from '../../server/src/cluster/index.js';

const root = resolve('.');
const python = trainerPython(undefined);
const dir = mkdtempSync(join(tmpdir(), 'gp-train-'));
after(() => rmSync(dir, { recursive: true, force: true }));

before(() => {
  const probe = spawnSync(python, ['-c', 'import verl, ray'], { encoding: 'utf8' });
  if (probe.status !== 0)
    throw new Error(`the trainer environment is missing or broken (${python}: ${probe.stderr.trim().split('\n').pop() ?? ''}); run bash python/setup.sh`);
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

function metricsOf(runDir: string): MetricsLine[] {
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => metricsLineSchema.parse(JSON.parse(l)));
}

interface Checks {
  ok: boolean;
  steps: {
    step: number;
    failures: unknown[];
    samples: {
      group_id: string;
      episode_id: string;
      task_id: string;
      total_reward: number;
      model_tokens: number;
      env_tokens: number;
      score: number;
      decoded_model_tokens: string;
    }[];
  }[];
}

/** What every smoke run must show, whichever way the trainer ran. */
async function assertSmokeRun(runDir: string, label: string): Promise<void> {
  const checks = JSON.parse(readFileSync(join(runDir, 'smoke', 'checks.json'), 'utf8')) as Checks;
  assert.equal(checks.ok, true, `${label}: the smoke's own checks failed: ${JSON.stringify(checks.steps.map((s) => s.failures))}`);
  const samples = checks.steps.flatMap((s) => s.samples);
  // planner_debug: one task per step, two episodes per task (rollout_n 2), one GRPO group.
  assert.equal(samples.length, 2);
  assert.equal(new Set(samples.map((s) => s.group_id)).size, 1, 'one GRPO group of size n');
  const metrics = metricsOf(runDir);
  const verl = metrics.filter((m) => m.source === 'verl');
  assert.deepEqual(
    verl.map((m) => m.step),
    [1],
    'one metrics line per step',
  );
  for (const key of ['critic/score/mean', 'response_length/mean', 'num_turns/mean', 'timing_s/step', 'critic/advantages/max', 'actor/pg_loss']) {
    assert.ok(key in (verl[0]?.data ?? {}), `${label}: metrics.jsonl lacks ${key}`);
  }
  const env = metrics.filter((m) => m.source === 'env');
  assert.equal(env.length, 2);
  for (const line of env) {
    // Every reply the environment received is counted, and each that failed to parse is counted apart.
    assert.ok(
      line.source === 'env' &&
        line.replies !== undefined &&
        line.replies >= 1 &&
        (line.parse_failures ?? -1) >= 0 &&
        (line.parse_failures ?? 0) <= line.replies,
      `${label}: ${JSON.stringify(line)}`,
    );
  }
  for (const sample of samples) {
    // The reward Verl trained on is the return our environment graded, episode by episode.
    const trajectory = await readTrajectory(join(runDir, 'trajectories', `${sample.episode_id}.jsonl`));
    assert.ok(trajectory?.start !== undefined && trajectory.end !== undefined, `${label}: trajectory of ${sample.episode_id}`);
    assert.deepEqual(trajectory.problems, []);
    assert.equal(trajectory.torn, false);
    assert.ok(Math.abs(trajectory.end.total_reward - sample.score) < 1e-6, `${label}: score ${sample.score} vs return ${trajectory.end.total_reward}`);
    assert.ok(Math.abs(sample.total_reward - sample.score) < 1e-6);
    // The model tokens are exactly the replies the environment received, step by step.
    assert.equal(sample.decoded_model_tokens, trajectory.steps.map((s) => s.response ?? '').join(''));
    assert.ok(sample.model_tokens > 0 && sample.env_tokens > 0);
    // Each step records the tokens behind its reply; the scripted policy returns no log-probabilities.
    const replied = assertStepTokens(trajectory.steps, `${label}: ${sample.episode_id}`);
    assert.equal(
      replied.reduce((n, s) => n + (s.tokens?.completion_token_ids.length ?? 0), 0),
      sample.model_tokens,
      'every model token Verl trained on is in the trajectory',
    );
    assert.ok(
      replied.every((s) => s.tokens?.logprobs === undefined),
      'the scripted policy returned no log-probabilities, and none are invented',
    );
  }
  const returns = samples.map((s) => s.total_reward);
  assert.notEqual(returns[0], returns[1], 'the scripted policy fumbles one episode of the group, so advantages are not all zero');
  assert.ok((verl[0]?.data['actor/grad_norm'] ?? 0) > 0, 'the actor update moved the weights');
  const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; episodes: { finished: number } };
  assert.equal(status.state, 'finished');
  assert.equal(status.episodes.finished, 2);
  const left = execFileSync('docker', ['ps', '-a', '-q', '--filter', `label=graph-planner.run=${runDir.split('/').pop() ?? ''}`], { encoding: 'utf8' }).trim();
  assert.equal(left, '', `${label}: containers left behind`);
}

/**
 * Every step with a reply carries the tokens behind it (docs/trainer-bridge.md#tokens): its
 * completion ids, its prompt (whole on the first step, then as a change that reads back into a
 * prompt that grows), and log-probabilities one per completion token when there are any.
 * (smoke/recorded_tokens.py checks in the driver that they are exactly the policy's.)
 */
function assertStepTokens(steps: readonly TrajectoryStep[], label: string): TrajectoryStep[] {
  const replied = steps.filter((s) => s.response !== undefined);
  assert.ok(replied.length > 0, `${label}: no step with a reply`);
  for (const step of replied) {
    const tokens = step.tokens;
    assert.ok(tokens !== undefined && tokens.completion_token_ids.length > 0, `${label}: step ${step.step} records no completion tokens`);
    assert.ok(tokens.logprobs === undefined || tokens.logprobs.length === tokens.completion_token_ids.length, `${label}: step ${step.step}`);
  }
  assert.ok(replied[0]?.tokens?.prompt_token_ids !== undefined, `${label}: the first prompt is recorded whole`);
  assert.ok(
    replied.slice(1).every((s) => s.tokens?.prompt_delta !== undefined),
    `${label}: later prompts are recorded as changes`,
  );
  const prompts = wholePrompts(replied);
  for (const [i, prompt] of prompts.entries()) {
    assert.ok(prompt !== undefined && prompt.length > 0, `${label}: the prompt of step ${replied[i]?.step} reads back`);
    if (i > 0) assert.ok(prompt.length > (prompts[i - 1]?.length ?? 0), `${label}: each prompt holds the conversation before it`);
  }
  return replied;
}

// The scripted policy: deterministic outcomes (one fumbled episode per group), a few seconds a step.
const smokeArgs = (runDir: string) => [
  'train',
  'configs/experiments/planner_debug.yaml',
  '--smoke',
  '--smoke-policy',
  'scripted',
  '--tasks',
  'datasets/sample/tasks.jsonl',
  '--task',
  'sample-calc-add',
  '--run-dir',
  runDir,
  '--stall-timeout',
  '300',
];

interface Gap {
  tokens: number;
  max_abs: number;
  mean_abs: number;
}

interface Phase {
  seconds: number;
  tokens: number;
  tokens_per_s: number;
}

interface OnPolicyChecks {
  ok: boolean;
  policy: string;
  steps: {
    step: number;
    failures: unknown[];
    samples: { episode_id: string; model_tokens: number }[];
    on_policy: { weights_version: number; log_prob_gap_sampling_weights: Gap; log_prob_gap_initial_weights?: Gap; l2_delta: number; l2_from_initial: number };
    timing: { step_seconds: number; generation: Phase; environment: Phase; update: Phase };
  }[];
}

describe('gp train with Verl 0.9.1 and Ray 2.60', () => {
  test('the Python adapter’s pytest suite passes in the trainer environment', () => {
    const run = spawnSync(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'python/tests'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /\d+ passed/);
  });

  test('every example config translates into overrides Verl’s own Hydra config accepts', async () => {
    const configs = readdirSync('configs/experiments').filter((f) => f.endsWith('.yaml'));
    assert.ok(configs.length >= 4);
    const translated = [];
    for (const file of configs) {
      const loaded = await loadConfig({ file: join('configs/experiments', file), flags: { overrides: [] } as never, cwd: root, disk: false });
      assert.equal(loaded.kind, 'resolved', file);
      const config = loaded.kind === 'resolved' ? loaded.resolution.config : undefined;
      assert.ok(config !== undefined, `${file} resolves`);
      const paths = {
        trainFiles: '/r/data/train.parquet',
        valFiles: '/r/data/val.parquet',
        modelPath: '/models/m',
        agentLoopConfig: '/p/agent_loop.yaml',
        checkpointDir: '/r/checkpoints',
        rolloutDumpDir: '/r/rollouts',
      };
      const overrides = verlOverrides(config, { paths, runName: 'run-x' });
      const argsFile = join(dir, `${file}.args.json`);
      const keysFile = join(dir, `${file}.keys.json`);
      writeFileSync(argsFile, JSON.stringify(overrides.map(hydraArgument)));
      writeFileSync(keysFile, JSON.stringify(overrides.map((o) => o.key)));
      translated.push({ file, config, overrides, argsFile, keysFile });
    }
    // One Python process composes every config's overrides, since importing Verl takes seconds.
    const composed = spawnSync(python, ['test/python/compose_verl_config.py', ...translated.flatMap((t) => [t.argsFile, t.keysFile])], {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(composed.status, 0, composed.stderr.slice(-2000));
    const answers = composed.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { values?: Record<string, unknown>; error?: string });
    assert.equal(answers.length, translated.length, composed.stdout.slice(-2000));
    translated.forEach(({ file, config, overrides }, i) => {
      const answer = answers[i];
      assert.equal(answer?.error, undefined, `${file}: Verl's Hydra config refused the overrides:\n${answer?.error ?? ''}`);
      const values = answer?.values ?? {};
      // Hydra read back every value as we meant it (numbers as numbers, lists as lists, paths intact).
      for (const o of overrides) assert.deepEqual(values[o.key], o.value, `${file}: ${o.key}`);
      assert.equal(values['algorithm.adv_estimator'], config.training.adv_estimator === 'grpo' ? realOutcomeEstimator : config.training.adv_estimator);
      assert.equal(values['algorithm.failed_members'], config.training.failed_members);
      assert.ok((values['trainer.logger'] as string[]).includes('file'), `${file}: the file logger is always on`);
    });
  });

  test('gp train --smoke runs Verl’s agent loop, GRPO and one actor update through our environment', async () => {
    const runDir = join(dir, 'smoke-local');
    const { io: cli, out, err } = io();
    const code = await runCli(smokeArgs(runDir), cli, root);
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-40).join('\n')}`);
    assert.match(out.join('\n'), /finished: the trainer ended: exit code 0/);
    await assertSmokeRun(runDir, 'local');
    assert.ok(existsSync(join(runDir, 'verl_metrics', 'attempt-1.jsonl')));
    assert.match(readFileSync(join(runDir, 'run.log'), 'utf8'), /passed every check/);
    // Again into the same run: a second attempt, with its own metrics file, appended to metrics.jsonl.
    const again = io();
    assert.equal(await runCli(smokeArgs(runDir), again.io, root), 0, again.err.slice(-20).join('\n'));
    assert.ok(existsSync(join(runDir, 'verl_metrics', 'attempt-2.jsonl')));
    assert.deepEqual(
      metricsOf(runDir).flatMap((m) => (m.source === 'verl' ? [m.attempt] : [])),
      [1, 2],
    );
    // Verl's metrics also went to TensorBoard event files (test/integration/tensorboard.test.ts reads them with TensorBoard).
    assert.ok(
      readdirSync(join(runDir, 'tensorboard')).some((n) => n.startsWith('events.out.tfevents.')),
      'a TensorBoard event file was written',
    );
    // Each step's sample table: both episodes of the step's group, each linked to its trajectory.
    const samples = readFileSync(join(runDir, 'step_samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => stepSamplesLineSchema.parse(JSON.parse(l)));
    assert.deepEqual(
      samples.map((l) => [l.attempt, l.step, l.total, l.episodes.length]),
      [
        [1, 1, 2, 2],
        [2, 1, 2, 2],
      ],
    );
    for (const e of samples.flatMap((l) => l.episodes)) assert.ok(existsSync(join(runDir, e.trajectory)), e.trajectory);
    // Each episode's GRPO group and training step, for the group view: attempt 1's two episodes are
    // the two members of one group of step 1; the resumed attempt's end before its first metrics
    // line, and Verl resumed from a checkpoint the service cannot see, so their step is left unknown.
    let attempt = 0;
    const ends = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => runEventSchema.parse(JSON.parse(l)))
      .flatMap((e) => {
        if (e.kind === 'run-start') attempt++;
        return e.kind === 'episode-end' ? [{ attempt, training: e.training }] : [];
      });
    assert.deepEqual(ends.map((e) => JSON.stringify([e.attempt, e.training?.step ?? null, e.training?.group_member ?? null])).sort(), [
      '[1,1,0]',
      '[1,1,1]',
      '[2,null,0]',
      '[2,null,1]',
    ]);
    assert.equal(new Set(ends.filter((e) => e.attempt === 1).map((e) => e.training?.group_id)).size, 1, 'one group of step 1');
    const shown = io();
    assert.equal(await runCli(['runs', 'show', runDir, '--metrics'], shown.io, root), 0);
    assert.match(shown.out.join('\n'), /steps: {4}2 \(latest: step 1 of attempt 2/);
    assert.match(shown.out.join('\n'), /episodes: 4, 4 resolved \(100\.0%\)/);
    assert.match(shown.out.join('\n'), /critic\/score\/mean +0\.\d{4}/);
  });

  test(
    'gp train --smoke trains the real pretrained model on policy: its own replies, its own log-probs, moved weights, and step 2 sampled from them',
    { timeout: 900_000 },
    async () => {
      const runDir = join(dir, 'smoke-model');
      const { io: cli, out, err } = io();
      const args = [
        'train',
        'configs/experiments/planner_debug.yaml',
        '--smoke',
        '--steps',
        '2',
        '--tasks',
        'datasets/sample/tasks.jsonl',
        '--task',
        'sample-calc-add',
        '--run-dir',
        runDir,
        '--stall-timeout',
        '600',
      ];
      const code = await runCli(args, cli, root);
      assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-40).join('\n')}`);
      const checks = JSON.parse(readFileSync(join(runDir, 'smoke', 'checks.json'), 'utf8')) as OnPolicyChecks;
      // The driver's own checks: mask-1 runs are the sampled tokens and decode to the trajectories'
      // replies; the recorded log-probs are the model's under the sampling weights; the weights moved.
      assert.equal(checks.ok, true, JSON.stringify(checks.steps.map((s) => s.failures)));
      assert.equal(checks.policy, 'model');
      assert.deepEqual(
        checks.steps.map((s) => [s.step, s.on_policy.weights_version]),
        [
          [1, 0],
          [2, 1],
        ],
        'step 2 sampled from the weights step 1 updated',
      );
      for (const step of checks.steps) {
        const same = step.on_policy.log_prob_gap_sampling_weights;
        assert.ok(same.tokens > 0 && same.max_abs < 2e-3, `step ${step.step}: recorded and recomputed log-probs differ by ${same.max_abs}`);
        assert.ok(step.on_policy.l2_delta > 0, `step ${step.step}: the update left the weights as they were`);
        assert.equal(
          same.tokens,
          step.samples.reduce((n, s) => n + s.model_tokens, 0),
          'every model token was compared',
        );
        for (const phase of [step.timing.generation, step.timing.environment, step.timing.update]) assert.ok(phase.seconds > 0 && phase.tokens > 0);
      }
      const initial = checks.steps[1]?.on_policy.log_prob_gap_initial_weights;
      assert.ok(initial !== undefined && initial.max_abs > 1e-2, `step 2's replies are as likely under the initial weights (${JSON.stringify(initial)})`);
      assert.ok(
        (checks.steps[1]?.on_policy.l2_from_initial ?? 0) > (checks.steps[0]?.on_policy.l2_delta ?? 0),
        'two updates moved the weights further than one',
      );
      // The environment received the model's own replies: no scripted policy ran, and the trajectories
      // hold what the model wrote (a 135M model answers mostly in prose, which the protocol refuses).
      const metrics = metricsOf(runDir);
      assert.deepEqual(
        metrics.filter((m) => m.source === 'verl').map((m) => m.step),
        [1, 2],
      );
      for (const sample of checks.steps.flatMap((s) => s.samples)) {
        const trajectory = await readTrajectory(join(runDir, 'trajectories', `${sample.episode_id}.jsonl`));
        assert.ok(trajectory?.end !== undefined, sample.episode_id);
        assert.equal(trajectory.start?.max_steps, 2, 'the model smoke keeps episodes short');
        assert.ok(trajectory.steps.length > 0);
        // The model's log-probabilities go with its tokens into the trajectory (the driver checked
        // above that they are exactly the ones it sampled with).
        for (const step of assertStepTokens(trajectory.steps, sample.episode_id)) {
          const logprobs = step.tokens?.logprobs ?? [];
          assert.equal(logprobs.length, step.tokens?.completion_token_ids.length, `${sample.episode_id} step ${step.step}: one log-probability per token`);
          assert.ok(
            logprobs.every((l) => Number.isFinite(l) && l <= 0),
            `${sample.episode_id} step ${step.step}: log-probabilities are finite and at most 0`,
          );
        }
      }
      const resolved = readFileSync(join(runDir, 'resolved_config.yaml'), 'utf8');
      assert.match(resolved, /max_steps: 2/);
      const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; episodes: { finished: number } };
      assert.equal(status.state, 'finished');
      assert.equal(status.episodes.finished, 4);
    },
  );
});
