/**
 * One episode driven by a remote agent loop through the environment service. The episode runs as
 * a rollout's does (`rollout/runEpisode`: sandbox, environment, trajectory, end line, instance
 * report), with an agent that waits for the client's next reply instead of thinking, and an
 * environment tapped so each step's outcome goes back to the client that sent the reply. So a
 * training episode lands in the run directory exactly like a rollout's, each step with the
 * policy's tokens the client sent with its reply (docs/trainer-bridge.md#tokens).
 */
import type { Agent, AgentDecision } from '../agents/index.js';
import { budgetedObservation, parseActionText, describeProtocolError, plannerSystemPrompt, renderAction } from '../agents/index.js';
import type { PlannerEnv, StepOutcome } from '../env/index.js';
import type { Observation } from '../protocol/observation.js';
import type { CloseBody, CloseReply, CreateEpisodeReply, StepReply } from '../protocol/envService.js';
import type { SandboxHostRef, StepTokens, TrainingGroup } from '../protocol/runs.js';
import { runEpisode, Stopped, type EpisodeDeps, type EpisodeResult, type EpisodeSpec } from '../rollout/index.js';
import type { Episode } from './episode.js';
import { HttpError } from './jsonHttp.js';

/**
 * A request the episode cannot take now: the client sent the wrong turn, or the episode is over
 * (answered 409), or it has no policy to show (404).
 */
export class EpisodeConflict extends HttpError {
  constructor(
    override readonly code: 'wrong-turn' | 'episode-ended' | 'episode-failed' | 'no-policy',
    message: string,
  ) {
    super(code === 'no-policy' ? 404 : 409, code, message);
    this.name = 'EpisodeConflict';
  }
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A rejection nobody awaits (the episode ended between two requests) is not an error of the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export interface ServiceEpisodeOptions {
  readonly spec: EpisodeSpec;
  readonly deps: EpisodeDeps;
  readonly runDir: string;
  /** Called once the episode has ended and its sandbox is closed. */
  readonly onEnded: (result: EpisodeResult | undefined) => void;
  /** The smoke run's scripted policy: an agent whose reply to the waiting observation `policy()` returns. */
  readonly scriptedPolicy?: Agent;
  /** The experiment's planner prompt (`prompts.*`); the built-in one when absent. */
  readonly prompt?: ServicePrompt;
  /** The sandbox host running the episode, for its trajectory (docs/sandbox-hosts.md). */
  readonly sandboxHost?: SandboxHostRef;
  /** The episode's GRPO group (a training episode whose agent loop sent Verl's `uid`), for its trajectory. */
  readonly training?: TrainingGroup;
}

/** What the service tells the agent loop to send: the system message and each observation's budget. */
export interface ServicePrompt {
  readonly systemPrompt: string;
  readonly observationBudget?: number;
}

export class ServiceEpisode implements Episode {
  readonly id: string;
  readonly sandboxHost: SandboxHostRef | undefined;
  /** The observation the agent is waiting to answer; resolved when the environment asks the agent. */
  private question = deferred<Observation>();
  private answer: Deferred<AgentDecision> | undefined;
  /** The outcome of the step the last answer started. */
  private outcome = deferred<StepOutcome>();
  private lastTurn = 0;
  private lastReply: StepReply | undefined;
  /**
   * How many tokens the last turn's prompt and completion came to, when its tokens were sent with
   * a prompt; a turn whose prompt is told as a change (`prompt_delta`) is checked against it.
   */
  private contextTokens: number | undefined;
  private done = false;
  private maxSteps = 0;
  private chain: Promise<unknown> = Promise.resolve();
  readonly ended: Promise<EpisodeResult | undefined>;
  private readonly controller = new AbortController();
  private stopWith: Stopped | undefined;
  private readonly scriptedPolicy: Agent | undefined;
  private readonly prompt: ServicePrompt | undefined;
  /** The scripted policy's reply for a turn, so asking again for the same turn does not advance the agent. */
  private policyReplies = new Map<number, Promise<string>>();

