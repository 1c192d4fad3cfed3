/** GRPO groups (ARCHITECTURE.md §2): a run's episodes by task, group and step, a group's rollouts aligned, with Verl's advantages, as the group view's answer. */
export { RunEpisodeIndex, resolveGroup, type IndexedEpisode, type ResolvedGroup } from './episodeGroups.js';
export { countedMembers, grpoAdvantages, grpoEpsilon, realOutcomeAdvantages, type GroupAdvantages } from './groupAdvantage.js';
export { alignGroup, firstDivergence, type GroupAlignedRow } from './groupAlign.js';
export { buildGroupView, maxGroupColumns, type AdvantageSettings } from './groupView.js';
