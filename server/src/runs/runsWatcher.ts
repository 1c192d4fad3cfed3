/**
 * Watches the run roots for the Runs view: which run folders exist, and what changed in each, read
 * incrementally. A root is watched for folders coming and going; each run folder is watched for
 * its files changing; a change reads `status.json` (small, rewritten whole) and only the bytes
 * appended to `events.jsonl` since the last read (`EventTail`). Changes are debounced per run and
 * reported as summaries. Nothing is watched or read while nobody watches, except the first list.
 *
 * One thing no file reports is a run's process dying without a word (`kill -9`): while watching,
 * the pids of runs that say `running` on this host are checked every few seconds (a signal-0
 * syscall each, no file read), and a dead one turns the run interrupted.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunLaunchRecord } from '../protocol/runs.js';
import type { EpisodeSummary, RunsChanged, RunsListResult, RunSummary } from '../protocol/runsView.js';
import { processAlive } from '../util/processAlive.js';
import { errorMessage } from '../util/errors.js';
import { readRun } from './discover.js';
import { EventTail } from './eventTail.js';
import { readLaunchRecord } from './launchRecord.js';
import { runLayout } from './layout.js';
import { EpisodeFold, summarizeRun } from './runSummary.js';

export type RunsChange = Omit<RunsChanged, 'sentAt'>;

export interface RunsWatcherOptions {
  readonly onChange: (change: RunsChange) => void;
  readonly log?: (message: string) => void;
  /** Quiet time after a file event before the run is read (events come in bursts). */
  readonly debounceMs?: number;
  /** How often the pids of running runs are checked while watching. */
  readonly livenessMs?: number;
}

interface RunEntry {
  readonly dir: string;
  readonly root: string;
  readonly tail: EventTail;
  readonly fold: EpisodeFold;
  eventProblems: string[];
  launch: RunLaunchRecord | undefined;
  launchRead: boolean;
  summary: RunSummary | undefined;
  /** The client asked for this run's episodes, so their changes are pushed. */
  episodesWanted: boolean;
  watcher: FSWatcher | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Refreshes of one run never overlap; a change during one schedules another. */
  busy: Promise<void>;
  /** The pid of the run's process while its status says running on this host. */
  livePid: number | undefined;
}

export class RunsWatcher {
  private roots: string[] = [];
  private readonly runs = new Map<string, RunEntry>();
  /** Episodes changed by the last reads, per run, until they are reported. */
  private readonly pendingEpisodes = new Map<string, EpisodeSummary[]>();
  private readonly rootWatchers = new Map<string, FSWatcher>();
  private watching = false;
  private liveness: NodeJS.Timeout | undefined;
  private readonly debounceMs: number;
  private readonly livenessMs: number;

  constructor(private readonly options: RunsWatcherOptions) {
    this.debounceMs = options.debounceMs ?? 20;
    this.livenessMs = options.livenessMs ?? 3000;
  }

  get isWatching(): boolean {
    return this.watching;
  }

  /** Sets the roots; folders under roots that are gone are forgotten (and reported removed). */
  async setRoots(roots: readonly string[]): Promise<void> {
    const next = [...new Set(roots.map((r) => resolve(r)))];
    if (next.join('\0') === this.roots.join('\0')) return;
    this.roots = next;
    const removed: string[] = [];
    for (const [dir, entry] of this.runs) {
      if (!next.includes(entry.root)) {
        this.forget(entry);
        removed.push(dir);
      }
    }
    if (this.watching) {
      this.unwatchRoots();
      for (const root of next) this.watchRoot(root);
      const changed = await this.scan();
      this.emit(changed, removed);
    } else if (removed.length > 0) {
      this.emit([], removed);
    }
  }