  constructor(options: ServiceEpisodeOptions) {
    this.id = options.spec.episodeId;
    this.sandboxHost = options.sandboxHost;
    this.scriptedPolicy = options.scriptedPolicy;
    this.prompt = options.prompt;
    const agent: Agent = { name: 'remote', act: (observation) => this.ask(observation) };
    const deps: EpisodeDeps = {
      ...options.deps,
      makeAgent: () => agent,
      openEnv: async (task, sandbox, envOptions) => this.tap(await options.deps.openEnv(task, sandbox, envOptions)),
    };
    const tracked: Promise<unknown>[] = [];
    this.ended = runEpisode(options.spec, deps, {
      runDir: options.runDir,
      signal: this.controller.signal,
      track: (work) => tracked.push(work),
      ...(options.sandboxHost === undefined ? {} : { sandboxHost: options.sandboxHost }),
      ...(options.training === undefined ? {} : { training: options.training }),
    })
      .then(async (result) => {
        await Promise.allSettled(tracked);
        return result;
      })
      .catch(() => undefined)
      .then((result) => {
        this.done = true;
        // Whoever still waits for a question or an outcome learns that the episode is over.
        this.question.reject(new EpisodeConflict('episode-ended', `episode ${this.id} has ended`));
        this.outcome.reject(new EpisodeConflict('episode-ended', `episode ${this.id} has ended`));
        options.onEnded(result);
        return result;
      });
  }

  /** Waits for the observation after reset (the sandbox is open and the environment reset). */
  async started(deadline: number): Promise<CreateEpisodeReply> {
    try {
      const first = await this.question.promise;
      return {
        episode_id: this.id,
        system_prompt: this.prompt?.systemPrompt ?? plannerSystemPrompt,
        observation: budgetedObservation(first.text, this.prompt?.observationBudget),
        max_steps: this.maxSteps,
        deadline,
      };
    } catch {
      const result = await this.ended;
      throw new EpisodeConflict('episode-failed', `episode ${this.id} could not start: ${result?.end.error ?? 'its sandbox or environment failed'}`);
    }
  }

