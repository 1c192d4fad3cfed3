/**
 * The model agent: a planner model behind a chat endpoint, writing the reply text format, tool
 * calls, or (with structured output) one JSON object. It keeps one conversation per episode —
 * system prompt, then each observation's text and the model's reply — and turns each reply into an
 * action. A reply that does not parse goes back to the environment as a protocol error (the model
 * reads the code and hint next turn), or, with a fallback agent, that agent takes the step. Unlike
 * the original (docs/original-system.md#a4-parse-failures-and-fallback), the history then records
 * the fallback's action as a valid reply, so a transcript never teaches invalid replies.
 *
 * What a real model breaks, and what this file does about it:
 * - A small model rarely ends its turn on its own, so a text-format reply stops at `</function>`
 *   (servers drop the matched stop string, so the agent writes it back).
 * - Every turn re-sends the conversation: it is trimmed to the prompt budget (estimated from its
 *   characters, conservatively), and a server that still says the prompt is too long gets a
 *   shorter one once.
 * - A server that cannot be reached, times out or keeps failing is not the model's answer: that
 *   error ends the episode as an infrastructure failure (rollout/infrastructure.ts), and no
 *   fallback hides it.
 */
import type { Action } from '../protocol/actions.js';
import type { ChatMessage, ChatToolCall } from '../protocol/modelApi.js';
import type { ModelCall } from '../protocol/modelUsage.js';
import type { Observation } from '../protocol/observation.js';
import type { Agent, AgentDecision, RecordedDecision } from './agent.js';
import { parseJsonReply, renderJsonReply, responseFormatFor, type StructuredOutput } from './jsonReply.js';
import type { ChatClient, ChatCompletion } from './openaiClient.js';
import { parseActionText, parseToolCalls, renderAction, renderToolCall, type ParseResult } from './replyFormat.js';
import { plannerSystemPrompt } from './prompts.js';
import { ModelClientError } from './retry.js';
import { plannerTools } from './toolSchemas.js';

export interface ModelAgentOptions {
  client: ChatClient;
  name?: string;
  /** Makes the agent that takes a step when a reply cannot be used (created at most once per episode). */
  fallback?: () => Agent;
  /** Offer the actions as OpenAI tools and read tool calls (the reply text format is still accepted). */
  useTools?: boolean;
  /** Constrain replies to the JSON reply schema (jsonReply.ts), in the server's dialect. */
  structuredOutput?: StructuredOutput;
  /** Messages kept after the system prompt and the first observation (default 40). */
  maxHistoryMessages?: number;
  /** The prompt budget in tokens (`planner_sampling.max_input_tokens`); the history is trimmed to fit. */
  maxInputTokens?: number;
  /** The whole system message (prompt files assembled by launch/); defaults to today's prompt. */
  systemPrompt?: string;
  /** Most characters of one observation sent to the model; the rest is left out with a marker. */
  observationBudget?: number;
  /**
   * Example turns (an observation and a valid reply, in pairs) sent after the system prompt and
   * before the first observation, and never trimmed: small models copy a turn's format far more
   * readily than a description of it.
   */
  exampleTurns?: readonly ChatMessage[];
}

/** The stop string of the reply text format: the block's terminator. */
const terminator = '</function>';

/**
 * Characters per token assumed when estimating a prompt's length. BPE tokenizers average three to
 * four characters per token on English and code; three errs towards sending less.
 */
const charsPerToken = 3;

/** Codes of client errors that mean the serving machinery failed rather than the model. */
const serverGone = new Set(['network', 'timeout', 'http-5xx', 'rate-limited']);

/** Whether a 4xx answer says the prompt does not fit the model's context window. */
function promptTooLong(error: ModelClientError): boolean {
  return error.code === 'http-4xx' && /context|too long|too many tokens|maximum.*length|exceed/i.test(error.message);
}

/**
 * The messages sent: the first `head` always (the system prompt, any example turns and the first
 * observation), then about the last `keep` messages, widened back to an assistant message so that
 * roles still alternate and no tool answer loses the call it answers.
 */
export function trimHistory(messages: readonly ChatMessage[], keep: number, head = 2): ChatMessage[] {
  if (messages.length <= keep + head) return [...messages];
  let start = Math.max(head, messages.length - Math.max(1, keep));
  while (start > head && messages[start]?.role !== 'assistant') start--;
  return [...messages.slice(0, head), ...messages.slice(start)];
}

function messageChars(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []).reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0) : 0;
  return (message.content ?? '').length + calls + 8;
}

