/**
 * Watches the trajectories viewers have open and says when one changed: appended to by a running
 * episode, or replaced by a resumed one (an atomic rename, so the folder is watched, not the file's
 * inode). Bursts of events become one call per file within `delayMs`. Several viewers of one file
 * share its watch, each counted once by its id; the last to let go ends it.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

interface Watched {
  readonly watcher: FSWatcher;
  /** The viewers holding the watch; holding twice is holding once. */
  readonly holders: Set<string>;
  timer: NodeJS.Timeout | undefined;
}

export class EpisodeWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly onChange: (path: string) => void,
    private readonly delayMs = 30,
  ) {}

  /** Starts watching `path` for `holder` (once however often it asks); false when its folder cannot be watched. */
  hold(path: string, holder: string): boolean {
    const known = this.watched.get(path);
    if (known !== undefined) {
      known.holders.add(holder);
      return true;
    }
    const name = basename(path);
    let watcher: FSWatcher;
    try {
      watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file !== null && file.toString() !== name) return;
        const entry = this.watched.get(path);
        if (entry === undefined) return;
        clearTimeout(entry.timer);
        entry.timer = setTimeout(() => this.onChange(path), this.delayMs);
      });
    } catch {
      return false;
    }
    // A folder deleted under the watch ends it; the viewer says the file is gone when it next reads.
    watcher.on('error', () => this.drop(path));
    this.watched.set(path, { watcher, holders: new Set([holder]), timer: undefined });
    return true;
  }

  /** `holder` lets go; returns how many holders are left (0: the watch ended). */
  release(path: string, holder: string): number {
    const entry = this.watched.get(path);
    if (entry === undefined) return 0;
    entry.holders.delete(holder);
    if (entry.holders.size > 0) return entry.holders.size;
    this.drop(path);
    return 0;
  }

  watching(path: string): boolean {
    return this.watched.has(path);
  }

  dispose(): void {
    for (const path of [...this.watched.keys()]) this.drop(path);
  }

  private drop(path: string): void {
    const entry = this.watched.get(path);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    entry.watcher.close();
    this.watched.delete(path);
  }
}
