/**
 * The environment service over real HTTP on loopback, with real sandboxes (local backend) and the
 * real environment. The client here is a test peer standing in for a trainer's agent loop: it sends
 * the replies of a recorded `gp rollout` episode (each recorded action rendered as reply text), so
 * the service must reproduce that episode's rewards and return exactly. Also: the token is
 * required, creating and stepping are idempotent, a wrong turn is refused, the cap answers 429
 * with Retry-After, a client closing early gets the limit's end, and closing the service ends every
 * open episode. Episodes land in the run folder as a rollout's do.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renderAction } from '../../server/src/agents/index.js';
import { runCli } from '../../server/src/cli/main.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { episodeDepsFromConfig, loadPlannerPrompt, loadRolloutTasks } from '../../server/src/launch/index.js';
import { closeReplySchema, createEpisodeReplySchema, serviceFileSchema, stepReplySchema } from '../../server/src/protocol/envService.js';
import { readEvents, readTrajectory } from '../../server/src/runs/index.js';
import type { PlannedTask } from '../../server/src/rollout/index.js';
import { EnvService } from '../../server/src/cluster/index.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-env-service-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** POST (or GET) with node:http, as the Python client will speak to it. */
function call(url: string, path: string, token: string | undefined, payload?: unknown): Promise<Reply> {
  const text = payload === undefined ? undefined : JSON.stringify(payload);
  return new Promise((resolveReply, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: text === undefined ? 'GET' : 'POST',
        headers: {
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolveReply({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('the environment service', () => {
  const recordedRun = join(dir, 'recorded');
  const runDir = join(dir, 'service-run');
  let tasks: Map<string, PlannedTask>;
  let recorded: { replies: string[]; rewards: number[]; total: number; start: string };

  before(async () => {
    const code = await runCli(
      ['rollout', 'datasets/sample/tasks.jsonl', '--backend', 'local', '--task', 'sample-calc-add', '--run-dir', recordedRun],
      { out: () => undefined, err: () => undefined },
      root,
    );
    assert.equal(code, 0, 'the recorded rollout ran');
    const read = await readTrajectory(join(recordedRun, 'trajectories', 'sample-calc-add.jsonl'));
    assert.ok(read?.start !== undefined && read.end !== undefined);
    recorded = {
      replies: read.steps.map((s) => (s.action === undefined ? 'not an action' : renderAction(s.action))),
      rewards: read.steps.map((s) => s.reward),
      total: read.end.total_reward,
      start: read.start.observation.text,
    };
    const loaded = await loadRolloutTasks({
      files: ['datasets/sample/tasks.jsonl'],
      taskIds: [],
      limit: undefined,
      cwd: root,
      command: 'test',
      allowedMountRoots: [],
    });
    assert.ok(loaded.ok);
    tasks = new Map(loaded.tasks.map((t) => [t.task.task_id, t]));
  });

  function service(maxOpen = 4, episodeDeadlineMs = 120_000, prompt?: { systemPrompt: string; observationBudget?: number }): EnvService {
    const config = experimentConfigSchema.parse({ sandbox: { backend: 'local' } });
    return new EnvService({
      runDir,
      tasks,
      deps: episodeDepsFromConfig(config, 'env-service-it', runDir),
      maxOpen,
      episodeDeadlineMs,
      ...(prompt === undefined ? {} : { prompt }),
    });
  }

  test('tells the agent loop the experiment’s prompt: its system message, and each observation cut to the budget', async () => {
    const promptFile = join(runDir, '..', 'system.txt');
    writeFileSync(promptFile, 'You repair Python bugs; reply in blocks.');
    const config = experimentConfigSchema.parse({ prompts: { system: promptFile, observation_budget: 200 } });
    const prompt = await loadPlannerPrompt(config, root, { format: 'text' });
    assert.match(
      prompt.systemPrompt,
      /^You repair Python bugs; reply in blocks\.\n\nEvery reply is exactly one block/,
      'the file, then the text reply format, whatever structured_output says',
    );
    const svc = service(2, 120_000, prompt);
    const file = await svc.start();
    try {
      const created = createEpisodeReplySchema.parse(
        (await call(file.url, '/episodes', file.token, { client_key: 'prompt-1', task_id: 'sample-calc-add' })).body,
      );
      assert.equal(created.system_prompt, prompt.systemPrompt);
      assert.ok(recorded.start.length > 200, 'the sample observation is longer than the budget');
      assert.equal(created.observation, `${recorded.start.slice(0, 200)}\n[… ${recorded.start.length - 200} more characters of this observation left out]`);
      const step = stepReplySchema.parse(
        (await call(file.url, `/episodes/${encodeURIComponent(created.episode_id)}/step`, file.token, { turn: 1, reply: recorded.replies[0] })).body,
      );
      assert.match(step.observation, /more characters of this observation left out\]$/);
      await call(file.url, `/episodes/${encodeURIComponent(created.episode_id)}/close`, file.token, {});
    } finally {
      await svc.close();
    }
  });

  test('reproduces a recorded episode turn by turn, idempotently, behind its token', async () => {
    const svc = service();
    const file = await svc.start();
    try {
      const onDisk = serviceFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'env_service.json'), 'utf8')));
      assert.equal(onDisk.token, file.token);
      assert.equal(statSync(join(runDir, 'env_service.json')).mode & 0o777, 0o600, 'only the owner can read the token');
      assert.match(file.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'loopback by default');
      assert.equal((await call(file.url, '/health', undefined)).status, 401, 'no token, no answer');
      assert.equal((await call(file.url, '/episodes', 'wrong-token', { client_key: 'a', task_id: 'sample-calc-add' })).status, 401);

      const created = await call(file.url, '/episodes', file.token, { client_key: 'sample-1', task_id: 'sample-calc-add', group_id: 'g0' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const episode = createEpisodeReplySchema.parse(created.body);
      assert.equal(episode.observation, recorded.start, 'the same first observation as the recorded rollout');
      const again = createEpisodeReplySchema.parse(
        (await call(file.url, '/episodes', file.token, { client_key: 'sample-1', task_id: 'sample-calc-add', group_id: 'g0' })).body,
      );
      assert.equal(again.episode_id, episode.episode_id, 'the same client key is the same episode');

      const rewards: number[] = [];
      for (const [i, reply] of recorded.replies.entries()) {
        const r = await call(file.url, `/episodes/${encodeURIComponent(episode.episode_id)}/step`, file.token, { turn: i + 1, reply });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const step = stepReplySchema.parse(r.body);
        rewards.push(step.reward);
        if (i === 0) {
          const repeated = await call(file.url, `/episodes/${encodeURIComponent(episode.episode_id)}/step`, file.token, { turn: 1, reply });
          assert.deepEqual(repeated.body, r.body, 'the same turn again answers the same');
          const skipped = await call(file.url, `/episodes/${encodeURIComponent(episode.episode_id)}/step`, file.token, { turn: 5, reply });
          assert.equal(skipped.status, 409);
          assert.match(JSON.stringify(skipped.body), /expects turn 2, not 5/);
        }
        assert.equal(step.done, i === recorded.replies.length - 1, `done only at the last turn (${i + 1})`);
      }
      assert.deepEqual(rewards, recorded.rewards, 'the same rewards as the rollout');
      const closed = closeReplySchema.parse((await call(file.url, `/episodes/${encodeURIComponent(episode.episode_id)}/close`, file.token, {})).body);
      assert.deepEqual([closed.total_reward, closed.resolved, closed.termination_reason], [recorded.total, true, 'submitted']);
      const trajectory = await readTrajectory(join(runDir, 'trajectories', `${episode.episode_id}.jsonl`));
      assert.equal(trajectory?.end?.total_reward, recorded.total, 'the trajectory is in the run folder with its end line');
      assert.deepEqual(trajectory?.problems, []);
      const events = (await readEvents(join(runDir, 'events.jsonl'))).records
        .filter((e) => 'episode_id' in e && e.episode_id === episode.episode_id)
        .map((e) => e.kind);
      assert.deepEqual(events, ['episode-start', 'episode-end']);
    } finally {
      await svc.close();
    }
  });

  test("caps open episodes with 429 and Retry-After; a client closing early gets the limit's end", async () => {
    const svc = service(1);
    const file = await svc.start();
    try {
      const first = createEpisodeReplySchema.parse((await call(file.url, '/episodes', file.token, { client_key: 'cap-1', task_id: 'sample-calc-add' })).body);
      const refused = await call(file.url, '/episodes', file.token, { client_key: 'cap-2', task_id: 'sample-version' });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '5');
      const cut = closeReplySchema.parse(
        (await call(file.url, `/episodes/${encodeURIComponent(first.episode_id)}/close`, file.token, { reason: 'max_steps' })).body,
      );
      assert.equal(cut.termination_reason, 'max_steps');
      assert.equal(cut.resolved, false);
      const read = await readTrajectory(join(runDir, 'trajectories', `${first.episode_id}.jsonl`));
      assert.equal(read?.end?.termination_reason, 'max_steps', 'the trajectory ends with the limit');
      assert.equal(
        (await call(file.url, '/episodes', file.token, { client_key: 'cap-2', task_id: 'sample-version' })).status,
        200,
        'a closed episode frees its place',
      );
      const unknown = await call(file.url, '/episodes', file.token, { client_key: 'x', task_id: 'no-such-task' });
      assert.equal(unknown.status, 404);
      const bad = await call(file.url, '/episodes', file.token, { task_id: 'sample-calc-add' });
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(bad.body), /client_key/);
    } finally {
      await svc.close();
    }
  });

  test('two requests with one client key at once make one episode; a client that vanishes is ended at the deadline', async () => {
    const svc = service(4, 3000);
    const file = await svc.start();
    try {
      const both = await Promise.all([1, 2].map(() => call(file.url, '/episodes', file.token, { client_key: 'twice', task_id: 'sample-version' })));
      const [a, b] = both.map((r) => createEpisodeReplySchema.parse(r.body));
      assert.equal(a?.episode_id, b?.episode_id);
      // The client never steps nor closes: the service ends the episode itself after 3 s.
      const ended = await (async () => {
        for (let waited = 0; waited < 30_000; waited += 250) {
          const read = await readTrajectory(join(runDir, 'trajectories', `${a?.episode_id ?? ''}.jsonl`));
          if (read?.end !== undefined) return read.end;
          await new Promise((r) => setTimeout(r, 250));
        }
        return undefined;
      })();
      assert.equal(ended?.termination_reason, 'interrupted', 'ended by the service at its deadline');
      // The end line is written before the episode's tracked work (its sandbox's close) settles, and
      // the episode counts as open until then (server/src/cluster/serviceEpisode.ts), so the count is
      // read once that work has had its time.
      for (let waited = 0; waited < 10_000 && svc.openEpisodes > 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
      assert.equal(svc.openEpisodes, 0);
    } finally {
      await svc.close();
    }
  });

  test('closing the service ends every open episode and closes its sandbox', async () => {
    const svc = service();
    const file = await svc.start();
    const open = createEpisodeReplySchema.parse((await call(file.url, '/episodes', file.token, { client_key: 'shutdown-1', task_id: 'sample-calc-add' })).body);
    await svc.close();
    const read = await readTrajectory(join(runDir, 'trajectories', `${open.episode_id}.jsonl`));
    assert.equal(read?.end?.termination_reason, 'interrupted', 'the open episode was ended, and says so');
    // A closed service leaves no file naming it, so no client tries to reach it (issue 21).
    assert.equal(existsSync(join(runDir, 'env_service.json')), false);
  });
});
