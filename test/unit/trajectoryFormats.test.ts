/**
 * Other tools' trajectories in the viewer's model and in `gp trajectory show`: the real ATIF,
 * SWE-agent and mini-swe-agent files of test/fixtures/formats (README there names each one's source
 * and licence), every ATIF version's own shape (v1.0 to v1.8) and the fields each version may not
 * have, mini-swe-agent's current shape built from its documented structure, the format told from
 * the content rather than the name, and hostile files: broken JSON located at its line and column,
 * shapes that are no trajectory, and control characters that must not reach a terminal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { trajectoryExport, trajectoryShow } from '../../server/src/cli/trajectoryCommands.js';
import { atifTrajectorySchema } from '../../server/src/protocol/atif.js';
import {
  EpisodeDocuments,
  openDocument,
  openedHeader,
  openedRows,
  searchOpened,
  TrajectoryFormatError,
  type OpenedEpisode,
  type ForeignEpisode,
} from '../../server/src/formats/index.js';
import { fixturePath } from '../support/fixtures.js';

const atifValid = fixturePath('formats/atif/letta-tool-calls.v1.7.json');
const atifInvalid = fixturePath('formats/atif/letta-cleanup.v1.7.invalid-arguments.json');
const sweAgent = fixturePath('formats/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj');
const miniList = fixturePath('formats/mini-swe-agent/local.traj.json');

function foreign(opened: OpenedEpisode): ForeignEpisode {
  assert.equal(opened.kind, 'foreign');
  return (opened as Extract<OpenedEpisode, { kind: 'foreign' }>).episode;
}

const openFile = (path: string): ForeignEpisode => foreign(openDocument(readFileSync(path, 'utf8'), path));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

test('a valid ATIF v1.7 file: every step, its tool calls, multimodal parts, subagent reference and no problems', () => {
  const e = openFile(atifValid);
  assert.deepEqual(e.problems, []);
  assert.equal(e.format.name, 'atif');
  assert.equal(e.format.version, 'ATIF-v1.7');
  assert.deepEqual(
    e.steps.map((s) => s.source),
    ['user', 'agent', 'agent'],
  );
  const [user, agent] = e.steps;
  assert.equal(user?.message, 'Inspect the workspace.');
  assert.deepEqual(user?.media, [{ kind: 'image', mediaType: 'image/png', path: 'images/workspace.png' }]);
  assert.deepEqual(
    agent?.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      ['call-list', 'shell', { command: 'find . -maxdepth 1 -type f' }],
      ['call-delegate', 'delegate', { task: 'inspect config' }],
    ],
  );
  assert.equal(agent?.reasoning, 'I should list the files before reading one.');
  assert.equal(agent?.model, 'example-step-model');
  assert.deepEqual(
    agent?.results.map((r) => [r.callId, r.content, r.subagents]),
    [
      ['call-list', 'README.md\npackage.json', []],
      ['call-delegate', '', ['subagents/config.json']],
    ],
  );
  assert.equal(e.episodeId, 'trajectory-atif-1');
  assert.equal(e.issue?.title, 'Inspect the workspace.');
  // ATIF has no reward: the rows say none, and the format says why, instead of a zero.
  const rows = openedRows({ kind: 'foreign', episode: e });
  assert.ok(rows.every((r) => r.reward === null && r.cumulative === null && r.durationMs === null));
  assert.match(e.format.lacks.join(' '), /No rewards: ATIF has no reward field/);
  assert.match(rows[1]?.summary ?? '', /^shell find \. -maxdepth 1 -type f; delegate inspect config$/);
});

test('an invalid ATIF file is still shown, its violation located by JSON path, line and column, on the step it concerns', () => {
  const e = openFile(atifInvalid);
  assert.equal(e.steps.length, 4);
  assert.equal(e.problems.length, 1);
  assert.match(e.problems[0] ?? '', /^steps\[2\]\.tool_calls\[0\]\.arguments \(line 30, column 11\): .*expected record, received array/);
  const step = e.steps[2];
  assert.deepEqual(step?.toolCalls[0]?.arguments, ['fast'], 'the arguments are shown as the file has them');
  assert.equal(step?.problems.length, 1);
  assert.deepEqual(
    step?.results.map((r) => r.callId),
    ['call-check', null],
  );
  assert.deepEqual(
    step?.media.map((m) => m.path),
    ['images/result.png'],
  );
  const rows = openedRows({ kind: 'foreign', episode: e });
  assert.equal(rows[2]?.error, step?.problems[0], 'the step is marked, so "problems only" finds it');
  assert.deepEqual(
    rows.map((r) => r.kind),
    ['system', 'user', 'agent', 'agent'],
  );
  assert.match(e.format.facts.join(' '), /1 embedded subagent trajectory/);
});

/** The smallest document each version allows, using the fields that version added. */
function atifOf(version: string): Record<string, unknown> {
  const minor = Number(version.slice('ATIF-v1.'.length));
  const metrics: Record<string, unknown> = {
    prompt_tokens: 10,
    completion_tokens: 2,
    ...(minor >= 3 ? { completion_token_ids: [5, 6] } : {}),
    ...(minor >= 4 ? { prompt_token_ids: [1, 2, 3] } : {}),
    logprobs: [-0.5, -0.25],
  };
  const message =
    minor >= 8
      ? [
          { type: 'text', text: 'listen' },
          { type: 'audio', source: { media_type: 'audio/mp3', path: 'a.mp3' } },
        ]
      : minor >= 6
        ? [
            { type: 'text', text: 'look' },
            { type: 'image', source: { media_type: 'image/png', path: 'a.png' } },
          ]
        : 'fix it';
  return {
    schema_version: version,
    ...(minor >= 7 ? { trajectory_id: 't-1' } : { session_id: 's-1' }),
    agent: { name: 'a', version: '1' },
    steps: [
      { step_id: 1, source: 'system', message: 'You are an agent.', ...(minor >= 2 ? { observation: { results: [{ content: 'environment reset' }] } } : {}) },
      { step_id: 2, source: 'user', message },
      {
        step_id: 3,
        source: 'agent',
        message: 'running',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { cmd: 'ls' } }],
        observation: { results: [{ source_call_id: 'c1', content: 'a.py' }] },
        metrics,
        ...(minor >= 5 ? { is_copied_context: false } : {}),
        ...(minor >= 7 ? { llm_call_count: 1 } : {}),
      },
    ],
    ...(minor >= 1 ? { extra: { task_id: 'task-1' } } : {}),
  };
}

