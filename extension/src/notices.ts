/**
 * The sentences we show people after a check (the result of "Check Config", the summary of a
 * dataset validated from disk) and around a run (the notice when it ends, the status bar's live
 * runs). Pure functions, so their wording, severity and buttons are unit-tested.
 */
import type { CheckDocumentResult, DatasetSummary } from '../../server/src/protocol/lsp.js';
import { visibleLine } from '../../server/src/protocol/terminalText.js';
import { runTitle } from './views/runsText.js';
import { count, formatCount } from './countText.js';

export type NoticeSeverity = 'info' | 'warning' | 'error';

export interface Notice {
  readonly severity: NoticeSeverity;
  readonly text: string;
  /** Whether the Problems panel has something to show for this file. */
  readonly hasProblems: boolean;
}

function severityOf(counts: { readonly errors: number; readonly warnings: number }): NoticeSeverity {
  if (counts.errors > 0) return 'error';
  if (counts.warnings > 0) return 'warning';
  return 'info';
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The message for "Check Config"; `file` is the workspace-relative path of the checked file. */
export function checkResultNotice(result: CheckDocumentResult, file: string): Notice {
  const summary = result.summary.trim() === '' ? `${count(result.errors, 'error')}, ${count(result.warnings, 'warning')}` : result.summary.trim();
  const text =
    result.kind === 'other'
      ? `${file} is not an experiment config or dataset that Graph Planner checks (see the graphPlanner.experimentGlobs and graphPlanner.datasetGlobs settings).`
      : `${file}: ${summary}`;
  return { severity: severityOf(result), text, hasProblems: result.errors + result.warnings + result.infos > 0 };
}

/**
 * The message for a dataset file the server read from disk because it is too large to sync. Nobody
 * asked for this check, so problems raise a warning rather than an error dialog.
 */
export function datasetSummaryNotice(summary: DatasetSummary, file: string): Notice {
  const problems = `${count(summary.errors, 'error')}, ${count(summary.warnings, 'warning')}`;
  const text = `Checked ${file} from disk: ${count(summary.tasks, 'task')} on ${count(summary.lines, 'line')}, ${problems} (${duration(summary.durationMs)}).`;
  const hasProblems = summary.errors + summary.warnings > 0;
  return { severity: hasProblems ? 'warning' : 'info', text, hasProblems };
}

/**
 * Remembers which keys were already seen, so a notice is shown once per file per session rather
 * than on every revalidation the server pushes.
 */
export class OncePerKey {
  private readonly seen = new Set<string>();

  /** True the first time a key is passed, false afterwards. */
  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}

/** The buttons a run's end notice may offer; each is shown only where it applies (`runEndNotice`). */
export type RunNoticeAction = 'Go to Error' | 'Open Report' | 'Show Metrics' | 'Show Log' | 'Re-launch' | 'Show Problems';

export interface RunEndNotice {
  readonly severity: NoticeSeverity;
  readonly text: string;
  readonly actions: readonly RunNoticeAction[];
}

/** What a run's end notice needs of its summary (protocol/runsView.ts's RunSummary). */
export interface EndedRun {
  readonly name: string;
  readonly state: 'running' | 'finished' | 'failed' | 'interrupted' | 'unknown';
  readonly kind: string | null;
  readonly episodes: { readonly total: number; readonly finished: number; readonly resolved: number; readonly errored: number } | null;
  readonly exitReason: string | null;
  readonly problem: string | null;
  readonly hasReport: boolean;
  readonly hasMetrics: boolean;
  readonly hasLog: boolean;
  readonly relaunchable: boolean;
}

/** The place the first error of a launch's output names (protocol/launch.ts's LogError); a null file names none. */
export interface ErrorPlace {
  readonly file: string | null;
}

/** A reason from a run's files, on one line with its control characters shown, cut to a notice's length. */
function reasonText(reason: string): string {
  const line = visibleLine(reason.replace(/\s+/g, ' ').trim());
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

/**
 * The notice when a run ends, under its one name (`runTitle`: `Rollout sample 17:47:35 finished:
 * 7 of 10 resolved`, `Training … failed: <reason>`), and the buttons that apply to it: the place of
 * the first error of its output when its process was followed and the error names one (issue 37),
 * its report or metrics when it wrote them, its log, a re-launch when it recorded how it was
 * launched, and the Problems panel when it failed with no episode that ended without an error and
 * no error place to go to (the config or the tasks are then the likely cause).
 */
export function runEndNotice(run: EndedRun, now: number, error: ErrorPlace | null = null): RunEndNotice {
  const episodes = run.episodes;
  const name = runTitle(run, now);
  const actions: RunNoticeAction[] = [];
  const placed = error !== null && error.file !== null;
  if (placed) actions.push('Go to Error');
  if (run.hasReport) actions.push('Open Report');
  if (run.hasMetrics) actions.push('Show Metrics');
  if (run.hasLog) actions.push('Show Log');
  if (run.relaunchable) actions.push('Re-launch');
  // Every episode that ended, ended with an error (or none did): the config or the tasks are the likely cause.
  if (run.state === 'failed' && !placed && (episodes === null || episodes.errored === episodes.finished)) actions.push('Show Problems');
  if (run.state === 'finished') {
    const outcome =
      episodes === null || episodes.total === 0
        ? ''
        : `: ${formatCount(episodes.resolved)} of ${formatCount(episodes.total)} resolved${episodes.errored > 0 ? `, ${formatCount(episodes.errored)} errored` : ''}`;
    return { severity: 'info', text: `${name} finished${outcome}`, actions };
  }
  const reason = run.exitReason ?? run.problem;
  // No episode was planned: the process stopped before its run began (a task file with no valid line).
  const done =
    episodes === null ? '' : episodes.total === 0 ? ' before it started' : ` after ${formatCount(episodes.finished)} of ${count(episodes.total, 'episode')}`;
  if (run.state === 'interrupted')
    return { severity: 'warning', text: `${name} was interrupted${done}${reason === null ? '' : `: ${reasonText(reason)}`}`, actions };
  return {
    severity: 'error',
    text: `${name} failed${done}: ${reason === null ? 'it gave no reason; its log says what happened' : reasonText(reason)}`,
    actions,
  };
}

/** The status bar's words for the live runs: `$(sync~spin) 2 runs`, with their names in the tooltip. */
export function liveRunsStatus(names: readonly string[]): { readonly text: string; readonly tooltip: string } | undefined {
  if (names.length === 0) return undefined;
  const shown = names.slice(0, 8).map((n) => `• ${visibleLine(n)}`);
  const more = names.length > 8 ? [`… and ${names.length - 8} more`] : [];
  return {
    text: `$(sync~spin) ${names.length === 1 ? '1 run' : `${formatCount(names.length)} runs`}`,
    tooltip: [`Graph Planner: ${count(names.length, 'run')} running (click to show the Runs view)`, ...shown, ...more].join('\n'),
  };
}
