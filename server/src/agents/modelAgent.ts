/**
 * The model agent: a planner model behind a chat endpoint, writing the reply text format (or tool
 * calls). It keeps one conversation per episode — system prompt, then each observation's text and
 * the model's reply — and turns each reply into an action. A reply that does not parse goes back
 * to the environment as a protocol error (the model reads the code and hint next turn), or, with
 * a fallback agent, that agent takes the step. Unlike the original (docs/original-system.md#a4-parse-failures-and-fallback), the history then
 * records the fallback's action as a valid block, so a transcript never teaches invalid replies.
 */
import type { Action } from '../protocol/actions.js';
import type { ChatMessage, ChatToolCall } from '../protocol/modelApi.js';
import type { Observation } from '../protocol/observation.js';
import type { Agent, AgentDecision } from './agent.js';
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
  /** Messages kept after the system prompt and the first observation (default 40). */
  maxHistoryMessages?: number;
  systemPrompt?: string;
}

/**
 * The messages sent: the system prompt and first observation always, then about the last `keep`
 * messages, widened back to an assistant message so that roles still alternate and no tool
 * answer loses the call it answers.
 */
export function trimHistory(messages: readonly ChatMessage[], keep: number): ChatMessage[] {
  if (messages.length <= keep + 2) return [...messages];
  let start = Math.max(2, messages.length - Math.max(1, keep));
  while (start > 2 && messages[start]?.role !== 'assistant') start--;
  return [...messages.slice(0, 2), ...messages.slice(start)];
}

/** The reply as a trajectory records it: the text, then any tool calls. */
function responseText(completion: ChatCompletion): string {
  const calls = completion.toolCalls.map((c) => `<tool_call name="${c.name}">${c.arguments}</tool_call>`);
  return [completion.content, ...calls].filter((s) => s !== '').join('\n');
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

export function createModelAgent(options: ModelAgentOptions): Agent {
  const keep = options.maxHistoryMessages ?? 40;
  const useTools = options.useTools ?? false;
  const tools = useTools ? plannerTools() : undefined;
  const history: ChatMessage[] = [{ role: 'system', content: options.systemPrompt ?? plannerSystemPrompt }];
  /** Tool calls of the last assistant message, each owed a tool message before the next turn. */
  let pendingCalls: string[] = [];
  let fallbackAgent: Agent | undefined;
  let fallbackCalls = 0;

  function addObservation(observation: Observation): void {
    if (pendingCalls.length === 0) {
      history.push({ role: 'user', content: observation.text });
      return;
    }
    const [first, ...rest] = pendingCalls;
    history.push({ role: 'tool', tool_call_id: first ?? '', content: observation.text });
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
    return parseActionText(completion.content);
  }

  async function fallBack(observation: Observation, signal: AbortSignal, reason: string, response?: string): Promise<AgentDecision | undefined> {
    if (!options.fallback) return undefined;
    fallbackAgent ??= options.fallback();
    const decision = await fallbackAgent.act(observation, signal);
    if (decision.action === undefined) return undefined;
    recordAction(decision.action);
    return { action: decision.action, fallbackReason: reason, ...(response !== undefined ? { response } : {}) };
  }

  return {
    name: options.name ?? `model ${options.client.model}`,
    async act(observation, signal) {
      addObservation(observation);
      let completion: ChatCompletion;
      try {
        completion = await options.client.complete(trimHistory(history, keep), { signal, ...(tools ? { tools } : {}) });
      } catch (error) {
        // A cancelled episode is not the model's failure: nobody should take the step.
        if (!(error instanceof ModelClientError) || error.code === 'aborted') throw error;
        const decision = await fallBack(observation, signal, `client-${error.code}`);
        if (decision === undefined) throw error;
        return decision;
      }
      const response = responseText(completion);
      const parsed = parseReply(completion);
      if (parsed.ok) {
        recordReply(completion);
        return { action: parsed.action, response };
      }
      const decision = await fallBack(observation, signal, parsed.error.code, response);
      if (decision !== undefined) return decision;
      recordReply(completion);
      return { protocolError: parsed.error, response };
    },
  };
}