test('every ATIF version from v1.0 to v1.8 is read in its own shape without a problem', () => {
  for (let minor = 0; minor <= 8; minor++) {
    const version = `ATIF-v1.${minor}`;
    const doc = atifOf(version);
    const e = foreign(openDocument(JSON.stringify(doc, null, 2), '/tmp/t.json'));
    assert.deepEqual(e.problems, [], version);
    assert.equal(e.format.version, version);
    assert.equal(e.steps.length, 3, version);
    const agent = e.steps[2];
    assert.equal(agent?.metrics.completionTokenIds, minor >= 3 ? 2 : null, version);
    assert.equal(agent?.metrics.logprobs, 2, version);
    if (minor >= 8) assert.deepEqual(e.steps[1]?.media, [{ kind: 'audio', mediaType: 'audio/mp3', path: 'a.mp3' }]);
    assert.equal(e.taskId, minor >= 1 ? 'task-1' : null);
  }
});

/** Step `i` of a document built by `atifOf`, to change in place. */
function stepOf(doc: Record<string, unknown>, i: number): Record<string, unknown> {
  const step = (doc['steps'] as Record<string, unknown>[])[i];
  assert.ok(step !== undefined);
  return step;
}

test('a field a version does not have yet is a problem naming the version that added it', () => {
  const cases: [string, (d: Record<string, unknown>) => void, RegExp][] = [
    ['ATIF-v1.0', (d) => (d['extra'] = {}), /^extra .*arrived in ATIF-v1\.1; this file says ATIF-v1\.0/],
    ['ATIF-v1.1', (d) => (stepOf(d, 0)['observation'] = { results: [] }), /steps\[0\]\.observation .*ATIF-v1\.2/],
    [
      'ATIF-v1.2',
      (d) => ((stepOf(d, 2)['metrics'] as Record<string, unknown>)['completion_token_ids'] = [1]),
      /steps\[2\]\.metrics\.completion_token_ids .*arrived in ATIF-v1\.3/,
    ],
    ['ATIF-v1.3', (d) => ((stepOf(d, 2)['metrics'] as Record<string, unknown>)['prompt_token_ids'] = [1]), /prompt_token_ids .*arrived in ATIF-v1\.4/],
    ['ATIF-v1.4', (d) => (stepOf(d, 2)['is_copied_context'] = true), /is_copied_context .*arrived in ATIF-v1\.5/],
    ['ATIF-v1.5', (d) => (stepOf(d, 1)['message'] = [{ type: 'text', text: 'x' }]), /steps\[1\]\.message .*content parts arrived in ATIF-v1\.6/],
    ['ATIF-v1.6', (d) => delete d['session_id'], /^session_id .*required before ATIF-v1\.7/],
    ['ATIF-v1.6', (d) => (stepOf(d, 2)['llm_call_count'] = 1), /llm_call_count .*arrived in ATIF-v1\.7/],
    [
      'ATIF-v1.7',
      (d) => (stepOf(d, 1)['message'] = [{ type: 'audio', source: { media_type: 'audio/wav', path: 'a.wav' } }]),
      /audio content arrived in ATIF-v1\.8/,
    ],
    ['ATIF-v1.7', (d) => (stepOf(d, 2)['llm_call_count'] = 0), /llm_call_count 0 says no model was called, so metrics must be absent/],
    ['ATIF-v1.8', (d) => (stepOf(d, 1)['tool_calls'] = []), /tool_calls is for agent steps only/],
    ['ATIF-v1.8', (d) => (stepOf(d, 2)['step_id'] = 7), /expected 3, got 7/],
    ['ATIF-v1.8', (d) => (stepOf(d, 2)['surprise'] = 1), /steps\[2\].*[Uu]nrecognized key/],
  ];
  for (const [version, change, expected] of cases) {
    const doc = atifOf(version);
    change(doc);
    const e = foreign(openDocument(JSON.stringify(doc, null, 2), '/tmp/t.json'));
    assert.ok(
      e.problems.some((p) => expected.test(p)),
      `${version}: ${expected} in ${JSON.stringify(e.problems)}`,
    );
    assert.ok(
      e.problems.every((p) => /\(line \d+, column \d+\)/.test(p)),
      'each problem has its line and column',
    );
    assert.equal(e.steps.length, 3, 'the steps are still shown');
  }
});