  /** Every run under the roots, read now (status and the events since the last read), newest first. */
  async list(): Promise<RunsListResult> {
    await this.scan();
    const runs = [...this.runs.values()].flatMap((e) => (e.summary === undefined ? [] : [e.summary]));
    runs.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.name.localeCompare(a.name));
    return { roots: this.roots.map((path) => ({ path, exists: existsSync(path) })), runs };
  }

  /** The episodes of one run; their later changes are pushed with the run's. */
  async episodes(dir: string): Promise<{ episodes: EpisodeSummary[]; problem: string | null }> {
    const full = resolve(dir);
    let entry = this.runs.get(full);
    if (entry === undefined) {
      const root = this.roots.find((r) => dirname(full) === r) ?? dirname(full);
      entry = this.entry(full, root);
      await this.refresh(entry);
    }
    entry.episodesWanted = true;
    if (!existsSync(full)) return { episodes: [], problem: `${full} does not exist any more` };
    return { episodes: entry.fold.all(), problem: entry.eventProblems.length === 0 ? null : entry.eventProblems.join('; ') };
  }

  /**
   * One run read now, whether or not anything watches it (a launch's process has just exited, so
   * its end is known before its folder's change would be seen); a change is pushed as any other.
   */
  async reread(dir: string): Promise<RunSummary | undefined> {
    const full = resolve(dir);
    const entry = this.runs.get(full) ?? this.entry(full, this.roots.find((r) => dirname(full) === r) ?? dirname(full));
    await this.refreshAndEmit(entry);
    return entry.summary;
  }

  /** Starts or stops watching. Starting reads what changed while nobody watched. */
  async watch(on: boolean): Promise<void> {
    if (on === this.watching) return;
    this.watching = on;
    if (!on) {
      this.unwatchRoots();
      for (const entry of this.runs.values()) this.unwatchRun(entry);
      if (this.liveness) clearInterval(this.liveness);
      this.liveness = undefined;
      return;
    }
    for (const root of this.roots) this.watchRoot(root);
    for (const entry of this.runs.values()) this.watchRun(entry);
    this.liveness = setInterval(() => this.checkLiveness(), this.livenessMs);
    this.liveness.unref();
    const changed = await this.scan();
    this.emit(changed, []);
  }

  dispose(): void {
    void this.watch(false);
    for (const entry of this.runs.values()) if (entry.timer) clearTimeout(entry.timer);
  }

  /** Reads every folder of every root; returns the summaries that changed. */
  private async scan(): Promise<RunSummary[]> {
    const changed: RunSummary[] = [];
    const seen = new Set<string>();
    for (const root of this.roots) {
      let names: string[];
      try {
        names = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
      } catch {
        continue;
      }
      for (const name of names) {
        const dir = join(root, name);
        seen.add(dir);
        const entry = this.runs.get(dir) ?? this.entry(dir, root);
        const before = entry.summary;
        await this.refresh(entry);
        if (entry.summary !== undefined && entry.summary !== before) changed.push(entry.summary);
      }
    }
    for (const [dir, entry] of this.runs) if (!seen.has(dir) && !existsSync(dir)) this.forget(entry);
    return changed;
  }

  private entry(dir: string, root: string): RunEntry {
    const entry: RunEntry = {
      dir,
      root,
      tail: new EventTail(runLayout(dir).events),
      fold: new EpisodeFold(dir),
      eventProblems: [],
      launch: undefined,
      launchRead: false,
      summary: undefined,
      episodesWanted: false,
      watcher: undefined,
      timer: undefined,
      busy: Promise.resolve(),
      livePid: undefined,
    };
    this.runs.set(dir, entry);
    if (this.watching) this.watchRun(entry);
    return entry;
  }

  /** Reads the run's status and new events; sets `summary` to a new object only when something changed. */
  private refresh(entry: RunEntry): Promise<void> {
    const next = entry.busy.then(async () => {
      const changedEpisodes = await this.readEvents(entry);
      const listing = await readRun(entry.dir);
      if (listing === undefined) {
        entry.summary = undefined;
        return;
      }
      if (!entry.launchRead) {
        const read = await readLaunchRecord(runLayout(entry.dir).launch);
        entry.launch = read.ok ? read.record : undefined;
        // A missing record may still be written by a run that is starting; read it again later.
        entry.launchRead = read.ok || !read.missing || listing.status?.state !== 'running';
      }
      if (listing.stale) changedEpisodes.push(...entry.fold.interruptRunning());
      const status = listing.status;
      entry.livePid = status?.state === 'running' && !listing.stale && status.host === hostname() ? status.pid : undefined;
      const problems = [...entry.eventProblems];
      if (entry.tail.partialBytes > 0 && listing.status !== undefined && listing.status.state !== 'running') {
        problems.push(`events.jsonl ends in ${entry.tail.partialBytes} bytes without a newline (the file was cut off)`);
      }
      const summary = summarizeRun({ listing, root: entry.root, launch: entry.launch, problems, nodes: entry.fold.nodes() });
      if (entry.summary === undefined || JSON.stringify(entry.summary) !== JSON.stringify(summary)) entry.summary = summary;
      this.pendingEpisodes.set(entry.dir, [...(this.pendingEpisodes.get(entry.dir) ?? []), ...changedEpisodes]);
    });
    entry.busy = next.catch((error: unknown) => this.options.log?.(`Reading run ${entry.dir} failed: ${errorMessage(error)}`));
    return entry.busy;
  }

  private async readEvents(entry: RunEntry): Promise<EpisodeSummary[]> {
    const read = await entry.tail.read();
    if (read.restarted) {
      entry.fold.clear();
      entry.eventProblems = [];
    }
    entry.eventProblems.push(...read.problems);
    // Keep the first few problems: a file with thousands of bad lines says so once.
    if (entry.eventProblems.length > 3) entry.eventProblems = [...entry.eventProblems.slice(0, 3), `and more bad lines in events.jsonl`].slice(0, 4);
    return entry.fold.apply(read.events);
  }

  private schedule(entry: RunEntry): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void this.refreshAndEmit(entry);
    }, this.debounceMs);
  }

  private async refreshAndEmit(entry: RunEntry): Promise<void> {
    if (!existsSync(entry.dir)) {
      this.forget(entry);
      this.emit([], [entry.dir]);
      return;
    }
    const before = entry.summary;
    await this.refresh(entry);
    const changed = entry.summary !== undefined && entry.summary !== before ? [entry.summary] : [];
    const removed = before !== undefined && entry.summary === undefined ? [entry.dir] : [];
    this.emit(changed, removed);
  }

  private emit(changed: RunSummary[], removed: string[]): void {
    const episodes: RunsChange['episodes'] = [];
    for (const [dir, eps] of this.pendingEpisodes) {
      const entry = this.runs.get(dir);
      if (entry?.episodesWanted === true && eps.length > 0) episodes.push({ dir, episodes: dedupe(eps) });
    }
    this.pendingEpisodes.clear();
    if (changed.length === 0 && removed.length === 0 && episodes.length === 0) return;
    this.options.onChange({ changed, removed, episodes });
  }

  private forget(entry: RunEntry): void {
    this.unwatchRun(entry);
    if (entry.timer) clearTimeout(entry.timer);
    this.runs.delete(entry.dir);
    this.pendingEpisodes.delete(entry.dir);
  }

  private watchRoot(root: string): void {
    // A root that does not exist yet is watched through its nearest existing ancestor until it does.
    let target = root;
    while (!existsSync(target) && dirname(target) !== target) target = dirname(target);
    try {
      const watcher = watch(target, { persistent: false }, (_event, file) => {
        if (target !== root) {
          if (existsSync(root)) {
            this.rootWatchers.get(root)?.close();
            this.rootWatchers.delete(root);
            this.watchRoot(root);
            void this.scan().then((changed) => this.emit(changed, []));
          }
          return;
        }
        if (file === null) return;
        const dir = join(root, file.toString());
        const entry = this.runs.get(dir) ?? (existsSync(dir) ? this.entry(dir, root) : undefined);
        if (entry !== undefined) this.schedule(entry);
      });
      watcher.on('error', (error) => this.options.log?.(`Watching ${target} failed: ${errorMessage(error)}`));
      this.rootWatchers.set(root, watcher);
    } catch (error) {
      this.options.log?.(`Cannot watch ${target}: ${errorMessage(error)}`);
    }
  }

  private unwatchRoots(): void {
    for (const w of this.rootWatchers.values()) w.close();
    this.rootWatchers.clear();
  }

  private watchRun(entry: RunEntry): void {
    if (entry.watcher !== undefined) return;
    try {
      entry.watcher = watch(entry.dir, { persistent: false }, (_event, file) => {
        if (file !== null && basename(file.toString()) === 'launch.json') entry.launchRead = false;
        this.schedule(entry);
      });
      // The folder was deleted: the root's watcher reports it too, and the refresh forgets the run.
      entry.watcher.on('error', () => this.schedule(entry));
    } catch {
      // The folder vanished between listing and watching; the root's watcher has seen it go.
    }
  }

  private unwatchRun(entry: RunEntry): void {
    entry.watcher?.close();
    entry.watcher = undefined;
  }

  private checkLiveness(): void {
    for (const entry of this.runs.values()) {
      if (entry.livePid !== undefined && !processAlive(entry.livePid)) {
        entry.livePid = undefined;
        this.schedule(entry);
      }
    }
  }
}

function dedupe(episodes: readonly EpisodeSummary[]): EpisodeSummary[] {
  return [...new Map(episodes.map((e) => [e.episodeId, e])).values()];
}
