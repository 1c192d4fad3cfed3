/**
 * The model clients' retry policy in isolation: Retry-After, backoff bounds, server error text,
 * and an abort while waiting to retry (with a stub fetch, no network).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelClientError, postJson, serverErrorText } from '../../server/src/agents/retry.js';
import { backoffDelay, retryAfterMs } from '../../server/src/util/retryPolicy.js';

test('reads Retry-After as seconds or as an HTTP date, and ignores what it cannot read', () => {
  assert.equal(retryAfterMs('2'), 2000);
  assert.equal(retryAfterMs('0.5'), 500);
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:03 GMT', now), 3000);
  assert.equal(retryAfterMs('soon'), undefined);
  assert.equal(retryAfterMs(null), undefined);
});

test('doubles the backoff with each retry, keeps jitter within half of it, and caps it', () => {
  const policy = { timeoutMs: 1000, retries: 5, backoffMs: 100, maxBackoffMs: 1000 };
  assert.equal(
    backoffDelay(0, policy, () => 0),
    50,
  );
  assert.equal(
    backoffDelay(0, policy, () => 0.999999),
    99.99995,
  );
  assert.equal(
    backoffDelay(2, policy, () => 0),
    200,
  );
  assert.equal(
    backoffDelay(10, policy, () => 0),
    500,
  );
});

test('takes the message out of the usual error bodies', () => {
  assert.equal(serverErrorText('{"error": {"message": "bad model", "type": "invalid_request_error"}}'), 'bad model');
  assert.equal(serverErrorText('{"error": "plain"}'), 'plain');
  assert.equal(serverErrorText('{"detail": [{"loc": ["body"], "msg": "field required"}]}'), '[{"loc":["body"],"msg":"field required"}]');
  assert.equal(serverErrorText('{"message": "nope"}'), 'nope');
  assert.equal(serverErrorText('<html>502 Bad Gateway</html>'), '<html>502 Bad Gateway</html>');
  assert.equal(serverErrorText(''), '(empty body)');
  assert.equal(serverErrorText('x'.repeat(1000)).length, 300);
});

test('an abort while waiting to retry stops at once with code aborted', async () => {
  const controller = new AbortController();
  let calls = 0;
  const stub: typeof fetch = () => {
    calls++;
    setTimeout(() => controller.abort(), 20);
    return Promise.resolve(new Response('{"error": {"message": "busy"}}', { status: 503 }));
  };
  const started = performance.now();
  const error = await postJson(
    'http://127.0.0.1:9/x',
    {},
    { what: 'stub', fetch: stub, signal: controller.signal, timeoutMs: 1000, retries: 3, backoffMs: 10_000 },
  ).then(
    () => assert.fail('expected an abort'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ModelClientError);
  assert.deepEqual([error.code, error.attempts, calls], ['aborted', 1, 1]);
  assert.ok(performance.now() - started < 2000);
});
