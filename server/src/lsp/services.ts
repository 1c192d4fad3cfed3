/**
 * What the language server needs from the engine. `main.ts` builds these from `config/` and
 * `tasks/` and hands them to `startServer`; tests may hand in doubles (a slow disk check, a
 * counting parser) without touching the engine.
 */
import type { ConfigCheck, ExperimentConfig, OffThreadResult, YamlSource } from '../config/index.js';
import type { Finding, LaunchPlanResult, LaunchSpec, LogError } from '../protocol/index.js';
import type { FileOptions, JsonlReport, LineResult } from '../tasks/index.js';
import type { GoldFinder } from '../graphView/index.js';
import type { DockerEngineView } from '../sandbox/index.js';

export interface ConfigServices {
  /** Checks an experiment YAML text; `previous` is the last version's source, patched when only a scalar changed. */
  readonly check: (text: string, previous?: YamlSource) => ConfigCheck;
  /** The rules that read the disk (dataset and model paths, model `config.json` files); slow. */
  readonly checkDisk: (config: ExperimentConfig, baseDir: string) => Promise<readonly Finding[]>;
  /** The merged config as the YAML a run would write. */
  readonly render: (config: ExperimentConfig) => string;
  /**
   * The check of a large text, disk rules included when asked, on another thread, so the server
   * keeps answering meanwhile (config/checkWorker.ts); `key` names the document, whose older waiting
   * text a newer one replaces. Absent: every text is checked on the main thread.
   */
  readonly checkOffThread?: (key: string, text: string, options: { disk: boolean; baseDir: string }) => Promise<OffThreadResult>;
}

export interface DatasetServices {
  /** Validates one dataset line on its own; cross-line rules (duplicate ids) are the caller's. */
  readonly validateLine: (line: string) => LineResult;
  /** Validates a dataset file from disk as a stream; rejects when it cannot be read. */
  readonly validateFile: (path: string, options: FileOptions) => Promise<JsonlReport>;
}

/** A planned launch: the protocol's plan plus the `gp` command it runs. */
export interface PlannedLaunch extends LaunchPlanResult {
  readonly command: 'rollout' | 'eval' | 'dataset verify' | 'train';
}

/** How a launched process ended, and what its exit left in the run folder (launch/launchExit.ts). */
export interface LaunchEnd {
  readonly code: number | null;
  readonly signal: string | null;
  /** When it exited (ms since the epoch). */
  readonly at: number;
  /** The run wrote its own end; false when the server wrote its failure. */
  readonly reported: boolean;
  readonly error: LogError | null;
}

export interface LaunchServices {
  /** The command line and preflight of a launch (`launch/launchPlan.ts`); starts nothing. */
  readonly plan: (spec: LaunchSpec) => Promise<PlannedLaunch>;
  /** Starts a planned launch as a detached `gp` process writing the run's `run.log`; `ended` settles when it exits. */
  readonly start: (plan: PlannedLaunch) => Promise<{ readonly pid: number; readonly logFile: string; readonly ended: Promise<LaunchEnd> }>;
}

export interface CodeGraphServices {
  /**
   * Finds an episode's task, gold patch, repository and parser (launch/episodeGold.ts). A new finder
   * per request, so a task file or predictions file edited since is read afresh.
   */
  readonly goldFinder: () => GoldFinder;
}

export interface ServerServices {
  readonly config: ConfigServices;
  readonly datasets: DatasetServices;
  /** Reads a document that is not open in the editor; throws when it cannot be read. */
  readonly readText: (path: string) => string;
  /** Launching runs; absent in servers built without the engine's launcher (some tests). */
  readonly launch?: LaunchServices;
  /** The code-graph view's gold lookup; absent, episodes are shown without gold (some tests). */
  readonly codeGraph?: CodeGraphServices;
  /**
   * The Docker engine the preflight of tasks asks about images (one view per request); absent, the
   * engine at DOCKER_HOST or the default socket (`sandbox/openSandbox.ts`'s `liveEngine`).
   */
  readonly dockerEngine?: () => DockerEngineView;
}
