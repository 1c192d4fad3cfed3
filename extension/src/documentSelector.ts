/**
 * Which documents the language client syncs to the server, built from the glob settings. This
 * module does not import `vscode`, so the unit tests can check it directly.
 */
import type { ClientSettings } from './clientSettings.js';

/** A document filter, structurally the one `vscode-languageclient` and `vscode.languages` take. */
export interface PlannerDocumentFilter {
  readonly scheme: 'file';
  readonly language?: 'yaml';
  readonly pattern: string;
}

export type FileKind = 'experiment' | 'dataset';

/**
 * VS Code matches a filter's pattern against the absolute path of a document, so a glob written
 * relative to the workspace (`configs/x.yaml`) would never match. Such globs get a leading `**`
 * segment; globs that already start with `**` or are absolute are kept as they are.
 */
export function normaliseGlob(glob: string): string {
  const trimmed = glob.trim().replace(/\\/g, '/');
  if (trimmed.startsWith('**') || trimmed.startsWith('/') || /^[A-Za-z]:\//.test(trimmed)) return trimmed;
  return `**/${trimmed.replace(/^\.\//, '')}`;
}

function uniqueGlobs(globs: readonly string[]): string[] {
  return [...new Set(globs.map(normaliseGlob))];
}

/** Experiment configs are YAML documents on disk that match one of the experiment globs. */
export function experimentFilters(settings: Pick<ClientSettings, 'experimentGlobs'>): PlannerDocumentFilter[] {
  return uniqueGlobs(settings.experimentGlobs).map((pattern) => ({ scheme: 'file', language: 'yaml', pattern }));
}

/**
 * Datasets are matched by path alone: editors give `.jsonl` files the language `jsonl`, `json` or
 * plain text depending on which extensions are installed, so we do not restrict the language.
 */
export function datasetFilters(settings: Pick<ClientSettings, 'datasetGlobs'>): PlannerDocumentFilter[] {
  return uniqueGlobs(settings.datasetGlobs).map((pattern) => ({ scheme: 'file', pattern }));
}

export function documentSelector(settings: Pick<ClientSettings, 'experimentGlobs' | 'datasetGlobs'>): PlannerDocumentFilter[] {
  return [...experimentFilters(settings), ...datasetFilters(settings)];
}

/**
 * The globs whose file events the server needs: it validates large dataset files from disk, so
 * it must hear when one is created, changed or deleted outside the editor.
 */
export function datasetWatchGlobs(settings: Pick<ClientSettings, 'datasetGlobs'>): string[] {
  return uniqueGlobs(settings.datasetGlobs);
}
