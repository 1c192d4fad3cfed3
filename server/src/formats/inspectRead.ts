/**
 * An Inspect AI evaluation log opened for the viewer, read-only (docs/trajectory-formats.md#inspect-ai-logs):
 * a `.json` log (one JSON document) or a `.eval` log (a zip of `header.json`, `summaries.json`
 * and `samples/<id>_epoch_<n>.json`, each member deflated or, as Inspect writes them now,
 * compressed with zstd). A log holds many samples and the viewer shows one at a time: the one
 * asked for by its key (`<id>_epoch_<n>`, as Inspect names its members), else the first; the
 * format's facts list the others so the viewer can offer them. A sample's messages become steps as
 * any chat does (`chatSteps.ts`): each assistant message with its tool calls, the tool's answers
 * as its observation. Inspect scores a sample as a whole, so there are no per-step rewards; its
 * scores, error and token usage are the episode's facts. A sample we exported ourselves carries
 * our records in `metadata.graph_planner` and is read back as our episode.
 */
import { Unzip, UnzipInflate, type UnzipDecoder, type UnzipFile } from 'fflate';
import { Decompress as ZstdStream } from 'fzstd';
import type { EpisodeFormat } from '../protocol/episodeView.js';
import { inspectEvalMembers, inspectLogSchema, inspectOwnKey, inspectSampleKey, inspectSampleMembers, inspectSampleSchema } from '../protocol/inspectLog.js';
import { trajectoryEndSchema, trajectoryStartSchema, trajectoryStepSchema } from '../protocol/runs.js';
import { readJsonDocument, type JsonDocument } from '../util/jsonDocument.js';
import { buildEpisodeModel } from '../episodes/index.js';
import { chatSteps } from './chatSteps.js';
import type { ForeignEpisode } from './foreignEpisode.js';
import { arr, contentOf, issueOf, located, num, problemsByStep, rec, str } from './foreignText.js';
import type { OpenedEpisode } from './openedEpisode.js';
import { TrajectoryFormatError } from './trajectoryFormatError.js';

/** Zip's method number for zstd, which Inspect's `.eval` writer uses. */
const zstdMethod = 93;

/**
 * The most a member may hold once decompressed. A log's members are JSON a viewer can show; a
 * member that inflates past this (a zip bomb, or a log no viewer could hold) is refused rather
 * than allowed to take the server's memory.
 */
export const inspectMemberLimit = 512 * 1024 * 1024;

const mib = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MiB`;

/** fflate's streaming unzip decodes deflate itself; this teaches it zstd, the output counted as it comes. */
class UnzipZstd implements UnzipDecoder {
  static compression = zstdMethod;
  /** Set by `zipMembers` for the read under way (fflate makes its decoders itself). */
  static limit = inspectMemberLimit;
  ondata: UnzipDecoder['ondata'] = () => undefined;
  private produced = 0;
  private failed = false;
  private readonly zstd = new ZstdStream((chunk, final) => {
    if (this.failed) return;
    this.produced += chunk.length;
    if (this.produced > UnzipZstd.limit) return this.fail(new Error(`it decompresses to more than ${mib(UnzipZstd.limit)}`));
    this.ondata(null, new Uint8Array(chunk), final === true);
  });
  push(data: Uint8Array, final: boolean): void {
    if (this.failed) return;
    try {
      this.zstd.push(data, final);
    } catch (error) {
      this.fail(new Error(`zstd: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
  private fail(error: Error): void {
    this.failed = true;
    this.ondata(Object.assign(error, { code: 0 }), new Uint8Array(0), true);
  }
}