test('an ATIF file with an unknown version is read in the newest shape and says so', () => {
  const doc = { ...atifOf('ATIF-v1.8'), schema_version: 'ATIF-v2.0' };
  const e = foreign(openDocument(JSON.stringify(doc), '/tmp/t.json'));
  assert.match(e.format.version, /^ATIF-v2\.0 \(read as ATIF-v1\.8\)$/);
  assert.match(e.problems[0] ?? '', /^schema_version/);
});

test('a SWE-agent .traj: the system prompt and issue, then one agent step per action with its duration, state and no reward', () => {
  const e = openFile(sweAgent);
  assert.deepEqual(e.problems, []);
  assert.equal(e.format.name, 'swe-agent');
  assert.deepEqual(
    e.steps.map((s) => s.source),
    ['system', 'user', 'agent', 'agent', 'agent', 'agent', 'agent'],
  );
  assert.deepEqual(
    e.steps.slice(2).map((s) => s.toolCalls[0]?.name),
    ['find_file', 'open', 'edit', 'python3', 'submit'],
  );
  const first = e.steps[2];
  assert.equal(first?.toolCalls[0]?.arguments, 'missing_colon.py');
  assert.ok(Math.abs((first?.durationMs ?? 0) - 281.41) < 0.1);
  assert.equal(first?.state['working_dir'], '/SWE-agent__test-repo');
  assert.match(first?.results[0]?.content ?? '', /^Found 1 matches for "missing_colon\.py"/);
  assert.match(e.issue?.body ?? '', /SyntaxError: invalid syntax/);
  assert.match(e.format.submission ?? '', /diff --git a\/tests\/missing_colon\.py/);
  assert.deepEqual(e.format.facts, ['exit status: submitted', 'cost $0.0195', 'tokens: 7141 sent, 243 received', '5 model calls']);
  assert.match(e.format.lacks.join(' '), /No rewards: SWE-agent records none/);
  assert.ok(openedRows({ kind: 'foreign', episode: e }).every((r) => r.reward === null));
});

