/**
 * The environment service's side of the contract: every answer its own handler sends, over real
 * HTTP on loopback with scripted episodes (test/unit/rolloutDoubles.ts), fits the JSON Schema that
 * `npm run schemas` emitted (schemas/env-service.schema.json), which is what the Python client's
 * models are generated from. The client's side is python/tests/test_service_contract.py.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { envServiceBodies } from '../../server/src/protocol/envService.js';
import { EnvService } from '../../server/src/cluster/index.js';
import { envServiceSchemaPath } from '../../scripts/generated.js';
import { plannedTasks, TestAgent, testDeps } from './rolloutDoubles.js';

const token = 'contract-test-token';
type BodyName = keyof typeof envServiceBodies;

const schema = JSON.parse(readFileSync(envServiceSchemaPath, 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true });
ajv.addSchema(schema);

/** Asserts that `body` fits the emitted definition `name`, naming what does not. */
function assertFits(name: BodyName, body: unknown, where: string): void {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${name}`);
  assert.ok(validate, `${envServiceSchemaPath} defines ${name}`);
  assert.ok(validate(body), `${where}: ${JSON.stringify(body).slice(0, 300)} is not a ${name}: ${ajv.errorsText(validate.errors)}`);
}

function call(url: string, method: string, path: string, payload?: unknown, auth = token): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent: false, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
    });
    req.on('error', reject);
    req.end(payload === undefined ? undefined : JSON.stringify(payload));
  });
}

/** Calls a route and checks its answer against the body it must be: `name` on 200, the error body otherwise. */
async function answer(url: string, method: string, path: string, name: BodyName, payload?: unknown, auth?: string): Promise<Record<string, unknown>> {
  const reply = await call(url, method, path, payload, auth);
  assertFits(reply.status === 200 ? name : 'ErrorReply', reply.body, `${method} ${path} (${reply.status})`);
  return reply.body as Record<string, unknown>;
}

test("every answer of the service's own handler fits the emitted JSON Schema the Python types come from", async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'gp-contract-service-'));
  const tasks = new Map(plannedTasks(['t1']).map((t) => [t.task.task_id, t]));
  const service = new EnvService({
    runDir,
    tasks,
    deps: testDeps().deps,
    maxOpen: 2,
    episodeDeadlineMs: 60_000,
    token,
    scriptedPolicy: () => new TestAgent({ steps: 1 }),
  });
  try {
    const file = await service.start();
    assertFits('ServiceFile', JSON.parse(readFileSync(join(runDir, 'env_service.json'), 'utf8')), 'env_service.json');
    const url = file.url;
    await answer(url, 'GET', '/health', 'HealthReply');
    const created = await answer(url, 'POST', '/episodes', 'CreateEpisodeReply', { client_key: 'k1', task_id: 't1', group_id: 'g1' });
    const path = `/episodes/${encodeURIComponent(String(created['episode_id']))}`;
    const policy = await answer(url, 'GET', `${path}/policy`, 'PolicyReply');
    const first = await answer(url, 'POST', `${path}/step`, 'StepReply', {
      turn: 1,
      reply: policy['reply'],
      tokens: { prompt_token_ids: [1, 2], completion_token_ids: [3], logprobs: [-0.5] },
    });
    assert.equal(first['done'], false);
    // A reply that does not parse: the answer carries `protocol_error`.
    const unparsed = await answer(url, 'POST', `${path}/step`, 'StepReply', { turn: 2, reply: 'no action here' });
    assert.equal(typeof unparsed['protocol_error'], 'string');
    // The submit: the answer carries `termination_reason`.
    const submitted = await answer(url, 'POST', `${path}/step`, 'StepReply', { turn: 3, reply: '<function=submit>\n</function>' });
    assert.equal(submitted['termination_reason'], 'submitted');
    const closed = await answer(url, 'POST', `${path}/close`, 'CloseReply', { reason: 'max_steps' });
    assert.equal(typeof closed['total_reward'], 'number');
    await answer(url, 'POST', `${path}/close`, 'CloseReply', {});
    // Errors, each in the one error shape: ended, unknown, unauthorised, malformed.
    for (const [method, route, payload, auth, status] of [
      ['POST', `${path}/step`, { turn: 4, reply: 'x' }, token, 409],
      ['POST', '/episodes/none/close', {}, token, 404],
      ['GET', '/health', undefined, 'wrong', 401],
      ['POST', '/episodes', { task_id: 't1' }, token, 400],
    ] as const) {
      const reply = await call(url, method, route, payload, auth);
      assert.equal(reply.status, status, `${method} ${route}`);
      assertFits('ErrorReply', reply.body, `${method} ${route} (${reply.status})`);
    }
  } finally {
    await service.close();
    rmSync(runDir, { recursive: true, force: true });
  }
});

test('the emitted schema refuses a reply missing a field or holding one the service does not send', () => {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/CloseReply`);
  assert.ok(validate);
  const whole = { episode_id: 'e', total_reward: 1, resolved: true, steps: 2, termination_reason: 'submitted' };
  assert.equal(validate(whole), true);
  const { total_reward: _dropped, ...missing } = whole;
  assert.equal(validate(missing), false);
  assert.equal(validate({ ...whole, episode_return: 1 }), false);
});
