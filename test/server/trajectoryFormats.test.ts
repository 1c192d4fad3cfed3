/**
 * The trajectory viewer's requests over a real LSP connection on files in the field's formats:
 * our episode exported to ATIF (`gp trajectory export`) and opened again answers every request the
 * viewer makes (the header, the rows, each step's record, search) exactly as the original does,
 * token ids and log-probabilities of a training episode included; another tool's ATIF and SWE-agent
 * files answer with foreign steps, their format and what it lacks; a file in no known format is
 * refused with why.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { trajectoryExport } from '../../server/src/cli/trajectoryCommands.js';
import { atifTrajectorySchema } from '../../server/src/protocol/atif.js';
import {
  episodeCompareRequest,
  episodeOpenRequest,
  episodeSearchRequest,
  episodeStepsRequest,
  type EpisodeCompareResult,
  type EpisodeHeader,
  type EpisodeOpenResult,
  type EpisodeSearchResult,
  type EpisodeStepsResult,
} from '../../server/src/protocol/episodeView.js';
import { fixturePath } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

let dir: string;
let h: Harness;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gp-formats-lsp-'));
  h = await startHarness({}, dir);
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything the viewer asks the server for about one file: the episode, every step's record, a search. */
async function viewerSees(
  path: string,
  query: string,
): Promise<{ opened: Extract<EpisodeOpenResult, { ok: true }>; steps: EpisodeStepsResult; search: EpisodeSearchResult }> {
  const opened = await h.client.sendRequest<EpisodeOpenResult>(episodeOpenRequest, { path, knownSteps: 0 });
  assert.equal(opened.ok, true, JSON.stringify(opened));
  const ok = opened as Extract<EpisodeOpenResult, { ok: true }>;
  const steps = await h.client.sendRequest<EpisodeStepsResult>(episodeStepsRequest, { path, steps: ok.rows.map((r) => r.step) });
  const search = await h.client.sendRequest<EpisodeSearchResult>(episodeSearchRequest, { path, query, caseSensitive: false });
  return { opened: ok, steps, search };
}

/** The header without what names the file itself. */
function comparable(header: EpisodeHeader): Omit<EpisodeHeader, 'file' | 'format'> {
  const { file: _file, format: _format, ...rest } = header;
  return rest;
}