test('a SWE-agent demonstration (history only) and a replay_config written as a JSON string are read too', () => {
  const full = JSON.parse(readFileSync(sweAgent, 'utf8')) as Record<string, unknown>;
  const demo = foreign(openDocument(JSON.stringify({ history: full['history'] }), '/tmp/demo.traj'));
  assert.deepEqual(demo.problems, []);
  assert.match(demo.format.version, /demonstration/);
  assert.ok(
    demo.steps.some((s) => s.toolCalls[0]?.name === 'find_file' && s.results.length === 1),
    'a tool call is answered by its tool message',
  );
  const current = foreign(openDocument(JSON.stringify({ ...full, replay_config: JSON.stringify(full['replay_config']) }), '/tmp/current.traj'));
  assert.deepEqual(current.problems, []);
  const broken = foreign(openDocument(JSON.stringify({ ...full, trajectory: [{ action: 3 }] }), '/tmp/broken.traj'));
  assert.ok(
    broken.problems.some((p) => /^trajectory\[0\]\.action \(line 1, column \d+\)/.test(p)),
    JSON.stringify(broken.problems),
  );
  assert.equal(broken.steps.at(-1)?.problems.length !== 0, true);
});

test('mini-swe-agent: the oldest list of messages, its commands taken from the block mini-swe-agent runs', () => {
  const e = openFile(miniList);
  assert.deepEqual(e.problems, []);
  assert.equal(e.format.name, 'mini-swe-agent');
  assert.deepEqual(
    e.steps.map((s) => s.source),
    ['system', 'user', 'agent', 'agent'],
  );
  assert.deepEqual(
    e.steps.slice(2).map((s) => s.toolCalls.map((c) => c.arguments)),
    [["echo 'hello world'"], ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT']],
  );
  assert.match(e.steps[2]?.results[0]?.content ?? '', /<returncode>0<\/returncode>/);
  assert.match(e.format.lacks.join(' '), /oldest shape keeps only the messages/);
});

test('mini-swe-agent 1.1 (info, messages with extras, tool calls): time, cost, tokens, exit status and submission', () => {
  const doc = {
    info: {
      model_stats: { instance_cost: 0.5, api_calls: 2 },
      config: { model: { model_name: 'gpt-x' } },
      mini_version: '2.4.6',
      exit_status: 'Submitted',
      submission: 'diff --git a/x b/x',
    },
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Fix the bug.' },
      {
        role: 'assistant',
        content: 'THOUGHT: look.\n\n```mswea_bash_command\nls\n```',
        extra: { actions: [{ command: 'ls -la' }], cost: 0.25, timestamp: 1764000000.5, response: { usage: { prompt_tokens: 100, completion_tokens: 7 } } },
      },
      { role: 'user', content: '<returncode>0</returncode><output>a.py</output>', extra: { returncode: 0 } },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'bash', arguments: '{"command":"cat a.py"}' } }] },
      { role: 'tool', tool_call_id: 'call-1', content: [{ type: 'text', text: 'print(1)' }] },
      { role: 'user', content: '', extra: { exit_status: 'Submitted', submission: 'diff --git a/x b/x' } },
    ],
    trajectory_format: 'mini-swe-agent-1.1',
  };
  const e = foreign(openDocument(JSON.stringify(doc, null, 2), '/tmp/run.traj.json'));
  assert.deepEqual(e.problems, []);
  assert.equal(e.format.version, 'mini-swe-agent-1.1');
  assert.equal(e.agent, 'mini-swe-agent 2.4.6 gpt-x');
  assert.equal(e.taskId, 'run');
  const [, , first, second] = e.steps;
  assert.deepEqual(first?.toolCalls, [{ id: null, name: 'bash', arguments: 'ls -la' }], 'extra.actions wins over the text');
  assert.equal(first?.timestamp, new Date(1764000000500).toISOString());
  assert.deepEqual([first?.metrics.promptTokens, first?.metrics.completionTokens, first?.metrics.costUsd], [100, 7, 0.25]);
  assert.deepEqual(second?.toolCalls, [{ id: 'call-1', name: 'bash', arguments: { command: 'cat a.py' } }]);
  assert.deepEqual(
    second?.results.map((r) => [r.callId, r.content]),
    [
      ['call-1', 'print(1)'],
      [null, ''],
    ],
  );
  assert.deepEqual(e.format.facts, ['exit status: Submitted', 'cost $0.5000', '2 model calls']);
  assert.equal(e.format.submission, 'diff --git a/x b/x');
});

