/**
 * The planner's system message from the files an experiment points at (`prompts.*`), each part
 * falling back to the built-in text: the instructions, the reply format's instructions (for the
 * format in use: text blocks, or JSON with structured output) and the examples. A file that cannot
 * be read is refused before anything starts, naming the key and the file.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  assemblePlannerPrompt,
  examplesSection,
  exampleTurns,
  jsonReplyFormat,
  plannerInstructions,
  renderAction,
  renderJsonReply,
  textReplyFormat,
} from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import type { ChatMessage } from '../protocol/modelApi.js';
import { errorMessage } from '../util/errors.js';

export interface PlannerPrompt {
  readonly systemPrompt: string;
  /** The example exchange sent before the first observation (`prompts.example_turns`), in the reply format in use. */
  readonly exampleTurns?: ChatMessage[];
  readonly observationBudget?: number;
  /** Where each part came from: a file, or `built-in`. */
  readonly sources: { readonly system: string; readonly reply_format: string; readonly few_shot: string };
}

export class PromptFileError extends Error {
  override readonly name = 'PromptFileError';
}

/**
 * Characters per token assumed when checking that the prompt fits: three, so the check errs
 * towards refusing (the model agent trims its history with the same figure).
 */
const charsPerToken = 3;

async function part(
  key: 'system' | 'reply_format' | 'few_shot',
  file: string | null,
  builtIn: string,
  baseDir: string,
): Promise<{ text: string; source: string }> {
  if (file === null) return { text: builtIn, source: 'built-in' };
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  try {
    const text = await readFile(path, 'utf8');
    if (text.trim() === '')
      throw new PromptFileError(`prompts.${key}: ${path} is empty; write the text into it, or set prompts.${key} to null for the built-in text.`);
    return { text, source: path };
  } catch (error) {
    if (error instanceof PromptFileError) throw error;
    throw new PromptFileError(
      `prompts.${key}: cannot read ${path} (${errorMessage(error)}); correct the path, or set prompts.${key} to null for the built-in text.`,
    );
  }
}

/**
 * The prompt for `gp rollout` and `gp eval` (its reply format follows `structured_output`), or with
 * `format: 'text'` for training, whose environment service reads the reply text format only.
 */
export async function loadPlannerPrompt(config: ExperimentConfig, baseDir: string, options: { format?: 'text' } = {}): Promise<PlannerPrompt> {
  const structured = options.format !== 'text' && config.planner_sampling.structured_output !== 'off';
  const files = config.prompts;
  const instructions = await part('system', files.system, plannerInstructions, baseDir);
  const replyFormat = await part('reply_format', files.reply_format, structured ? jsonReplyFormat : textReplyFormat, baseDir);
  const examples = await part('few_shot', files.few_shot, examplesSection(structured ? renderJsonReply : renderAction), baseDir);
  const systemPrompt = assemblePlannerPrompt({ instructions: instructions.text, replyFormat: replyFormat.text, examples: examples.text });
  const budget = config.planner_sampling.max_input_tokens;
  const estimate = Math.ceil(systemPrompt.length / charsPerToken);
  const observation = files.observation_budget === null ? 0 : Math.ceil(files.observation_budget / charsPerToken);
  if (estimate + observation > budget) {
    const what =
      observation > 0
        ? `the system prompt (about ${estimate} tokens) and one observation (prompts.observation_budget, about ${observation} tokens)`
        : `the system prompt (about ${estimate} tokens)`;
    throw new PromptFileError(
      `${what} do not fit planner_sampling.max_input_tokens (${budget}); shorten the prompt files, lower prompts.observation_budget, or raise max_input_tokens.`,
    );
  }
  return {
    systemPrompt,
    ...(files.example_turns ? { exampleTurns: exampleTurns(structured ? renderJsonReply : renderAction) } : {}),
    ...(files.observation_budget === null ? {} : { observationBudget: files.observation_budget }),
    sources: { system: instructions.source, reply_format: replyFormat.source, few_shot: examples.source },
  };
}
