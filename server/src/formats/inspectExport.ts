/**
 * A run's episodes as an Inspect AI evaluation log (`protocol/inspectLog.ts`,
 * docs/trajectory-formats.md#inspect-ai-logs). Each episode is one sample: a dataset sample is a
 * task, so the task is the sample's `id` and its attempts are epochs 1, 2, … in the order the run
 * folder lists them. The messages are the conversation as the agent had it: the first observation
 * (the issue) from the user, then per step the agent's reply with its action as one tool call and
 * the observation as the tool's answer (a step whose reply did not parse has no call, and the
 * environment's answer comes back as a user message). The score, under the scorer
 * `graph_planner/resolved`, is `C` or `I` (Inspect's letters for correct and incorrect, which its
 * accuracy metric reads), with the patch as its answer; an episode that reached no outcome
 * (protocol/noOutcome.ts) has no score and says why in the sample's `error`, as Inspect records a
 * sample its infrastructure failed. What Inspect has no field for, our start, step and end records
 * whole, rides in each sample's `metadata.graph_planner`.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';
import {
  inspectEvalMembers,
  inspectLogSchema,
  inspectOwnKey,
  inspectSampleMembers,
  inspectScorerName,
  type InspectLog,
  type InspectMessage,
  type InspectSample,
  type InspectSampleSummary,
} from '../protocol/inspectLog.js';
import { noOutcomeReason } from '../protocol/noOutcome.js';
import type { EpisodeModel, StepView } from '../episodes/index.js';

export interface InspectExportOptions {
  /** The run's name: the log's task. */
  readonly runName: string;
  /** The producing tool's version, under `eval.packages`. */
  readonly version: string;
  /** When the log was written (ISO 8601); now by default. */
  readonly created?: string;
}

export interface InspectExport {
  /** The log without its samples: `header.json` of a `.eval` file. */
  readonly header: InspectLog;
  readonly samples: readonly InspectSample[];
  readonly summaries: readonly InspectSampleSummary[];
}

/** The model an episode's agent stands for, as Inspect names models (`provider/model`). */
function modelName(model: EpisodeModel): string {
  return `graph-planner/${model.start?.agent ?? 'agent'}`;
}

function stepMessages(view: StepView): InspectMessage[] {
  const r = view.record;
  const callId = `step-${r.step}`;
  const { type, thought, ...args } = r.action ?? { type: undefined, thought: undefined };
  const reply: InspectMessage = {
    role: 'assistant',
    content: r.response ?? thought ?? view.summary,
    source: 'generate',
    ...(type === undefined ? {} : { tool_calls: [{ id: callId, function: type, arguments: args as Record<string, unknown>, type: 'function' }] }),
  };
  if (type === undefined) return [reply, { role: 'user', content: r.observation.text }];
  return [
    reply,
    {
      role: 'tool',
      content: r.observation.text,
      tool_call_id: callId,
      function: type,
      // Inspect's error kinds are a closed list; a step that ran out of time says so, any other error is `unknown`.
      ...(view.error === null ? {} : { error: { type: view.timedOut ? 'timeout' : 'unknown', message: view.error } }),
    },
  ];
}

function tokenUsage(model: EpisodeModel): InspectSample['model_usage'] {
  let input = 0;
  let output = 0;
  for (const s of model.steps) {
    input += s.record.model?.prompt_tokens ?? 0;
    output += s.record.model?.completion_tokens ?? 0;
  }
  return input + output === 0 ? {} : { [modelName(model)]: { input_tokens: input, output_tokens: output, total_tokens: input + output } };
}

/** One episode as a sample of `epoch`. */
function inspectSample(model: EpisodeModel, epoch: number): InspectSample {
  const start = model.start;
  const end = model.end;
  const issue = start?.observation.text ?? '';
  const messages: InspectMessage[] = [{ role: 'user', content: issue, source: 'input' }, ...model.steps.flatMap(stepMessages)];
  const last = [...messages].reverse().find((m) => m.role === 'assistant');
  const why = end === undefined ? 'no end line: the episode was still running or its process died' : noOutcomeReason(end);
  const scored = end !== undefined && why === null;
  const seconds = end === undefined ? null : end.duration_ms / 1000;
  const sample: InspectSample = {
    id: start?.task_id ?? end?.task_id ?? 'unknown-task',
    epoch,
    input: issue,
    // Our tasks are graded by their tests, not against a target text.
    target: '',
    messages,
    output: {
      model: modelName(model),
      choices: last === undefined ? [] : [{ message: last, stop_reason: 'stop' }],
      completion: last === undefined || typeof last.content !== 'string' ? '' : last.content,
    },
    scores: scored
      ? {
          [inspectScorerName]: {
            value: end.resolved ? 'C' : 'I',
            answer: end.patch,
            explanation: `${end.resolved ? 'resolved' : 'not resolved'}: ${end.termination_reason}, reward ${end.total_reward} over ${end.steps} steps`,
            metadata: { resolved: end.resolved, total_reward: end.total_reward, termination_reason: end.termination_reason },
          },
        }
      : {},
    metadata: {
      [inspectOwnKey]: {
        episode_id: start?.episode_id ?? end?.episode_id ?? null,
        ...(start === undefined ? {} : { start }),
        steps: model.steps.map((s) => s.record),
        ...(end === undefined ? {} : { end }),
        ...(why === null ? {} : { no_outcome: why }),
      },
    },
    model_usage: tokenUsage(model),
    ...(start === undefined ? {} : { started_at: start.started_at }),
    ...(start === undefined || end === undefined ? {} : { completed_at: new Date(Date.parse(start.started_at) + end.duration_ms).toISOString() }),
    ...(seconds === null ? {} : { total_time: seconds, working_time: seconds }),
    ...(why === null ? {} : { error: { message: `no outcome: ${why}`, traceback: '', traceback_ansi: '' } }),
  };
  return sample;
}