test('the format is told from the content, not the name, and a file in no known format is refused with the formats named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-formats-'));
  const misnamed = join(dir, 'looks-like.traj');
  writeFileSync(misnamed, readFileSync(atifValid));
  const docs = new EpisodeDocuments();
  const { opened } = await docs.load(misnamed);
  assert.equal(foreign(opened).format.name, 'atif');
  const ours = join(dir, 'episode.json');
  writeFileSync(ours, readFileSync(fixturePath('trajectories/sample-calc-add.jsonl')));
  assert.equal((await docs.load(ours)).opened.kind, 'ours', 'our JSON Lines under another name');
  const other = join(dir, 'package.json');
  writeFileSync(other, '{"name": "x", "version": "1.0.0"}');
  await assert.rejects(
    docs.load(other),
    (error: unknown) =>
      error instanceof TrajectoryFormatError && /package\.json is not a trajectory the viewer reads\. It reads a Graph Planner trajectory/.test(error.message),
  );
  // A file rewritten in place is read again, and its earlier steps are void.
  const first = (await docs.load(misnamed)).opened;
  writeFileSync(misnamed, readFileSync(sweAgent));
  const second = await docs.load(misnamed);
  assert.notEqual(second.opened, first);
  assert.equal(second.rewritten, true);
  assert.equal(foreign(second.opened).format.name, 'swe-agent');
  assert.equal((await docs.load(misnamed)).rewritten, false, 'unchanged: kept, not read again');
});

test('broken JSON is located at its line and column and what can be recovered is shown', () => {
  const text = readFileSync(atifValid, 'utf8').replace('"message": "I\'ll inspect it now.",', '"message": "I\'ll inspect it now."');
  const e = foreign(openDocument(text, '/tmp/broken.json'));
  assert.match(e.problems[0] ?? '', /^not valid JSON: line 29, column 7: comma expected/);
  assert.equal(e.steps.length, 3, 'jsonc-parser recovers the rest of the document');
  assert.throws(() => openDocument('{"unclosed": [', '/tmp/x.json'), TrajectoryFormatError);
  assert.throws(() => openDocument('42', '/tmp/x.json'), /not a trajectory the viewer reads/);
});

test('hostile values: wrong types everywhere are problems, never a crash', () => {
  const hostile = {
    schema_version: 'ATIF-v1.7',
    agent: 'me',
    steps: [
      null,
      7,
      {
        step_id: 'x',
        source: 'robot',
        message: { evil: true },
        tool_calls: 'no',
        observation: { results: [null, { content: 5 }] },
        metrics: { logprobs: 'no' },
      },
    ],
  };
  const e = foreign(openDocument(JSON.stringify(hostile), '/tmp/h.json'));
  assert.equal(e.steps.length, 3);
  assert.ok(e.problems.length >= 5, JSON.stringify(e.problems));
  assert.ok(e.problems.some((p) => p.startsWith('agent ')));
  assert.equal(e.steps[2]?.source, 'agent');
  assert.deepEqual(
    e.steps[2]?.results.map((r) => r.content),
    ['', ''],
  );
  assert.deepEqual(searchOpened({ kind: 'foreign', episode: e }, 'x'), []);
  const header = openedHeader('/tmp/h.json', { kind: 'foreign', episode: e });
  assert.equal(header.outcome, null, 'no outcome is invented');
  assert.equal(header.problems.length, e.problems.length);
});

test('a document nested thousands deep is refused or cut short with why, never a crash', () => {
  assert.throws(
    () => openDocument('['.repeat(200_000), '/tmp/deep.json'),
    (e: unknown) => e instanceof TrajectoryFormatError && /nested too deeply to be read/.test(e.message),
  );
  const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  const doc = `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"x","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{"a":${deep}}}],"extra":{"d":${deep}}}]}`;
  const e = foreign(openDocument(doc, '/tmp/deep.json'));
  // What the viewer is sent must serialise: the deep values are replaced by a note.
  assert.doesNotThrow(() => JSON.stringify(e.steps));
  assert.match(JSON.stringify(e.steps[0]?.extra), /nested more than 64 levels deep/);
  let nested = '{"schema_version":"ATIF-v1.7","trajectory_id":"x","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"x"}]}';
  for (let i = 0; i < 5000; i++)
    nested = `{"schema_version":"ATIF-v1.7","trajectory_id":"x","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"x"}],"subagent_trajectories":[${nested}]}`;
  assert.throws(
    () => openDocument(nested, '/tmp/deep.json'),
    (err: unknown) => err instanceof TrajectoryFormatError && /nests too deeply to be read as atif/.test(err.message),
  );
});