test('ours → ATIF → viewer loses nothing the viewer shows, token ids and log-probabilities included', async () => {
  // A training episode: the model's replies with their calls and the policy's sampled tokens.
  const lines = readFileSync(fixturePath('trajectories/sample-calc-add.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const trained = lines.map((line) =>
    line['type'] !== 'step'
      ? line
      : {
          ...line,
          response: `<think>step ${String(line['step'])}</think>{"type": "explore"}`,
          model: { prompt_tokens: 120, completion_tokens: 3, generation_ms: 40, attempts: 1, finish_reason: 'stop' },
          // As the agent loop sends them: the first prompt whole, each later one as a change to the turn before.
          tokens:
            line['step'] === 1
              ? { prompt_token_ids: [1, 2, 3], completion_token_ids: [7, 8, 9], logprobs: [-0.1, -0.2, -0.3] }
              : { prompt_delta: { kept: 5, token_ids: [40 + Number(line['step'])] }, completion_token_ids: [7, 8, 9], logprobs: [-0.1, -0.2, -0.3] },
        },
  );
  const original = join(dir, 'trained.jsonl');
  writeFileSync(original, `${trained.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const exported = join(dir, 'trained.atif.json');
  const quiet = { out: () => undefined, err: () => undefined };
  assert.equal(await trajectoryExport([original, '--format', 'atif', '--out', exported], quiet, dir, '0.1.0'), 0);

  const atif = atifTrajectorySchema.parse(JSON.parse(readFileSync(exported, 'utf8')));
  assert.equal(atif.schema_version, 'ATIF-v1.7');
  const agentSteps = atif.steps.filter((s) => s.source === 'agent');
  assert.ok(agentSteps.every((s) => s.llm_call_count === 1 && s.reasoning_content !== undefined));
  assert.deepEqual(agentSteps[0]?.metrics, {
    prompt_tokens: 120,
    completion_tokens: 3,
    prompt_token_ids: [1, 2, 3],
    completion_token_ids: [7, 8, 9],
    logprobs: [-0.1, -0.2, -0.3],
  });
  // ATIF's prompt is whole: the second turn's is the first prompt and reply cut to 5 tokens, then its new token.
  assert.deepEqual(agentSteps[1]?.metrics?.prompt_token_ids, [1, 2, 3, 7, 8, 42]);
  assert.deepEqual(agentSteps[2]?.metrics?.prompt_token_ids, [1, 2, 3, 7, 8, 43]);

  const a = await viewerSees(original, 'calc');
  const b = await viewerSees(exported, 'calc');
  assert.deepEqual(comparable(b.opened.header), comparable(a.opened.header));
  assert.deepEqual(b.opened.rows, a.opened.rows);
  assert.deepEqual(b.steps, a.steps, 'every step record, tokens included, comes back whole');
  assert.ok(a.search.matches.length > 0);
  assert.deepEqual(b.search, a.search);
  assert.equal(b.opened.header.format?.name, 'atif');
  assert.deepEqual(b.opened.header.format?.lacks, [], 'our own export lacks nothing');
  assert.equal(a.opened.header.format, undefined);
  // The export compares with its original step for step; another tool's trajectory is refused with why.
  const same = await h.client.sendRequest<EpisodeCompareResult>(episodeCompareRequest, { left: original, right: exported });
  assert.equal(same.ok, true);
  assert.equal(same.ok && same.sameSteps, a.opened.rows.length);
  assert.equal(same.ok && same.samePatch, true);
  const refused = await h.client.sendRequest<EpisodeCompareResult>(episodeCompareRequest, {
    left: original,
    right: fixturePath('formats/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'),
  });
  assert.match(refused.ok ? '' : refused.message, /comparing reads Graph Planner episodes, and one is a SWE-agent \.traj trajectory/);
});

test("another tool's ATIF and SWE-agent files answer with foreign steps, their format and what it lacks", async () => {
  const atif = await viewerSees(fixturePath('formats/atif/letta-tool-calls.v1.7.json'), 'README');
  assert.equal(atif.opened.header.format?.name, 'atif');
  assert.equal(atif.opened.header.outcome, null);
  assert.deepEqual(
    atif.opened.rows.map((r) => [r.kind, r.reward]),
    [
      ['user', null],
      ['agent', null],
      ['agent', null],
    ],
  );
  assert.ok(atif.steps.steps.every((s) => s.type === 'foreign'));
  assert.deepEqual(
    atif.search.matches.map((m) => [m.step, m.field]),
    [[2, 'observation']],
  );

  const swe = await viewerSees(fixturePath('formats/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'), 'missing_colon');
  assert.equal(swe.opened.header.format?.name, 'swe-agent');
  assert.equal(swe.opened.totalSteps, 7);
  assert.match(swe.opened.header.format?.submission ?? '', /^\s*diff --git/);
  assert.ok(swe.search.matches.some((m) => m.field === 'action'));
  assert.ok(swe.search.matches.some((m) => m.field === 'observation'));
});

test('a JSON file that is no trajectory is refused with the formats the viewer reads', async () => {
  const other = join(dir, 'settings.json');
  writeFileSync(other, '{"editor.fontSize": 14}');
  const result = await h.client.sendRequest<EpisodeOpenResult>(episodeOpenRequest, { path: other, knownSteps: 0 });
  assert.equal(result.ok, false);
  assert.match((result as { message: string }).message, /settings\.json is not a trajectory the viewer reads\. It reads .*ATIF.*SWE-agent.*mini-swe-agent/);
});