  /**
   * Executes the model's raw reply as turn `turn`, recording the policy's tokens behind it when
   * they come; the same turn again returns the same answer.
   */
  step(turn: number, reply: string, tokens?: StepTokens): Promise<StepReply> {
    const run = this.chain.then(() => this.stepNow(turn, reply, tokens));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Ends the episode (with the reason's penalty when it is not done) and waits for its end line. */
  async close(reason: CloseBody['reason']): Promise<CloseReply> {
    await this.chain;
    if (!this.done) {
      // The agent is waiting for a reply (or will be, once the sandbox is open): end the episode
      // from there, as a limit would, with the reason's penalty.
      this.stopWith = new Stopped(reason);
      const waiting = this.answer;
      this.answer = undefined;
      waiting?.reject(this.stopWith);
    }
    const result = await this.ended;
    if (result === undefined) throw new EpisodeConflict('episode-failed', `episode ${this.id} failed before its end line was written`);
    // An episode the infrastructure failed has no reward to train on: the client gets an error, and
    // the agent loop masks the sample instead of learning from a return the task never earned.
    const infrastructure = result.end.infrastructure;
    if (infrastructure !== undefined)
      throw new EpisodeConflict(
        'episode-failed',
        `episode ${this.id} reached no outcome because the infrastructure failed (${infrastructure.code}: ${infrastructure.cause})`,
      );
    return {
      episode_id: this.id,
      total_reward: result.end.total_reward,
      resolved: result.end.resolved,
      steps: result.end.steps,
      termination_reason: result.end.termination_reason,
    };
  }

  /** The scripted policy's reply to the observation the episode waits on (smoke runs only). */
  policy(): Promise<string> {
    const policy = this.scriptedPolicy;
    if (policy === undefined)
      return Promise.reject(new EpisodeConflict('no-policy', 'this service has no scripted policy; it serves one only for gp train --smoke'));
    const turn = this.lastTurn + 1;
    const known = this.policyReplies.get(turn);
    if (known !== undefined) return known;
    const reply = this.chain.then(async () => {
      if (this.done) throw new EpisodeConflict('episode-ended', `episode ${this.id} has ended`);
      const observation = await this.question.promise;
      const decision = await policy.act(observation, this.controller.signal);
      if (decision.action !== undefined) return renderAction(decision.action);
      if (decision.response !== undefined) return decision.response;
      throw new EpisodeConflict('episode-failed', `the scripted policy gave no reply for turn ${turn}`);
    });
    this.policyReplies.set(turn, reply);
    reply.catch(() => this.policyReplies.delete(turn));
    return reply;
  }

  /** Ends the episode at once (the service is shutting down, or its deadline passed). */
  abort(): Promise<EpisodeResult | undefined> {
    this.controller.abort();
    return this.ended;
  }

  get isDone(): boolean {
    return this.done;
  }

  private ask(observation: Observation): Promise<AgentDecision> {
    const answer = deferred<AgentDecision>();
    this.answer = answer;
    if (this.stopWith !== undefined) answer.reject(this.stopWith);
    this.question.resolve(observation);
    return answer.promise;
  }

  private async stepNow(turn: number, reply: string, tokens: StepTokens | undefined): Promise<StepReply> {
    if (turn === this.lastTurn && this.lastReply !== undefined) return this.lastReply;
    if (this.done) throw new EpisodeConflict('episode-ended', `episode ${this.id} has ended; close it to get its return`);
    if (turn !== this.lastTurn + 1) throw new EpisodeConflict('wrong-turn', `episode ${this.id} expects turn ${this.lastTurn + 1}, not ${turn}`);
    const promptTokens = this.promptLength(tokens);
    await this.question.promise;
    const answer = this.answer;
    if (answer === undefined) throw new EpisodeConflict('episode-ended', `episode ${this.id} is not waiting for a reply`);
    const parsed = parseActionText(reply);
    // A reply that does not parse is counted as the model's parse failure (the episode's figures, metrics.jsonl).
    const decision: AgentDecision = {
      ...(parsed.ok ? { action: parsed.action, response: reply } : { protocolError: parsed.error, response: reply, parseFailure: parsed.error.code }),
      ...(tokens === undefined ? {} : { tokens }),
    };
    this.question = deferred<Observation>();
    this.outcome = deferred<StepOutcome>();
    this.answer = undefined;
    answer.resolve(decision);
    const outcome = await this.outcome.promise;
    const stepReply: StepReply = {
      turn,
      observation: budgetedObservation(outcome.observation.text, this.prompt?.observationBudget),
      reward: outcome.reward,
      done: outcome.done,
      ...(outcome.terminationReason === undefined ? {} : { termination_reason: outcome.terminationReason }),
      ...(parsed.ok ? {} : { protocol_error: describeProtocolError(parsed.error) }),
    };
    this.lastTurn = turn;
    this.lastReply = stepReply;
    this.contextTokens = promptTokens === undefined || tokens === undefined ? undefined : promptTokens + tokens.completion_token_ids.length;
    if (outcome.done) this.done = true;
    return stepReply;
  }

  /**
   * The length of this turn's prompt, when its tokens tell it; a `prompt_delta` that keeps more
   * than the previous turn had, or that follows a turn whose prompt is not known, is the client's
   * error (400): recorded, it could not be read back into the prompt it stands for.
   */
  private promptLength(tokens: StepTokens | undefined): number | undefined {
    if (tokens?.prompt_token_ids !== undefined) return tokens.prompt_token_ids.length;
    const delta = tokens?.prompt_delta;
    if (delta === undefined) return undefined;
    if (this.contextTokens === undefined)
      throw new HttpError(
        400,
        'invalid-body',
        `tokens.prompt_delta: turn ${this.lastTurn + 1} of episode ${this.id} tells its prompt as a change, but the turn before sent no prompt tokens; send this prompt whole as tokens.prompt_token_ids`,
      );
    if (delta.kept > this.contextTokens)
      throw new HttpError(
        400,
        'invalid-body',
        `tokens.prompt_delta.kept: ${delta.kept} is more than the ${this.contextTokens} tokens of the previous turn's prompt and completion`,
      );
    return delta.kept + delta.token_ids.length;
  }

  /** The environment with its step outcomes reported to whoever sent the reply. */
  private tap(env: PlannerEnv): PlannerEnv {
    this.maxSteps = env.maxSteps;
    const report = this.outcomeOf.bind(this);
    return {
      get task() {
        return env.task;
      },
      get sandbox() {
        return env.sandbox;
      },
      get maxSteps() {
        return env.maxSteps;
      },
      get grade() {
        return env.grade;
      },
      reset: () => env.reset(),
      step: (input) => report(env.step(input)),
      abort: (reason) => env.abort(reason),
      patch: () => env.patch(),
      ...(env.settled === undefined ? {} : { settled: () => env.settled?.() ?? Promise.resolve() }),
    };
  }

  private async outcomeOf(stepping: Promise<StepOutcome>): Promise<StepOutcome> {
    try {
      const outcome = await stepping;
      this.outcome.resolve(outcome);
      return outcome;
    } catch (error) {
      this.outcome.reject(error);
      throw error;
    }
  }
}
