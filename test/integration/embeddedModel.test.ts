/**
 * A real language model in the loop: the embedded model (SmolLM2-135M-Instruct behind llama.cpp's
 * OpenAI-compatible server, both installed by scripts/setup-language-model.sh and
 * scripts/setup-model-server.sh) started and stopped, the model agent running the sample tasks on
 * it through `gp rollout` and `gp eval` with every step and parse failure recorded, the server
 * killed mid-run (infrastructure failures, then a clean resume), and CGM through the chat protocol
 * on the same server. Replies are greedy (temperature 0), so a run is the same on every machine
 * with the same build; the tests assert what the pipeline must guarantee, not what a 135M model
 * happens to write.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { embeddedModelSha256, startEmbeddedModel } from '../../server/src/agents/index.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { patchModelFromConfig } from '../../server/src/launch/index.js';
import { runReportSchema, trajectoryLineSchema, type RunReport, type TrajectoryLine } from '../../server/src/protocol/runs.js';
import { runGp } from '../support/cli.js';

const root = resolve('.');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'gp-embedded-it-'));
const children: ChildProcess[] = [];

after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A config for the model agent with short replies, so each test takes a minute or two on two
 * cores; `backends` and `sampling` are further lines of those sections.
 */
function writeConfig(name: string, more: { backends?: string[]; sampling?: string[] }): string {
  const path = join(dir, `${name}.yaml`);
  const lines = [
    'backends:',
    '  request_timeout: 120',
    '  request_retries: 1',
    ...(more.backends ?? []).map((l) => `  ${l}`),
    'planner_sampling:',
    '  temperature: 0',
    '  max_new_tokens: 64',
    '  max_input_tokens: 3072',
    ...(more.sampling ?? []).map((l) => `  ${l}`),
    'rollout:',
    '  agent: model',
    '  parallel: 1',
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const embedded = ['planner_backend: embedded', 'embedded_context_size: 4096'];

function trajectory(runDir: string, file: string): TrajectoryLine[] {
  return readFileSync(join(runDir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      const parsed = trajectoryLineSchema.safeParse(JSON.parse(l));
      assert.ok(parsed.success, `${file}:${i + 1}: ${parsed.success ? '' : parsed.error.message}`);
      return parsed.data;
    });
}

function report(runDir: string): RunReport {
  return runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
}

/** Every step of every episode asked the model and recorded the call; the episode's figures add up. */
function checkModelSteps(runDir: string, r: RunReport): void {
  for (const task of r.tasks) {
    const lines = trajectory(runDir, task.trajectory);
    const steps = lines.filter((l) => l.type === 'step');
    assert.ok(steps.length >= 1, `${task.task_id} took at least one step`);
    for (const step of steps) {
      if (step.type !== 'step' || (step.action === undefined && step.protocol_error === undefined)) continue;
      assert.ok(step.model, `${task.task_id} step ${step.step} records its model call`);
      assert.ok((step.model.prompt_tokens ?? 0) > 0, 'the server reported the prompt tokens it read');
      assert.ok(step.model.generation_ms > 0);
      assert.equal(typeof step.response, 'string', 'the model’s own reply is kept');
    }
    const end = lines.at(-1);
    assert.ok(end?.type === 'end' && end.model, `${task.task_id} ends with its model figures`);
    const failed = Object.values(end.model.parse_failures).reduce((a, b) => a + b, 0);
    const protocolErrors = steps.filter((s) => s.type === 'step' && s.protocol_error !== undefined).length;
    assert.equal(
      end.model.model_steps + end.model.fallback_steps + protocolErrors,
      steps.filter((s) => s.type === 'step' && (s.action !== undefined || s.protocol_error !== undefined)).length,
      'every step is the model’s, the fallback’s or a protocol error',
    );
    assert.ok(failed >= protocolErrors, 'each protocol error is a counted parse failure');
  }
}

/** The pids of llama.cpp servers running on this machine. */
function llamaServers(): string[] {
  return readdirSync('/proc').filter((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('llama_cpp.server');
    } catch {
      return false;
    }
  });
}

test('the embedded server starts on loopback with a fresh token, answers chat completions, refuses requests without the token, and stops', async () => {
  const server = await startEmbeddedModel({ contextSize: 2048, threads: 2 });
  try {
    assert.match(server.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal(server.sha256, embeddedModelSha256);
    const refused = await fetch(`${server.baseUrl}/models`);
    assert.equal(refused.status, 401, 'a request without the token is refused');
    const answer = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.apiKey}` },
      body: JSON.stringify({ model: server.model, messages: [{ role: 'user', content: 'What is 2 + 2?' }], max_tokens: 16, temperature: 0 }),
    });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { choices: Array<{ message: { content: string } }>; usage: { completion_tokens: number } };
    assert.ok((body.choices[0]?.message.content ?? '').trim().length > 0, 'the model wrote something');
    assert.ok(body.usage.completion_tokens > 0);
  } finally {
    await server.close();
  }
  await server.exited;
  assert.equal(
    await fetch(`${server.baseUrl}/models`).then(
      () => 'answered',
      () => 'gone',
    ),
    'gone',
    'the server is stopped',
  );
});

test('gp eval with planner_backend embedded starts the model for the run, records every step and its call, counts parse failures, and stops it', async () => {
  const config = writeConfig('eval', { backends: embedded });
  const runDir = join(dir, 'eval');
  const r = await runGp(root, [
    'eval',
    'datasets/sample/tasks.jsonl',
    '--config',
    config,
    '--task',
    'sample-calc-add',
    '--max-steps',
    '3',
    '--run-dir',
    runDir,
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /embedded model: SmolLM2-135M-Instruct\.Q4_1 .* on http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.match(r.out, /model: \d+\/\d+ steps from its own replies .* replies failed to parse.*fallback off; resolved by the model alone: \d+/);
  const rep = report(runDir);
  assert.ok(rep.model, 'report.json has the model figures');
  assert.equal(rep.model.fallback_enabled, false, 'gp eval runs without the fallback unless asked');
  assert.equal(rep.model.fallback_steps, 0);
  assert.equal(rep.model.resolved_with_fallback, 0);
  assert.ok(rep.model.calls >= 1 && rep.model.prompt_tokens > 0 && rep.model.completion_tokens > 0);
  checkModelSteps(runDir, rep);
  // The run's server is gone with the run: no llama.cpp server is left running on this machine.
  assert.deepEqual(llamaServers(), []);
});

test('with --fallback, the rule agent’s steps are counted apart from the model’s and the summary says what the model resolved alone', async () => {
  const config = writeConfig('fallback', { backends: embedded });
  const runDir = join(dir, 'fallback');
  const r = await runGp(root, [
    'rollout',
    'datasets/sample/tasks.jsonl',
    '--config',
    config,
    '--task',
    'sample-calc-add',
    '--max-steps',
    '3',
    '--fallback',
    '--run-dir',
    runDir,
  ]);
  assert.equal(r.code, 0, r.err);
  const rep = report(runDir);
  assert.ok(rep.model);
  assert.equal(rep.model.fallback_enabled, true);
  assert.match(r.out, /fallback took \d+ steps?; resolved by the model alone: \d+/);
  const steps = trajectory(runDir, rep.tasks[0]?.trajectory ?? '').filter((l) => l.type === 'step');
  const fallbackSteps = steps.filter((s) => s.type === 'step' && s.fallback_reason !== undefined).length;
  assert.equal(rep.model.fallback_steps, fallbackSteps, 'the report counts exactly the steps the trajectory marks as the fallback’s');
  const resolvedPadded = rep.tasks.filter((t) => t.resolved && (t.model?.fallback_steps ?? 0) > 0).length;
  assert.equal(rep.model.resolved_with_fallback, resolvedPadded);
  checkModelSteps(runDir, rep);
});

/** `gp model serve` as a person runs it, with a fixed port and key; resolves with the server's pid once it serves. */
async function serve(port: number, keyEnv: string, key: string): Promise<{ child: ChildProcess; serverPid: number; output: () => string }> {
  const child = spawn(process.execPath, [cli, 'model', 'serve', '--port', String(port), '--ctx', '4096', '--api-key-env', keyEnv], {
    cwd: root,
    env: { ...process.env, [keyEnv]: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!/Press Ctrl-C to stop/.test(text)) {
    assert.ok(Date.now() < deadline && child.exitCode === null, `gp model serve did not start: ${text}`);
    await sleep(200);
  }
  const pid = Number(/pid (\d+)\)/.exec(text)?.[1]);
  assert.ok(pid > 0, text);
  assert.match(text, new RegExp(`sha256: +${embeddedModelSha256}`));
  return { child, serverPid: pid, output: () => text };
}

test('a model server killed mid-run gives infrastructure failures, not outcomes; after a restart, --resume finishes the run', async () => {
  const port = 39000 + (process.pid % 1000);
  const keyEnv = 'GP_IT_MODEL_KEY';
  const key = 'it-key-0123456789';
  const first = await serve(port, keyEnv, key);
  const config = writeConfig('killed', {
    backends: ['planner_backend: openai', `planner_endpoint: http://127.0.0.1:${port}/v1`, `planner_api_key_env: ${keyEnv}`],
    sampling: ['structured_output: json_object'],
  });
  const runDir = join(dir, 'killed');
  process.env[keyEnv] = key;
  try {
    const running = runGp(root, [
      'rollout',
      'datasets/sample/tasks.jsonl',
      '--config',
      config,
      '--task',
      'sample-calc-add',
      '--task',
      'sample-calc-add-unittest',
      '--max-steps',
      '4',
      '--run-dir',
      runDir,
    ]);
    // Kill the server once the first step is on disk: the episode is mid-run.
    const trajectoryFile = join(runDir, 'trajectories', 'sample-calc-add.jsonl');
    const deadline = Date.now() + 180_000;
    while (!(existsSync(trajectoryFile) && readFileSync(trajectoryFile, 'utf8').includes('"type":"step"'))) {
      assert.ok(Date.now() < deadline, 'the first step was never recorded');
      await sleep(100);
    }
    process.kill(first.serverPid, 'SIGKILL');
    const r = await running;
    assert.equal(r.code, 75, `an infrastructure failure exits 75: ${r.err}`);
    const rep = report(runDir);
    assert.equal(rep.total, 0, 'no episode is counted as an outcome');
    assert.ok((rep.infrastructure_failures ?? []).length === 2, JSON.stringify(rep.infrastructure_failures));
    assert.ok(rep.infrastructure_failures?.every((f) => f.code === 'model-unreachable'));
    assert.match(r.out + r.err, /model-unreachable/);
    // gp model serve says its server died, and exits 1.
    await new Promise((done) => (first.child.exitCode === null ? first.child.once('exit', done) : done(undefined)));
    assert.equal(first.child.exitCode, 1);
    assert.match(first.output(), /exited with SIGKILL/);

    const second = await serve(port, keyEnv, key);
    const resumed = await runGp(root, [
      'rollout',
      'datasets/sample/tasks.jsonl',
      '--config',
      config,
      '--task',
      'sample-calc-add',
      '--task',
      'sample-calc-add-unittest',
      '--max-steps',
      '4',
      '--run-dir',
      runDir,
      '--resume',
    ]);
    assert.equal(resumed.code, 0, resumed.err);
    const after = report(runDir);
    assert.equal(after.total, 2);
    assert.equal(after.infrastructure_failures, undefined);
    assert.ok(after.model && after.model.calls >= 2);
    checkModelSteps(runDir, after);
    second.child.kill('SIGINT');
    await new Promise((done) => second.child.once('exit', done));
    assert.equal(second.child.exitCode, 0, 'Ctrl-C stops gp model serve cleanly');
    assert.match(second.output(), /Stopped\./);
  } finally {
    delete process.env[keyEnv];
  }
});