function summaryOf(sample: InspectSample): InspectSampleSummary {
  return {
    id: sample.id,
    epoch: sample.epoch,
    input: sample.input,
    target: sample.target,
    scores: sample.scores ?? {},
    ...(sample.error == null ? {} : { error: sample.error.message }),
    completed: true,
  };
}

/** The run's episodes (in the run folder's order) as one log: samples, their summaries and the header. */
export function inspectExport(models: readonly EpisodeModel[], options: InspectExportOptions): InspectExport {
  const epochs = new Map<string, number>();
  const samples = models.map((m) => {
    const task = m.start?.task_id ?? m.end?.task_id ?? 'unknown-task';
    const epoch = (epochs.get(task) ?? 0) + 1;
    epochs.set(task, epoch);
    return inspectSample(m, epoch);
  });
  const scored = samples.filter((s) => Object.keys(s.scores ?? {}).length > 0);
  const resolved = scored.filter((s) => s.scores?.[inspectScorerName]?.value === 'C').length;
  const accuracy = scored.length === 0 ? 0 : resolved / scored.length;
  // The standard error of the mean, as Inspect's stderr metric gives it for a 0/1 score.
  const stderr = scored.length < 2 ? 0 : Math.sqrt((accuracy * (1 - accuracy)) / (scored.length - 1));
  const usage: Record<string, { input_tokens: number; output_tokens: number; total_tokens: number }> = {};
  for (const s of samples)
    for (const [name, u] of Object.entries(s.model_usage ?? {})) {
      const sum = (usage[name] ??= { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
      sum.input_tokens += u.input_tokens;
      sum.output_tokens += u.output_tokens;
      sum.total_tokens += u.total_tokens;
    }
  const starts = samples.flatMap((s) => (s.started_at == null ? [] : [s.started_at])).sort();
  const ends = samples.flatMap((s) => (s.completed_at == null ? [] : [s.completed_at])).sort();
  const created = options.created ?? new Date().toISOString();
  const header: InspectLog = {
    version: 2,
    status: 'success',
    eval: {
      created,
      task: options.runName,
      task_id: options.runName,
      task_version: 0,
      dataset: { name: options.runName, samples: epochs.size, sample_ids: [...epochs.keys()] },
      model: models[0] === undefined ? 'graph-planner/agent' : modelName(models[0]),
      config: { epochs: Math.max(0, ...epochs.values()) },
      packages: { 'graph-planner': options.version },
    },
    plan: { name: 'plan', steps: [{ solver: 'graph_planner/episode', params: {} }], config: {} },
    results: {
      total_samples: samples.length,
      completed_samples: scored.length,
      scores: [
        {
          name: inspectScorerName,
          scorer: inspectScorerName,
          scored_samples: scored.length,
          unscored_samples: samples.length - scored.length,
          params: {},
          metrics: { accuracy: { name: 'accuracy', value: accuracy, params: {} }, stderr: { name: 'stderr', value: stderr, params: {} } },
        },
      ],
    },
    stats: { started_at: starts[0] ?? created, completed_at: ends.at(-1) ?? created, model_usage: usage },
  };
  return { header: inspectLogSchema.parse(header), samples, summaries: samples.map(summaryOf) };
}

/**
 * The `.eval` file's bytes: a zip of each sample, the summaries and the header. fflate writes the
 * zip's structure; each member is deflated by Node's zlib (level 1) and handed over whole with its
 * size and CRC, which fflate's `ZipInputFile` accepts, because zlib deflates several times faster
 * than fflate's own JavaScript deflate and the export is mostly compression.
 */
export function inspectEvalZip(log: InspectExport): Uint8Array {
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error !== null) failure = error;
    else chunks.push(data);
  });
  const add = (filename: string, text: string): void => {
    const raw = Buffer.from(text, 'utf8');
    const file: ZipInputFile = { filename, size: raw.length, crc: crc32(raw), compression: 8 };
    zip.add(file);
    file.ondata?.(null, deflateRawSync(raw, { level: 1 }), true);
  };
  for (const s of log.samples) add(inspectSampleMembers(s.id, s.epoch).ours, JSON.stringify(s));
  add(inspectEvalMembers.summaries, JSON.stringify(log.summaries));
  add(inspectEvalMembers.header, JSON.stringify(log.header));
  zip.end();
  if (failure !== null) throw failure;
  return Buffer.concat(chunks);
}

/** The `.json` log: the header with its samples. */
export function inspectJson(log: InspectExport): string {
  return JSON.stringify({ ...log.header, samples: log.samples });
}
