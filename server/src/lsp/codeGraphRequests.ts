/**
 * The code-graph view's requests (declared in `protocol/codeGraphView.ts`): an episode's explored
 * subgraph with its gold nodes, laid out, and a run's localisation recall for its metrics page.
 * Both read the trajectories afresh (a view is a snapshot; the view asks again when the episode
 * changes); the task's gold comes through the engine service `main.ts` hands in.
 */
import {
  episodeCodeGraphParamsSchema,
  episodeCodeGraphRequest,
  runLocalisationParamsSchema,
  runLocalisationRequest,
  type EpisodeCodeGraphResult,
  type RunLocalisationResult,
} from '../protocol/codeGraphView.js';
import { buildEpisodeModel } from '../episodes/index.js';
import { episodeCodeGraph, runLocalisation, type GoldFinder } from '../graphView/index.js';
import { readTrajectory } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import type { ServerContext } from './context.js';

/** Without the engine's lookup (some tests), episodes are shown without gold, and say so. */
const noGold: GoldFinder = () => Promise.resolve({ patch: undefined, source: null, note: 'This server cannot look up gold patches.' });

export function registerCodeGraphRequests(server: ServerContext): void {
  const { connection } = server;
  const finder = (): GoldFinder => server.services.codeGraph?.goldFinder() ?? noGold;

  connection.onRequest(episodeCodeGraphRequest, async (raw: unknown): Promise<EpisodeCodeGraphResult> => {
    const { path, limit } = episodeCodeGraphParamsSchema.parse(raw);
    try {
      const started = performance.now();
      const read = await readTrajectory(path);
      if (read === undefined) return { ok: false, message: `${path} does not exist any more.` };
      const model = buildEpisodeModel(read);
      const graph = await episodeCodeGraph(path, model, await finder()(path, read.start), limit);
      const ms = performance.now() - started;
      // Each build is logged: it is what a person waits for when the view opens, and the benchmark reads it.
      connection.console.log(`Code graph: ${graph.nodes.length} nodes of ${path} in ${ms.toFixed(0)} ms.`);
      return { ok: true, graph };
    } catch (error) {
      return { ok: false, message: `The code graph of ${path} cannot be built: ${errorMessage(error)}` };
    }
  });

  connection.onRequest(runLocalisationRequest, async (raw: unknown): Promise<RunLocalisationResult> => {
    const { dir } = runLocalisationParamsSchema.parse(raw);
    return runLocalisation(dir, finder());
  });
}