/** The members of a zip whose names `wanted` accepts, as text; the others are skipped unread. */
function zipMembers(bytes: Uint8Array, wanted: (name: string) => boolean, limit: number): Map<string, string> {
  UnzipZstd.limit = limit;
  const out = new Map<string, string>();
  const failures: string[] = [];
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipZstd);
  unzip.onfile = (file: UnzipFile) => {
    if (!wanted(file.name)) return;
    const decoder = new TextDecoder('utf-8');
    const parts: string[] = [];
    let size = 0;
    let done = false;
    file.ondata = (err, data, final) => {
      if (done) return;
      if (err !== null) {
        done = true;
        failures.push(`${file.name}: ${err.message}`);
        return;
      }
      size += data.length;
      if (size > limit) {
        done = true;
        failures.push(`${file.name}: it decompresses to more than ${mib(limit)}`);
        file.terminate();
        return;
      }
      parts.push(decoder.decode(data, { stream: !final }));
      if (final) {
        done = true;
        out.set(file.name, parts.join(''));
      }
    };
    try {
      file.start();
    } catch (error) {
      failures.push(`${file.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  try {
    unzip.push(bytes, true);
  } catch (error) {
    throw new TrajectoryFormatError(`not a readable zip: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (failures.length > 0) throw new TrajectoryFormatError(`members that could not be read: ${failures.join('; ')}`);
  return out;
}

/** How many samples the viewer's picker lists. */
const maxChoices = 5000;

interface SampleChoice {
  readonly key: string;
  readonly label: string;
  /** The names its member may have in a `.eval` zip (Inspect's, ours). */
  readonly members: readonly string[];
}

function choiceOf(summary: Record<string, unknown>): SampleChoice | undefined {
  const id = summary['id'];
  const epoch = num(summary['epoch']);
  if ((typeof id !== 'string' && typeof id !== 'number') || epoch === null) return undefined;
  const scores = Object.values(rec(summary['scores']) ?? {})
    .map((s) => rec(s)?.['value'])
    .filter((v) => v !== undefined)
    .map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v)));
  const error = str(summary['error']);
  const outcome = error !== null ? 'error' : scores.length > 0 ? scores.join(', ') : 'not scored';
  const key = inspectSampleKey(id, epoch);
  // The viewer's messages bound these (protocol/episodeView.ts); an id no person could read is left out of the choices.
  if (key.length > 1000) return undefined;
  const names = inspectSampleMembers(id, epoch);
  return { key, label: `${String(id).slice(0, 160)} · epoch ${epoch} · ${outcome.slice(0, 60)}`, members: [names.inspect, names.ours] };
}

