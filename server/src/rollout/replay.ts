/**
 * Replaying a recorded episode: a fresh sandbox and environment for its task, the recorded actions
 * executed again one by one, and each outcome compared with the recording (episodes/replayCompare.ts).
 * The first step that differs ends the replay and is reported with both sides; no difference
 * means the environment reproduced the episode, which RL training relies on. The patch model is
 * replaced by the recording (`RecordedPatchModel`): each repair gets the candidates, the empty
 * answer or the failure the model gave when the episode ran, or no model when it had none, so the
 * replay calls no model and tests the environment alone. Nothing is written to the recorded run.
 */
import type { Action, PatchCandidate, ProtocolError } from '../protocol/actions.js';
import type { Observation } from '../protocol/observation.js';
import type { TrajectoryStep } from '../protocol/runs.js';
import type { EnvOptions, PatchModel, PlannerEnv, StepOutcome } from '../env/index.js';
import { compareStep, type Difference, type EpisodeModel, type StepView } from '../episodes/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import type { PlannedTask } from './plan.js';

export interface ReplayDeps {
  openSandbox(task: PlannedTask): Promise<Sandbox>;
  envOptions(task: TaskEntry): EnvOptions;
  openEnv(task: TaskEntry, sandbox: Sandbox, options: EnvOptions): Promise<PlannerEnv>;
}

export interface Divergence extends Difference {
  /** The step that differs; 0 is the observation after reset. */
  readonly step: number;
}

export interface ReplayedStep {
  readonly step: number;
  readonly summary: string;
  readonly difference: Difference | undefined;
}

export interface ReplayReport {
  /** Steps replayed (the reset not counted), up to and including a diverging one. */
  readonly replayed: number;
  readonly recorded: number;
  readonly divergence: Divergence | undefined;
  /** Why the replay stopped before the recording's end without a divergence (a step it cannot execute). */
  readonly notReplayed: string | undefined;
  /** The recording has no end line: the replay stopped where the recording did. */
  readonly cutShort: boolean;
  readonly backend: Sandbox['backend'];
  readonly replayMs: number;
  /** The recorded episode's duration (its end line), or undefined when it was cut short. */
  readonly originalMs: number | undefined;
}

export async function replayEpisode(
  model: EpisodeModel,
  planned: PlannedTask,
  deps: ReplayDeps,
  onStep: (step: ReplayedStep) => void = () => undefined,
): Promise<ReplayReport> {
  const started = performance.now();
  const sandbox = await deps.openSandbox(planned);
  let replayed = 0;
  let divergence: Divergence | undefined;
  let notReplayed: string | undefined;
  try {
    const recorded = new RecordedPatchModel();
    const env = await deps.openEnv(planned.task, sandbox, recorded.options(deps.envOptions(planned.task)));
    const first = await env.reset();
    if (model.start !== undefined) {
      const difference = compareStep(asRecord(model.start.observation, 0, false, undefined), asRecord(first, 0, false, undefined));
      onStep({ step: 0, summary: 'reset', difference });
      if (difference !== undefined) divergence = { step: 0, ...difference };
    }
    for (const view of divergence === undefined ? model.steps : []) {
      const input = inputOf(view);
      recorded.prepare(view.record);
      let outcome: StepOutcome;
      if (input === undefined) {
        // A line without an action or a protocol error: the episode was ended from outside (a limit, an interrupt).
        if (view.record.termination_reason === undefined) {
          notReplayed = `step ${view.step} records no action and no reason; it cannot be replayed.`;
          break;
        }
        outcome = await env.abort(view.record.termination_reason);
      } else outcome = await env.step(input);
      replayed++;
      const difference = compareStep(
        asRecord(view.record.observation, view.record.reward, view.record.done, view.record.termination_reason),
        asRecord(outcome.observation, outcome.reward, outcome.done, outcome.terminationReason),
      );
      onStep({ step: view.step, summary: view.summary, difference });
      if (difference !== undefined) {
        divergence = { step: view.step, ...difference };
        break;
      }
    }
  } finally {
    await sandbox.close();
  }
  return {
    replayed,
    recorded: model.steps.length,
    divergence,
    notReplayed,
    cutShort: model.cutShort,
    backend: sandbox.backend,
    replayMs: performance.now() - started,
    originalMs: model.end?.duration_ms,
  };
}

/** An observation with its reward and end, as `compareStep` compares a recorded step with its replay. */
export function asRecord(observation: Observation, reward: number, done: boolean, terminationReason: string | undefined) {
  return { observation, reward, done, terminationReason };
}

/** What to feed the environment for a recorded step: its action, or its protocol error. */
function inputOf(view: StepView): Action | ProtocolError | undefined {
  return view.record.action ?? view.record.protocol_error;
}

/**
 * The patch model as the recording saw it, one repair at a time: the recorded candidates, an
 * empty answer (`cgm-empty`), the recorded failure (`patch-model-failed`), or no model at all
 * (`no-patch-model`). Errors are worded as the environment worded them, with the model's name.
 */
export class RecordedPatchModel implements PatchModel {
  name = 'recorded';
  private answer: (() => PatchCandidate[]) | undefined;
  private present = true;

  /**
   * The environment's options with this model in place of the configured one; once `live` says
   * so (a fork past its replayed prefix), the configured one again.
   */
  options(base: EnvOptions, live: () => boolean = () => false): EnvOptions {
    const model = (): PatchModel | undefined => (live() ? base.patchModel : this.present ? this : undefined);
    return Object.defineProperty({ ...base }, 'patchModel', { get: model, enumerable: true });
  }

  prepare(record: TrajectoryStep): void {
    const last = record.observation.last;
    this.present = true;
    this.answer = undefined;
    if (record.action?.type !== 'repair' || last?.kind !== 'repair' || last.source !== 'patch-model') return;
    const code = last.error?.code;
    const message = last.error?.message ?? '';
    if (code === 'no-patch-model') {
      this.present = false;
    } else if (code === 'cgm-empty') {
      this.name = message.replace(/ returned no candidate\.$/, '');
      this.answer = () => [];
    } else if (code === 'patch-model-failed') {
      const at = message.indexOf(': ');
      this.name = at < 0 ? this.name : message.slice(0, at);
      const reason = at < 0 ? message : message.slice(at + 2);
      this.answer = () => {
        throw new Error(reason);
      };
    } else {
      const candidates = last.candidates.map((c): PatchCandidate => ({ diff: c.diff, ...(c.summary === undefined ? {} : { summary: c.summary }) }));
      this.answer = () => candidates;
    }
  }

  generate(): Promise<PatchCandidate[]> {
    try {
      return Promise.resolve(this.answer?.() ?? []);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
