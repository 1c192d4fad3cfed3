/**
 * The model side of a rollout or evaluation: the embedded model's context window must hold the
 * prompt budget and the reply, a backend set to `embedded` beside an endpoint uses the endpoint,
 * and the prompt files an experiment points at must exist (launch/plannerPrompt.ts reads them and
 * checks that they fit the prompt budget).
 */
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type KeyPath } from '../../protocol/index.js';
import { existence, resolvePath } from './files.js';
import { related, setFix, type DiskRule, type Rule } from './rule.js';

function usesEmbedded(config: ExperimentConfig): boolean {
  return config.backends.planner_backend === 'embedded' || config.backends.cgm_backend === 'embedded';
}

function contextFindings(config: ExperimentConfig): Finding[] {
  if (!usesEmbedded(config)) return [];
  const { max_input_tokens: prompt, max_new_tokens: reply } = config.planner_sampling;
  const context = config.backends.embedded_context_size;
  if (prompt + reply <= context) return [];
  const path: KeyPath = ['backends', 'embedded_context_size'];
  return [
    finding({
      code: 'preflight/context-too-small',
      severity: 'error',
      message: `the embedded model's context (${context} tokens) cannot hold a prompt of planner_sampling.max_input_tokens (${prompt}) and a reply of max_new_tokens (${reply}): ${prompt + reply} tokens. The server would refuse long prompts mid-run. Raise embedded_context_size or lower the budgets.`,
      path,
      related: [related(['planner_sampling', 'max_input_tokens'], 'the prompt budget'), related(['planner_sampling', 'max_new_tokens'], 'the reply budget')],
      fixes: [setFix(`Set backends.embedded_context_size to ${prompt + reply}`, [[path, prompt + reply]], true)],
    }),
  ];
}

function endpointWins(config: ExperimentConfig, role: 'planner' | 'cgm'): Finding[] {
  const backend = role === 'planner' ? config.backends.planner_backend : config.backends.cgm_backend;
  const endpoint = role === 'planner' ? config.backends.planner_endpoint : config.backends.cgm_endpoint;
  if (backend !== 'embedded' || endpoint === null) return [];
  return [
    finding({
      code: 'preflight/embedded-endpoint',
      severity: 'info',
      message: `${role}_backend is embedded but ${role}_endpoint is set, so runs call ${endpoint} and start no embedded server. Remove the endpoint to use the embedded model.`,
      path: ['backends', `${role}_endpoint`],
    }),
  ];
}

export const embeddedModelRule: Rule = {
  name: 'embedded-model',
  check: (config) => [...contextFindings(config), ...endpointWins(config, 'planner'), ...endpointWins(config, 'cgm')],
};

const promptKeys = ['system', 'reply_format', 'few_shot'] as const;

export const promptFilesRule: DiskRule = {
  name: 'prompt-files',
  async check(config, baseDir) {
    const out: Finding[] = [];
    for (const key of promptKeys) {
      const file = config.prompts[key];
      if (file === null) continue;
      const found = await existence(resolvePath(baseDir, file));
      if (found.exists && !found.isDirectory) continue;
      const path: KeyPath = ['prompts', key];
      out.push(
        finding({
          code: 'preflight/prompt-file-missing',
          severity: 'error',
          message: `prompts.${key} points to ${resolvePath(baseDir, file)}, which ${found.exists ? 'is a folder, not a file' : found.reason}. Correct the path, or set it to null for the built-in text.`,
          path,
          fixes: [setFix(`Use the built-in text (prompts.${key}: null)`, [[path, null]], true)],
        }),
      );
    }
    return out;
  },
};