/**
 * Drops the oldest turns after the first `head` messages until the estimated prompt fits
 * `budgetChars`, keeping the last observation whatever it costs (the model must see where it is).
 * The cut starts at an assistant message, as `trimHistory`'s does.
 */
export function fitToBudget(messages: readonly ChatMessage[], budgetChars: number, headLength = 2): ChatMessage[] {
  const total = messages.reduce((n, m) => n + messageChars(m), 0);
  if (total <= budgetChars || messages.length <= headLength + 1) return [...messages];
  const head = messages.slice(0, headLength);
  let used = head.reduce((n, m) => n + messageChars(m), 0);
  let start = messages.length - 1;
  used += messageChars(messages[start] as ChatMessage);
  while (start > headLength && used + messageChars(messages[start - 1] as ChatMessage) <= budgetChars) {
    start--;
    used += messageChars(messages[start] as ChatMessage);
  }
  while (start < messages.length - 1 && messages[start]?.role !== 'assistant') start++;
  return [...head, ...messages.slice(start)];
}

/** An observation cut to the budget, saying how much was left out so the model knows it saw a part. */
export function budgetedObservation(text: string, budget: number | undefined): string {
  if (budget === undefined || text.length <= budget) return text;
  return `${text.slice(0, budget)}\n[… ${text.length - budget} more characters of this observation left out]`;
}

/** The reply as a trajectory records it: the text, then any tool calls. */
function responseText(completion: ChatCompletion): string {
  const calls = completion.toolCalls.map((c) => `<tool_call name="${c.name}">${c.arguments}</tool_call>`);
  return [completion.content, ...calls].filter((s) => s !== '').join('\n');
}

/**
 * A text-format reply that ended on the terminator lost it to the server (stop strings are not
 * returned): write it back, so the block the model finished parses as the model meant it.
 */
export function restoreTerminator(content: string, finishReason: string | undefined): string {
  if (finishReason !== 'stop' || !/<function\s*=/i.test(content) || /<\/function\s*>/i.test(content)) return content;
  return `${content.replace(/\s+$/, '')}\n${terminator}`;
}

/**
 * A repair without a plan or patches is a valid action but not a valid reply (the contract wants
 * a subplan); in the history it gets a one-line plan so the block it is written as still parses.
 */
function recordable(action: Action): Action {
  if (action.type !== 'repair' || action.plan.trim() !== '' || action.patches !== undefined) return action;
  const focus = action.focus_ids.length > 0 ? ` ${action.focus_ids.join(', ')}` : ' the focus nodes';
  return { ...action, plan: `1) Repair${focus}.` };
}

function modelCall(completion: ChatCompletion, trimmed: number): ModelCall {
  return {
    ...(completion.usage ? { prompt_tokens: completion.usage.prompt_tokens, completion_tokens: completion.usage.completion_tokens } : {}),
    generation_ms: completion.latencyMs,
    attempts: completion.attempts,
    ...(completion.finishReason === undefined ? {} : { finish_reason: completion.finishReason }),
    ...(trimmed > 0 ? { trimmed_messages: trimmed } : {}),
  };
}