test("gp trajectory show prints another tool's trajectory with what it lacks, and sends no control character to the terminal", async () => {
  const { io: a, out, err } = io();
  assert.equal(await trajectoryShow([atifInvalid], a, process.cwd(), false), 0);
  const text = out.join('\n');
  assert.match(text, /^trajectory-atif-cleanup {2}ATIF-v1\.7, read-only$/m);
  assert.match(text, /^No rewards: ATIF has no reward field/m);
  assert.match(text, /^step 3 {2}agent {2}check \["fast"\] {2}no reward recorded/m);
  assert.match(text, /^ {2}breaks the format: steps\[2\]\.tool_calls\[0\]\.arguments \(line 30, column 11\)/m);
  assert.match(text, /^4 steps · 1 embedded subagent trajectory \(not shown here\) · no reward or verdict recorded$/m);
  assert.match(err.join('\n'), /letta-cleanup.*steps\[2\]\.tool_calls\[0\]\.arguments/);
  const dir = mkdtempSync(join(tmpdir(), 'gp-formats-'));
  const evil = join(dir, 'evil.traj.json');
  writeFileSync(
    evil,
    JSON.stringify([
      { role: 'user', content: 'task \u001b]52;c;ZXZpbA==\u0007 \u001b[2J' },
      { role: 'assistant', content: '```bash\nrm -rf / \u202e\n```' },
    ]),
  );
  const { io: b, out: shown } = io();
  assert.equal(await trajectoryShow([evil, '--step', '2'], b, process.cwd(), true), 0);
  // Colour is on: our own colour codes are the only escapes, and every one of them is `ESC[<n>m`.
  const printed = shown
    .join('\n')
    .replaceAll(/\[(\d+)m/g, '')
    .replaceAll('\u001b', '');
  assert.equal(shown.join('\n').split('\u001b').length - 1, (shown.join('\n').match(/\[\d+m/g) ?? []).length, 'no escape of the file reaches the terminal');
  assert.ok(!printed.includes('\u0007') && !printed.includes('\u202e'), 'no bell or bidirectional override either');
  assert.match(printed, /\\x1b\]52/);
  const { io: c, err: refused } = io();
  const json = join(dir, 'tsconfig.json');
  writeFileSync(json, '{"compilerOptions": {}}');
  assert.equal(await trajectoryShow([json], c, process.cwd(), false), 1);
  assert.match(refused.join('\n'), /is not a trajectory the viewer reads/);
});

test("the ATIF schema accepts both real fixtures' shapes as Harbor does, rejecting only the list of arguments", () => {
  assert.equal(atifTrajectorySchema.safeParse(JSON.parse(readFileSync(atifValid, 'utf8'))).success, true);
  const check = atifTrajectorySchema.safeParse(JSON.parse(readFileSync(atifInvalid, 'utf8')));
  assert.deepEqual(
    check.error?.issues.map((i) => i.path.join('.')),
    ['steps.2.tool_calls.0.arguments'],
  );
});

test("gp trajectory export takes our episodes (our JSONL, or our own ATIF export again) and refuses another tool's, saying what it is", async () => {
  const { io: a, err } = io();
  assert.equal(await trajectoryExport([sweAgent, '--format', 'atif'], a, process.cwd(), '0.1.0'), 1);
  assert.match(
    err.join('\n'),
    /is a trajectory in another tool's format \(SWE-agent \.traj\); this command works on Graph Planner episodes \(gp trajectory show reads it\)/,
  );
  const dir = mkdtempSync(join(tmpdir(), 'gp-formats-'));
  const once = join(dir, 'once.atif.json');
  assert.equal(
    await trajectoryExport([fixturePath('trajectories/sample-calc-add.jsonl'), '--format', 'atif', '--out', once], io().io, process.cwd(), '0.1.0'),
    0,
  );
  const { io: b, out } = io();
  assert.equal(await trajectoryExport([once, '--format', 'atif'], b, process.cwd(), '0.1.0'), 0);
  assert.deepEqual(JSON.parse(out.join('\n')), JSON.parse(readFileSync(once, 'utf8')), 'exporting the export gives the same document');
});
