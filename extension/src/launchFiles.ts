/**
 * The globs a launch looks for experiment configs and datasets with: the same settings that choose
 * which documents the server checks, normalised as the document selector normalises them.
 */
import { normaliseGlob } from './documentSelector.js';
import { currentSettings } from './readClientSettings.js';

export function documentSelectorGlobs(kind: 'experiment' | 'dataset'): string[] {
  const settings = currentSettings();
  return (kind === 'experiment' ? settings.experimentGlobs : settings.datasetGlobs).map(normaliseGlob);
}
