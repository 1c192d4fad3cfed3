/** An episode on the code graph (ARCHITECTURE.md §2): the subgraph it explored, the gold places, the distance to gold per step and localisation recall, for one episode and over a run. */
export { defaultDrawnNodes, episodeCodeGraph, localiseEpisode, maxDrawnNodes, type EpisodeGoldSource, type EpisodeLocalisation } from './codeGraphView.js';
export { runLocalisation, maxScoredEpisodes, type GoldFinder } from './runLocalisation.js';
export type { DefinitionSpan } from './goldNodes.js';
