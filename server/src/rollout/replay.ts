/**
 * Replaying a recorded episode: a fresh sandbox and environment for its task, the recorded actions
 * executed again one by one, and each outcome compared with the recording (runs/replayCompare.ts).
 * The first step that differs ends the replay and is reported with both sides; no difference
 * means the environment reproduced the episode, which RL training relies on. A repair whose
 * candidates came from the patch model is replayed with the recorded candidates, so the replay
 * needs no model and tests the environment alone. Nothing is written to the recorded run.
 */
import type { Action, ProtocolError } from '../protocol/actions.js';
import type { Observation } from '../protocol/observation.js';
import type { EnvOptions, PlannerEnv, StepOutcome } from '../env/index.js';
import { compareStep, type Difference, type EpisodeModel, type StepView } from '../runs/index.js';
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
  /** Steps the replay could not execute as recorded (an episode cut short, a step ended from outside). */
  readonly notReplayed: string | undefined;
  readonly backend: 'docker' | 'local';
  readonly replayMs: number;
  /** The recorded episode's duration (its end line), or undefined when it was cut short. */
  readonly originalMs: number | undefined;
}

export async function replayEpisode(model: EpisodeModel, planned: PlannedTask, deps: ReplayDeps, onStep: (step: ReplayedStep) => void = () => undefined): Promise<ReplayReport> {
  const started = performance.now();
  const sandbox = await deps.openSandbox(planned);
  let replayed = 0;
  let divergence: Divergence | undefined;
  let notReplayed: string | undefined;
  try {
    const env = await deps.openEnv(planned.task, sandbox, deps.envOptions(planned.task));
    const first = await env.reset();
    if (model.start !== undefined) {
      const difference = compareStep(asRecord(model.start.observation, 0, false, undefined), asRecord(first, 0, false, undefined));
      onStep({ step: 0, summary: 'reset', difference });
      if (difference !== undefined) divergence = { step: 0, ...difference };
    }
    for (const view of divergence === undefined ? model.steps : []) {
      const input = inputOf(view);
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
    if (divergence === undefined && notReplayed === undefined && model.cutShort) notReplayed = 'the recording has no end line: the replay stopped where the recording did.';
  } finally {
    await sandbox.close();
  }
  return {
    replayed,
    recorded: model.steps.length,
    divergence,
    notReplayed,
    backend: sandbox.backend,
    replayMs: performance.now() - started,
    originalMs: model.end?.duration_ms,
  };
}

function asRecord(observation: Observation, reward: number, done: boolean, terminationReason: string | undefined) {
  return { observation, reward, done, terminationReason };
}

/**
 * What to feed the environment for a recorded step: its action (a patch-model repair with the
 * candidates it recorded, as the action's own patches), or its protocol error.
 */
function inputOf(view: StepView): Action | ProtocolError | undefined {
  const record = view.record;
  const action = record.action;
  if (action === undefined) return record.protocol_error;
  const last = record.observation.last;
  if (action.type === 'repair' && action.patches === undefined && last?.kind === 'repair' && last.source === 'patch-model') {
    return { ...action, patches: last.candidates.map((c) => ({ diff: c.diff, ...(c.summary === undefined ? {} : { summary: c.summary }) })) };
  }
  return action;
}
