/** Training: the environment service a trainer's agent loop runs episodes through (more to come: `gp train`, metrics). */
export { EnvService, serviceFileName, type EnvServiceOptions } from './envService.js';
export { EpisodeConflict, ServiceEpisode, type ServiceEpisodeOptions } from './serviceEpisode.js';
