/**
 * The model servers a run starts for itself: with `backends.planner_backend: embedded` (and no
 * planner_endpoint) for a model agent, or `cgm_backend: embedded` (and no cgm_endpoint), one
 * embedded server (agents/embeddedModel.ts) serves both for the run and is stopped when it ends.
 * Any other backend is an endpoint the person runs, used as it is.
 */
import { startEmbeddedModel, type EmbeddedModelServer } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import { agentUsesModel } from '../protocol/agentNames.js';

/** An endpoint a run's agent or patch model calls, with its model name and key. */
export interface ServedEndpoint {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string;
}

export interface ModelServers {
  readonly planner?: ServedEndpoint;
  readonly cgm?: ServedEndpoint;
  /** The embedded server when one was started (for the command's output). */
  readonly embedded?: EmbeddedModelServer;
  close(): Promise<void>;
}

/** Which roles the embedded server must serve for this config, before anything starts. */
export function embeddedRoles(config: ExperimentConfig): { planner: boolean; cgm: boolean } {
  const b = config.backends;
  return {
    planner: agentUsesModel(config.rollout.agent) && b.planner_backend === 'embedded' && b.planner_endpoint === null,
    cgm: b.cgm_backend === 'embedded' && b.cgm_endpoint === null,
  };
}

export async function startModelServers(
  config: ExperimentConfig,
  options: { env?: NodeJS.ProcessEnv; onUnexpectedExit?: (message: string) => void } = {},
): Promise<ModelServers> {
  const roles = embeddedRoles(config);
  if (!roles.planner && !roles.cgm) return { close: () => Promise.resolve() };
  const b = config.backends;
  const server = await startEmbeddedModel({
    ...(b.embedded_model === null ? {} : { model: b.embedded_model }),
    contextSize: b.embedded_context_size,
    ...(b.embedded_threads === null ? {} : { threads: b.embedded_threads }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.onUnexpectedExit === undefined ? {} : { onUnexpectedExit: options.onUnexpectedExit }),
  });
  const endpoint: ServedEndpoint = { baseUrl: server.baseUrl, model: server.model, apiKey: server.apiKey };
  return {
    ...(roles.planner ? { planner: endpoint } : {}),
    ...(roles.cgm ? { cgm: endpoint } : {}),
    embedded: server,
    close: () => server.close(),
  };
}

/** One line saying what the embedded server is, for a command's output. */
export function embeddedLine(server: EmbeddedModelServer): string {
  return `embedded model: ${server.model} (${server.modelPath}, sha256 ${server.sha256.slice(0, 12)}…) on ${server.baseUrl}, context ${server.contextSize} tokens`;
}
