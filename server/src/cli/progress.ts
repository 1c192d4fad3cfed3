/**
 * Rollout progress on stderr. On a terminal: one line redrawn in place (a bar, done/total,
 * resolved, running, elapsed, ETA), with each finished episode printed above it. Elsewhere (a log
 * file, CI, a pipe): one plain line per finished episode, so the log reads as a record.
 */
import type { TrajectoryEnd } from '../protocol/runs.js';
import type { BackendFallback } from '../protocol/backendChoice.js';
import { episodeName } from '../protocol/episodeName.js';
import { visibleLine } from '../protocol/terminalText.js';
import { failureReason, type EpisodeResult, type EpisodeSpec, type RolloutObserver } from '../rollout/index.js';
import { fallbackNotice } from './rolloutSummary.js';

export interface ProgressSink {
  readonly isTTY: boolean;
  /** Terminal width; 80 when unknown. */
  readonly columns?: number;
  /** Writes text as it is (no newline added). */
  write(text: string): void;
}

/**
 * A redrawn progress line on `stream` when it is a terminal; undefined otherwise, and the caller
 * prints plain progress lines instead. The width is read at each redraw, so a resized terminal gets
 * a bar that fits.
 */
export function terminalProgressSink(stream: NodeJS.WriteStream): ProgressSink | undefined {
  if (!stream.isTTY) return undefined;
  return {
    isTTY: true,
    get columns() {
      return stream.columns > 0 ? stream.columns : 80;
    },
    write: (t: string) => void stream.write(t),
  };
}

export interface ProgressState {
  readonly total: number;
  /** Finished, earlier processes' included. */
  readonly done: number;
  /** Finished by this process (the rate for the ETA comes from these). */
  readonly doneHere: number;
  readonly resolved: number;
  readonly running: number;
  readonly elapsedMs: number;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Time left at the rate of the episodes this process finished; undefined before the first. */
export function eta(state: ProgressState): number | undefined {
  if (state.doneHere === 0) return undefined;
  return (state.elapsedMs / state.doneHere) * (state.total - state.done);
}

/** `[#####-----]` for a fraction in [0, 1], `width` characters inside the brackets. */
export function bar(fraction: number, width = 24): string {
  const filled = Math.max(0, Math.min(width, Math.round(width * fraction)));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** The progress line, at most `width - 1` characters (a full-width line would wrap on some terminals). */
export function renderBar(state: ProgressState, width: number): string {
  const left = eta(state);
  const text = ` ${state.done}/${state.total} · ${state.resolved} resolved · ${state.running} running · ${formatDuration(state.elapsedMs)} elapsed · ETA ${left === undefined ? '?' : formatDuration(left)}`;
  const barWidth = Math.max(0, Math.min(30, width - 1 - text.length - 2));
  const drawn = barWidth > 0 ? bar(state.total === 0 ? 1 : state.done / state.total, barWidth) : '';
  return `${drawn}${text}`.slice(0, Math.max(0, width - 1));
}

/** `[3/7] sample-x resolved in 4 steps, 12.3 s`, or why it was not. */
export function renderFinished(done: number, total: number, end: TrajectoryEnd): string {
  const time = `${(end.duration_ms / 1000).toFixed(1)} s`;
  // The episode's one name, as the Runs view, the viewer's tab and the Compare picker give it.
  const name = episodeName({ episodeId: end.episode_id, taskId: end.task_id });
  if (end.termination_reason === 'interrupted') return `${name} interrupted after ${end.steps} steps, ${time}; it runs again on resume`;
  const head = `[${done}/${total}] ${name}`;
  if (end.resolved) return `${head} resolved in ${end.steps} steps, ${time}`;
  return `${head} not resolved (${end.termination_reason}) in ${end.steps} steps, ${time}: ${failureReason(end) ?? ''}`;
}

const clearLine = '\r\x1b[2K';

export class RolloutProgress implements RolloutObserver {
  private total = 0;
  private done = 0;
  private doneHere = 0;
  private resolved = 0;
  private running = 0;
  private readonly started: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: ProgressSink,
    private readonly now: () => number = () => Date.now(),
    private readonly redrawMs = 1000,
  ) {
    this.started = now();
  }

  state(): ProgressState {
    return {
      total: this.total,
      done: this.done,
      doneHere: this.doneHere,
      resolved: this.resolved,
      running: this.running,
      elapsedMs: this.now() - this.started,
    };
  }

  runStarted(info: { total: number; alreadyFinished: number }): void {
    this.total = info.total;
    this.done = info.alreadyFinished;
    if (info.alreadyFinished === info.total && info.total > 0) this.line(`Every episode of this run (${info.total}) had already finished; nothing to run.`);
    else if (info.alreadyFinished > 0) this.line(`${info.alreadyFinished} of ${info.total} episodes already finished in this run; running the rest.`);
    if (this.sink.isTTY) {
      this.redraw();
      this.timer = setInterval(() => this.redraw(), this.redrawMs);
      this.timer.unref();
    }
  }

  episodeStarted(_spec: EpisodeSpec): void {
    this.running += 1;
    this.redraw();
  }

  episodeFinished(_spec: EpisodeSpec, result: EpisodeResult): void {
    this.running -= 1;
    if (result.end.termination_reason !== 'interrupted') {
      this.done += 1;
      this.doneHere += 1;
      if (result.end.resolved) this.resolved += 1;
    }
    this.line(renderFinished(this.done, this.total, result.end));
  }

  backendFallback(fallback: BackendFallback): void {
    this.line(fallbackNotice(fallback));
  }

  /** Stops redrawing and leaves the terminal on a fresh line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.sink.isTTY) this.sink.write(clearLine);
  }

  private line(raw: string): void {
    // The progress sink writes to the terminal itself, past the CLI's io: the line holds episode ids.
    const text = visibleLine(raw);
    if (this.sink.isTTY) {
      this.sink.write(`${clearLine}${text}\n`);
      this.redraw();
    } else this.sink.write(`${text}\n`);
  }

  private redraw(): void {
    if (!this.sink.isTTY) return;
    this.sink.write(`${clearLine}${renderBar(this.state(), this.sink.columns ?? 80)}`);
  }
}
