/**
 * The experiment overview: what a launch of one experiment YAML would actually get (the Verl
 * settings, the GPU layout and the findings). The server sends it as the result of
 * `graphPlanner/experimentOverview` (see `lsp.ts`), the extension passes it on to the overview
 * webview, and the webview validates it before it renders anything.
 *
 * These schemas use `zod/mini` with named imports, unlike the rest of this folder: the extension
 * bundles the webview message schemas (`webview.ts`, which includes this one) to validate what its
 * webview posts, and the mini build tree-shakes to a few kilobytes where the full build adds about
 * 450 KB to the extension's bundle and its activation time.
 */
import { array, boolean, enum as enumOf, int, minimum, nullable, number, object, optional, string, type output } from 'zod/mini';

const count = () => number().check(int(), minimum(0));

/** A zero-based line and character, as LSP and VS Code count them. */
export const overviewPositionSchema = object({ line: count(), character: count() });
export const overviewRangeSchema = object({ start: overviewPositionSchema, end: overviewPositionSchema });
export type OverviewRange = output<typeof overviewRangeSchema>;

/** One config field that reaches Verl/Hydra under another name. */
export const verlSettingSchema = object({
  /** Our dotted key, e.g. `resources.num_gpus`. */
  key: string(),
  /** The Verl/Hydra key it is passed as, e.g. `trainer.n_gpus_per_node`. */
  mapsTo: string(),
  /** The effective value (defaults merged with the file), formatted as YAML flow text. */
  value: string(),
  /**
   * `file` when the document sets it, `default` when it does not, `invalid` when the document sets
   * a value the schema rejects (the default is used in its place).
   */
  source: enumOf(['file', 'default', 'invalid']),
  /** Whether a `verl_overrides` entry sets the same Verl key (or a parent of it) and so wins. */
  overridden: boolean(),
  /** Where the key is written, when the document writes it. */
  range: optional(overviewRangeSchema),
});
export type VerlSetting = output<typeof verlSettingSchema>;

/** One `verl_overrides` leaf, flattened to the dotted Hydra key it sets. */
export const verlOverrideSchema = object({ key: string(), value: string(), range: optional(overviewRangeSchema) });
export type VerlOverride = output<typeof verlOverrideSchema>;

/** Where one model runs. */
export const modelPlacementSchema = object({
  backend: enumOf(['local', 'openai', 'embedded']),
  /** GPU indices on every node, or null when the map is empty and the trainer places the model. */
  deviceMap: nullable(array(count())),
  tensorParallel: count(),
});
export type ModelPlacement = output<typeof modelPlacementSchema>;

/** A budget Ray is given against what the run needs of it. */
export const budgetSchema = object({ have: count(), need: count() });

export const gpuLayoutSchema = object({
  numNodes: count(),
  gpusPerNode: count(),
  planner: modelPlacementSchema,
  cgm: modelPlacementSchema,
  replicas: count(),
  /** GPU indices that both device maps name, when preflight says the models share GPUs (`preflight/shared-devices`). */
  sharedGpus: array(count()),
  /**
   * Whether the two local models must share GPUs although the maps do not say which (a map is
   * empty and planner plus CGM need more GPUs than the run has): preflight's `shared-devices` note
   * with no GPU both maps name.
   */
  sharedByTrainer: boolean(),
  /** Indices the maps name that do not exist on a node (at or above gpusPerNode). */
  missingGpus: array(count()),
  rayGpus: budgetSchema,
  rayCpus: budgetSchema,
});
export type GpuLayout = output<typeof gpuLayoutSchema>;

/**
 * A quick fix the editor offers for a finding (the server's code action for it), named as the
 * light bulb names it. The overview shows it as a button; clicking it asks the editor for its code
 * actions at the finding and applies the one with this title, so the edit is the editor's own.
 */
export const overviewFixSchema = object({
  title: string(),
  /** The fix the editor marks preferred (the one `gp config check --fix` applies). */
  preferred: boolean(),
});
export type OverviewFix = output<typeof overviewFixSchema>;

export const overviewFindingSchema = object({
  code: string(),
  severity: enumOf(['error', 'warning', 'info']),
  message: string(),
  range: overviewRangeSchema,
  /** The quick fixes that apply to the document as it is now; empty when there is none. */
  fixes: array(overviewFixSchema),
});
export type OverviewFinding = output<typeof overviewFindingSchema>;

export const experimentOverviewSchema = object({
  uri: string(),
  /** The document version the overview was computed from, or null when it was read from disk. */
  version: nullable(number()),
  /** False when the document is not a YAML mapping we can read; then only `findings` are filled. */
  parsed: boolean(),
  /** Why the document could not be read, when `parsed` is false. */
  reason: optional(string()),
  settings: array(verlSettingSchema),
  overrides: array(verlOverrideSchema),
  /**
   * The GPU layout; null when the document does not parse, or when its runs use no model or GPU
   * (the rule agent on the local backend, `config/preflight/applicable.ts`), so none is shown.
   */
  gpus: nullable(gpuLayoutSchema),
  findings: array(overviewFindingSchema),
});
export type ExperimentOverview = output<typeof experimentOverviewSchema>;