test('CGM through the chat protocol on the embedded server: a patch request reaches the model and comes back as candidates or a clear refusal', async () => {
  const server = await startEmbeddedModel({ contextSize: 4096, threads: 2 });
  try {
    const config = experimentConfigSchema.parse({ backends: { cgm_backend: 'embedded' }, cgm_generation: { max_new_tokens: 160, temperature: 0 } });
    const model = patchModelFromConfig(config, { servers: { cgm: { baseUrl: server.baseUrl, model: server.model, apiKey: server.apiKey } } });
    assert.ok(model, 'an embedded CGM gives the environment a patch model');
    const request = {
      issue: { title: 'add subtracts', body: 'add(2, 2) should be 4' },
      plan: '1) In add, return a + b instead of a - b.',
      focus: [
        {
          node: { id: 'func:app/calc.py#add', kind: 'function', path: 'app/calc.py', name: 'add', span: { start: 1, end: 2 } },
          start: 1,
          end: 2,
          text: 'def add(a, b):\n    return a - b',
        },
      ],
      files: {},
      notes: [],
      constraints: { max_edits: 1, one_file: true },
    } as unknown as Parameters<typeof model.generate>[0];
    try {
      const candidates = await model.generate(request, new AbortController().signal);
      // Structured output holds the reply to the patch schema, so what comes back parses.
      assert.ok(candidates.length >= 1);
      assert.ok(candidates.every((c) => !('edits' in c) || c.edits.every((e) => typeof e.path === 'string' && e.start >= 1)));
    } catch (error) {
      // A 135M model may still write an unusable patch: the error must say so, not that the server failed.
      assert.match(String(error), /replied without a usable patch/);
    }
  } finally {
    await server.close();
  }
});
