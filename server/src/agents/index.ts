/**
 * The agents that act in an episode: the rule agent with its bounded mutation search
 * (ARCHITECTURE.md §4.9), the model agent with its reply formats (text blocks, or one JSON object
 * under structured output), its fallback and its prompt budget, the OpenAI-compatible model and
 * CGM clients, and the embedded model server a run may start for itself. They know nothing of
 * configs: `launch/` builds them from one.
 */
export type { Agent, AgentDecision, AgentFactory } from './agent.js';
export { RuleAgent, createRuleAgent } from './ruleAgent.js';
export { mutationCandidates, type SourceWindow } from './mutations.js';
export {
  parseActionText,
  parseToolCall,
  parseToolCalls,
  renderAction,
  renderToolCall,
  describeProtocolError,
  stripWrappers,
  type ParseResult,
  type ToolCallInput,
} from './replyFormat.js';
export { plannerTools, actionParametersSchema } from './toolSchemas.js';
export {
  exampleTurns,
  plannerSystemPrompt,
  plannerInstructions,
  textReplyFormat,
  jsonReplyFormat,
  examplesSection,
  assemblePlannerPrompt,
  cgmSystemPrompt,
  cgmUserPrompt,
} from './prompts.js';
export { parseJsonReply, renderJsonReply, jsonReplySchema, responseFormatFor, type StructuredOutput } from './jsonReply.js';
export {
  startEmbeddedModel,
  embeddedModelPaths,
  embeddedModelFile,
  embeddedModelSha256,
  embeddedSetupCommand,
  EmbeddedModelError,
  type EmbeddedModelServer,
  type EmbeddedModelOptions,
} from './embeddedModel.js';
export {
  createChatClient,
  type ChatClient,
  type ChatClientOptions,
  type ChatCompletion,
  type ChatChoice,
  type ToolCall,
  type CompleteOptions,
} from './openaiClient.js';
export { ModelClientError, modelClientErrorCodes, type ModelClientErrorCode } from './retry.js';
export { budgetedObservation, createModelAgent, type ModelAgentOptions } from './modelAgent.js';
export { createCgmHttpModel, createCgmChatModel, cgmGenerateBody, type CgmHttpOptions, type CgmChatOptions } from './cgmClient.js';
export { parseCgmReply, type CgmReplyResult, type CgmReplyOptions } from './cgmReply.js';