export function createModelAgent(options: ModelAgentOptions): Agent {
  const keep = options.maxHistoryMessages ?? 40;
  const useTools = options.useTools ?? false;
  const structured = options.structuredOutput;
  const tools = useTools ? plannerTools() : undefined;
  const responseFormat = structured === undefined ? undefined : responseFormatFor(structured);
  // Tool calls and JSON replies end on their own; only the text format needs its terminator as a stop.
  const stop = useTools || structured !== undefined ? [] : [terminator];
  const history: ChatMessage[] = [{ role: 'system', content: options.systemPrompt ?? plannerSystemPrompt }, ...(options.exampleTurns ?? [])];
  // The system prompt, the example turns and the first observation are never trimmed.
  const head = history.length + 1;
  let budgetChars = options.maxInputTokens === undefined ? Number.POSITIVE_INFINITY : options.maxInputTokens * charsPerToken;
  /** Tool calls of the last assistant message, each owed a tool message before the next turn. */
  let pendingCalls: string[] = [];
  let fallbackAgent: Agent | undefined;
  let fallbackCalls = 0;

  function addObservation(observation: Observation): void {
    const text = budgetedObservation(observation.text, options.observationBudget);
    if (pendingCalls.length === 0) {
      history.push({ role: 'user', content: text });
      return;
    }
    const [first, ...rest] = pendingCalls;
    history.push({ role: 'tool', tool_call_id: first ?? '', content: text });
    for (const id of rest) history.push({ role: 'tool', tool_call_id: id, content: 'Not executed: call exactly one tool per turn.' });
    pendingCalls = [];
  }

  function recordReply(completion: ChatCompletion): void {
    if (!useTools || completion.toolCalls.length === 0) {
      history.push({ role: 'assistant', content: completion.content });
      return;
    }
    const calls: ChatToolCall[] = completion.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    history.push({ role: 'assistant', content: completion.content === '' ? null : completion.content, tool_calls: calls });
    pendingCalls = calls.map((c) => c.id);
  }

  /** Records a step the model did not write, as the model should have written it. */
  function recordAction(action: Action): void {
    const shown = recordable(action);
    if (structured !== undefined) {
      history.push({ role: 'assistant', content: renderJsonReply(shown) });
      return;
    }
    if (!useTools) {
      history.push({ role: 'assistant', content: renderAction(shown) });
      return;
    }
    const id = `call_fallback_${++fallbackCalls}`;
    history.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: renderToolCall(shown) }] });
    pendingCalls = [id];
  }

  function parseReply(completion: ChatCompletion): ParseResult {
    if (useTools && completion.toolCalls.length > 0) return parseToolCalls(completion.toolCalls);
    if (structured !== undefined) return parseJsonReply(completion.content);
    return parseActionText(completion.content);
  }

  async function fallBack(
    observation: Observation,
    signal: AbortSignal,
    reason: string,
    extra: Pick<AgentDecision, 'response' | 'model' | 'parseFailure'>,
  ): Promise<AgentDecision | undefined> {
    if (!options.fallback) return undefined;
    fallbackAgent ??= options.fallback();
    const decision = await fallbackAgent.act(observation, signal);
    if (decision.action === undefined) return undefined;
    recordAction(decision.action);
    return { action: decision.action, fallbackReason: reason, ...extra };
  }

  /** One call with the history trimmed to the budget; a server that says it is still too long gets half. */
  async function complete(signal: AbortSignal): Promise<{ completion: ChatCompletion; trimmed: number }> {
    for (let retried = false; ; retried = true) {
      const messages = fitToBudget(trimHistory(history, keep, head), budgetChars, head);
      try {
        const completion = await options.client.complete(messages, {
          signal,
          stop,
          ...(tools ? { tools } : {}),
          ...(responseFormat ? { responseFormat } : {}),
        });
        return { completion, trimmed: history.length - messages.length };
      } catch (error) {
        if (retried || !(error instanceof ModelClientError) || !promptTooLong(error)) throw error;
        const sent = messages.reduce((n, m) => n + messageChars(m), 0);
        budgetChars = Math.floor(sent / 2);
      }
    }
  }

  return {
    name: options.name ?? `model ${options.client.model}`,
    /**
     * A replayed step enters the history as the model should have written it, whoever took it;
     * a reply that did not parse enters as written, so the protocol error that follows reads as
     * it did in the recording.
     */
    prime(observation: Observation, recorded: RecordedDecision) {
      addObservation(observation);
      if (recorded.action !== undefined) recordAction(recorded.action);
      else history.push({ role: 'assistant', content: recorded.response ?? '' });
    },
    async act(observation, signal) {
      addObservation(observation);
      let completion: ChatCompletion;
      let trimmed: number;
      try {
        ({ completion, trimmed } = await complete(signal));
      } catch (error) {
        // A cancelled episode is not the model's failure, and a server that is gone is the
        // infrastructure's: nobody should take the step.
        if (!(error instanceof ModelClientError) || error.code === 'aborted' || serverGone.has(error.code)) throw error;
        const decision = await fallBack(observation, signal, `client-${error.code}`, {});
        if (decision === undefined) throw error;
        return decision;
      }
      completion = { ...completion, content: stop.length > 0 ? restoreTerminator(completion.content, completion.finishReason) : completion.content };
      const response = responseText(completion);
      const model = modelCall(completion, trimmed);
      const parsed = parseReply(completion);
      if (parsed.ok) {
        recordReply(completion);
        return { action: parsed.action, response, model };
      }
      const decision = await fallBack(observation, signal, parsed.error.code, { response, model, parseFailure: parsed.error.code });
      if (decision !== undefined) return decision;
      recordReply(completion);
      return { protocolError: parsed.error, response, model, parseFailure: parsed.error.code };
    },
  };
}
