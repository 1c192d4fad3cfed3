/**
 * A chat conversation (OpenAI-style messages, as SWE-agent's `history` and mini-swe-agent's
 * `messages` keep it) as steps: a system message is a system step, the user's messages before the
 * agent's first reply are user steps, each assistant message is an agent step with its tool calls,
 * and what follows it (a `tool` message, or a `user` message carrying the command's output) is that
 * step's observation. This is how Harbor's own converters read these files into ATIF
 * (docs/field-formats.md §1, "Prior art").
 */
import type { ForeignStep } from '../protocol/episodeView.js';
import { blankStep } from './foreignEpisode.js';
import { arr, bounded, contentOf, rec, str } from './foreignText.js';

export interface ChatReading {
  /** The JSON path of the message list, for each step's origin (`messages`, `history`, or empty for a bare list). */
  readonly listPath: string;
  /** The tool calls of an assistant message that names none itself (a command in its text, in its extras). */
  readonly actionsOf?: (message: Record<string, unknown>) => ForeignStep['toolCalls'];
  /** What a format keeps beside the message (time, cost, tokens). */
  readonly enrich?: (step: ForeignStep, message: Record<string, unknown>) => ForeignStep;
  /** Problems by message index. */
  readonly problems: ReadonlyMap<number, string[]>;
}

export function chatSteps(messages: readonly unknown[], reading: ChatReading): ForeignStep[] {
  const steps: ForeignStep[] = [];
  let agentSeen = false;
  messages.forEach((raw, index) => {
    const m = rec(raw) ?? {};
    const role = str(m['role']) ?? '';
    const content = contentOf(m['content']);
    const origin = reading.listPath === '' ? `[${index}]` : `${reading.listPath}[${index}]`;
    const problems = reading.problems.get(index) ?? [];
    const last = steps.at(-1);
    if ((role === 'tool' || (role === 'user' && agentSeen)) && last?.source === 'agent') {
      // The observation of the agent's last step: attach it there, as ATIF does.
      last.results.push({ callId: str(m['tool_call_id']) ?? null, content: content.text, subagents: [] });
      last.media.push(...content.media);
      last.problems.push(...problems);
      return;
    }
    const source = role === 'system' ? 'system' : role === 'assistant' ? 'agent' : 'user';
    if (source === 'agent') agentSeen = true;
    let step: ForeignStep = { ...blankStep(steps.length + 1, source, origin, content.text), media: content.media, problems: [...problems] };
    if (source === 'agent') {
      const named = arr(m['tool_calls']).map((c) => {
        const call = rec(c) ?? {};
        const fn = rec(call['function']) ?? {};
        return { id: str(call['id']), name: str(fn['name']) ?? '?', arguments: bounded(parsedArguments(fn['arguments'])) };
      });
      const thought = str(m['thought']) ?? str(m['reasoning_content']);
      // SWE-agent repeats the reply's text as its thought; shown once.
      step = {
        ...step,
        reasoning: thought === null || thought.trim() === content.text.trim() ? null : thought,
        toolCalls: named.length > 0 ? named : (reading.actionsOf?.(m) ?? []),
      };
    }
    steps.push(reading.enrich?.(step, m) ?? step);
  });
  return steps;
}

/** OpenAI sends a call's arguments as a JSON string; shown as the object it holds when it parses. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