/** A `.eval` log: the header and summaries, then the one sample asked for (else the first). */
export function readInspectEval(bytes: Uint8Array, name: string, sample?: string, limit = inspectMemberLimit): OpenedEpisode {
  let members: Map<string, string>;
  try {
    members = zipMembers(bytes, (n) => n === inspectEvalMembers.header || n === inspectEvalMembers.summaries, limit);
  } catch (error) {
    throw new TrajectoryFormatError(`${name} is not a readable Inspect .eval log (${error instanceof Error ? error.message : String(error)}).`);
  }
  const headerText = members.get(inspectEvalMembers.header);
  // A log still being written has no header yet; Inspect keeps its start in the journal.
  const header = readJsonDocument(headerText ?? '{}');
  const summaries = arr(readJsonDocument(members.get(inspectEvalMembers.summaries) ?? '[]').value).flatMap((s) => {
    const r = rec(s);
    return r === null ? [] : [r];
  });
  const choices = summaries.flatMap((s) => choiceOf(s) ?? []);
  const chosen = choices.find((c) => c.key === sample) ?? choices[0];
  if (chosen === undefined) throw new TrajectoryFormatError(`${name} is an Inspect log without samples (its summaries.json lists none).`);
  const member = chosen.members[0] ?? '';
  let text: string | undefined;
  try {
    const found = zipMembers(bytes, (n) => chosen.members.includes(n), limit);
    text = chosen.members.map((m) => found.get(m)).find((t) => t !== undefined);
  } catch (error) {
    throw new TrajectoryFormatError(`${name}: sample ${chosen.label} could not be read (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (text === undefined) throw new TrajectoryFormatError(`${name} lists sample ${chosen.label} but has no ${member}.`);
  const problems = headerText === undefined ? ['header.json is missing: the log was still being written, or its writer died'] : [];
  return readSample(readJsonDocument(text), [], header.value, choices, chosen, name, problems);
}

/** A `.json` log: every sample is in the document; the one asked for (else the first) is shown. */
export function readInspectJson(doc: JsonDocument, name: string, sample?: string): OpenedEpisode {
  const root = rec(doc.value) ?? {};
  const samples = arr(root['samples']);
  const choices = samples.flatMap((s) => {
    const r = rec(s);
    return r === null ? [] : [choiceOf(r) ?? { key: '', label: '', members: [] }];
  });
  const index = Math.max(
    0,
    choices.findIndex((c) => c.key === sample),
  );
  const chosen = choices[index];
  if (chosen === undefined) throw new TrajectoryFormatError(`${name} is an Inspect log without samples.`);
  const syntax = doc.syntaxErrors.map((e) => `not valid JSON: ${e}`);
  return readSample(
    { value: samples[index], syntaxErrors: [], locate: (p) => doc.locate(['samples', index, ...p]) },
    ['samples', index],
    root,
    choices,
    chosen,
    name,
    syntax,
  );
}

function readSample(
  doc: JsonDocument,
  at: readonly (string | number)[],
  log: unknown,
  choices: readonly SampleChoice[],
  chosen: SampleChoice,
  name: string,
  earlier: readonly string[],
): OpenedEpisode {
  const root = rec(log) ?? {};
  const spec = rec(root['eval']) ?? {};
  const s = rec(doc.value) ?? {};
  const logCheck = inspectLogSchema.omit({ samples: true }).safeParse(root);
  const sampleCheck = inspectSampleSchema.safeParse(doc.value);
  const where = (path: readonly PropertyKey[]): (string | number)[] => path.filter((p): p is string | number => typeof p !== 'symbol');
  const placed = (sampleCheck.success ? [] : sampleCheck.error.issues).map((i) => ({ path: where(i.path), text: located(doc, where(i.path), i.message) }));
  const problems = [
    ...earlier,
    ...(logCheck.success ? [] : logCheck.error.issues.map((i) => `the log's ${where(i.path).join('.') || 'root'}: ${i.message}`)),
    ...placed.map((p) => (at.length === 0 ? p.text : `${at.join('.')}.${p.text}`)),
  ];
  // The picker lists the first `maxChoices`; any other sample is still shown when asked for by its key.
  // A sample without an id or epoch cannot be asked for again, so it is not offered.
  const samples = choices
    .filter((c) => c.key !== '')
    .slice(0, maxChoices)
    .map((c) => ({ key: c.key, label: c.label }));
  const format: EpisodeFormat = {
    name: 'inspect',
    version: `Inspect AI log v${num(root['version']) ?? '?'}${name.endsWith('.eval') ? ' (.eval)' : ' (.json)'}`,
    lacks: [
      'No per-step rewards: Inspect scores a sample as a whole (its scores are below).',
      'No step durations: Inspect keeps times per event, not per message.',
    ],
    facts: factsOf(s, spec, samples.length),
    submission: null,
    samples,
    sample: chosen.key,
  };
  const own = ourEpisodeOf(s);
  if (own !== undefined)
    return {
      kind: 'ours',
      model: own,
      format: { ...format, lacks: [], facts: ['written by gp runs export: every step of the Graph Planner episode is kept whole', ...format.facts] },
    };
  const messages = arr(s['messages']).map(openAiShape);
  const steps = chatSteps(messages, { listPath: 'messages', problems: problemsByStep(placed, ['messages']) });
  const firstUser = steps.find((st) => st.source === 'user');
  const episode: ForeignEpisode = {
    format,
    taskId: typeof s['id'] === 'string' || typeof s['id'] === 'number' ? String(s['id']) : null,
    // The title is the sample id and the facts give its epoch; the key would only repeat them.
    episodeId: null,
    agent: [str(spec['model']), str(rec(arr(rec(root['plan'])?.['steps'])[0])?.['solver'])].filter((x) => x !== null).join(' · ') || null,
    startedAt: str(s['started_at']),
    issue: firstUser === undefined ? issueFromInput(s['input']) : issueOf(firstUser.message),
    steps,
    problems,
  };
  return { kind: 'foreign', episode };
}

/** What the sample records of its outcome: each score with its answer and explanation, its error, tokens and time. */
function factsOf(s: Record<string, unknown>, spec: Record<string, unknown>, sampleCount: number): string[] {
  const facts: string[] = [];
  const task = str(spec['task']);
  if (task !== null) facts.push(`task ${task}${sampleCount > 1 ? ` · ${sampleCount} samples in the log` : ''}`);
  const epoch = num(s['epoch']);
  if (epoch !== null) facts.push(`epoch ${epoch}`);
  for (const [scorer, raw] of Object.entries(rec(s['scores']) ?? {})) {
    const score = rec(raw) ?? {};
    const value = score['value'];
    const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
    const explanation = str(score['explanation']);
    facts.push(`score ${scorer}: ${shown}${explanation === null || explanation === '' ? '' : ` (${explanation.split('\n', 1)[0]?.slice(0, 160) ?? ''})`}`);
  }
  if (Object.keys(rec(s['scores']) ?? {}).length === 0) facts.push('not scored');
  const error = rec(s['error']);
  if (error !== null) facts.push(`error: ${str(error['message'])?.split('\n', 1)[0]?.slice(0, 200) ?? '?'}`);
  for (const [model, raw] of Object.entries(rec(s['model_usage']) ?? {})) {
    const u = rec(raw) ?? {};
    facts.push(`${model}: ${num(u['input_tokens']) ?? '?'} input and ${num(u['output_tokens']) ?? '?'} output tokens`);
  }
  const seconds = num(s['total_time']);
  if (seconds !== null) facts.push(`${seconds.toFixed(1)} s`);
  const target = s['target'];
  const targetText = typeof target === 'string' ? target : Array.isArray(target) ? target.map(String).join(' | ') : '';
  if (targetText !== '') facts.push(`target: ${targetText.slice(0, 160)}`);
  return facts;
}

/** An Inspect message as the OpenAI-style message `chatSteps` reads: tool calls under `function`, reasoning parts as its thought. */
function openAiShape(raw: unknown): Record<string, unknown> {
  const m = rec(raw) ?? {};
  const parts = arr(m['content']);
  const reasoning = parts.flatMap((p) => {
    const part = rec(p);
    return part?.['type'] === 'reasoning' && typeof part['reasoning'] === 'string' ? [part['reasoning']] : [];
  });
  const calls = arr(m['tool_calls']).map((c) => {
    const call = rec(c) ?? {};
    return { id: call['id'], function: { name: call['function'], arguments: call['arguments'] } };
  });
  return {
    role: m['role'],
    content: typeof m['content'] === 'string' ? m['content'] : parts.filter((p) => rec(p)?.['type'] !== 'reasoning'),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...(reasoning.length === 0 ? {} : { reasoning_content: reasoning.join('\n') }),
    ...(typeof m['tool_call_id'] === 'string' ? { tool_call_id: m['tool_call_id'] } : {}),
  };
}

function issueFromInput(input: unknown): { title: string; body: string } | null {
  if (typeof input === 'string') return issueOf(input);
  const first = arr(input)
    .map(rec)
    .find((m) => m?.['role'] === 'user');
  return first === undefined || first === null ? null : issueOf(contentOf(first['content']).text);
}

/** Our episode again from a sample we exported, when every record under our key parses; otherwise undefined. */
function ourEpisodeOf(s: Record<string, unknown>): ReturnType<typeof buildEpisodeModel> | undefined {
  const own = rec(rec(s['metadata'])?.[inspectOwnKey]);
  if (own === null) return undefined;
  const start = own['start'] === undefined ? undefined : trajectoryStartSchema.safeParse(own['start']);
  const end = own['end'] === undefined ? undefined : trajectoryEndSchema.safeParse(own['end']);
  const steps = arr(own['steps']).map((r) => trajectoryStepSchema.safeParse(r));
  if (start?.success === false || end?.success === false || steps.some((r) => !r.success)) return undefined;
  return buildEpisodeModel({
    start: start?.data,
    steps: steps.flatMap((r) => (r.success ? [r.data] : [])),
    end: end?.data,
    problems: [],
    torn: false,
  });
}
