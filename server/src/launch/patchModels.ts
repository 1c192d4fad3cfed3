/**
 * The patch models as the registry (`agentRegistry.ts`) holds them: CGM's own JSON body posted to
 * `backends.cgm_endpoint` (`generate`), or CGM through OpenAI-compatible chat completions under it
 * (`chat`), which the run's embedded server also speaks. A new patch model is its client in
 * `agents/` (as `cgmClient.ts`), its entry here and one line in `builtInPatchModels`.
 */
import { createCgmChatModel, createCgmHttpModel, createChatClient } from '../agents/index.js';
import type { PatchModelKind } from './agentRegistry.js';

/** CGM's own JSON body, posted to the endpoint URL. */
export const cgmGenerateKind: PatchModelKind = {
  name: 'generate',
  build: ({ backends, cgm_generation: generation }, endpoint) =>
    createCgmHttpModel({
      endpoint: endpoint.baseUrl,
      ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
      model: endpoint.model,
      temperature: generation.temperature,
      maxTokens: generation.max_new_tokens,
      timeoutMs: backends.request_timeout * 1000,
      retries: backends.request_retries,
    }),
};

/** CGM through chat completions, asked for `num_return_sequences` candidates. */
export const cgmChatKind: PatchModelKind = {
  name: 'chat',
  build({ backends, cgm_generation: generation }, endpoint) {
    const client = createChatClient({
      baseUrl: endpoint.baseUrl,
      model: endpoint.model,
      ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
      temperature: generation.temperature,
      topP: generation.top_p,
      maxTokens: generation.max_new_tokens,
      timeoutMs: backends.request_timeout * 1000,
      retries: backends.request_retries,
      backoffMs: 500,
    });
    // The embedded model is small: structured output holds its replies to the patch schema.
    return createCgmChatModel({ client, n: generation.num_return_sequences, ...(endpoint.embedded ? { structuredOutput: 'json_object' as const } : {}) });
  },
};
