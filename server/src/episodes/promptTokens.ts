/**
 * Every step's whole prompt, as token ids, from a training trajectory. A step records its prompt
 * whole (`tokens.prompt_token_ids`, the first turn's) or as a change to the step before
 * (`tokens.prompt_delta`: the previous prompt followed by its completion, cut to `kept` tokens,
 * then the new tokens), because whole prompts would grow a trajectory with the square of its turns
 * (docs/trainer-bridge.md#tokens). Readers that need each prompt whole, as ATIF's
 * `prompt_token_ids` is (docs/field-formats.md), rebuild it here.
 */
import type { StepTokens } from '../protocol/runs.js';

/**
 * The whole prompt of each step, in order; undefined for a step without tokens, one whose prompt
 * was left out, and one whose change follows a step whose prompt is not known (the environment
 * service refuses such a change, so that happens only in a file written by hand).
 */
export function wholePrompts(steps: readonly { readonly tokens?: StepTokens | undefined }[]): (number[] | undefined)[] {
  const prompts: (number[] | undefined)[] = [];
  let context: number[] | undefined;
  for (const { tokens } of steps) {
    const prompt = promptOf(tokens, context);
    prompts.push(prompt);
    context = prompt === undefined || tokens === undefined ? undefined : prompt.concat(tokens.completion_token_ids);
  }
  return prompts;
}

function promptOf(tokens: StepTokens | undefined, context: number[] | undefined): number[] | undefined {
  if (tokens?.prompt_token_ids !== undefined) return tokens.prompt_token_ids;
  const delta = tokens?.prompt_delta;
  if (delta === undefined || context === undefined || delta.kept > context.length) return undefined;
  return context.slice(0, delta.kept).concat(delta.token_ids);
}
