/**
 * One owner per run folder. `gp rollout`, `gp eval` and `gp train` take `<run>/run.lock` before
 * they write anything else into the folder: the file is created exclusively (so of two launches at
 * the same moment exactly one gets it) and holds the owner's pid, host, start time and command. A
 * lock is broken only when its owner is provably gone: same host, and no process with that pid (or
 * a process with that pid that started later, so a reused pid is not mistaken for the owner). A
 * lock from another host, or one that cannot be read, is never broken: the message says whose it
 * is and how to remove it by hand.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { runLockRecordSchema as lockRecordSchema, type RunLockRecord } from '../protocol/runs.js';
import { processAlive } from '../util/processAlive.js';
import { isoTimestamp } from '../util/time.js';

export type RunLockResult =
  | { readonly ok: true; readonly lock: RunLock; readonly broke: RunLockRecord | undefined }
  | { readonly ok: false; readonly owner: RunLockRecord | undefined; readonly message: string };

/** The kernel's start time of a process, which a reused pid does not share; undefined off Linux. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; the fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner is gone for certain: on this host, and its process ended. */
export function ownerGone(owner: RunLockRecord, here = hostname()): boolean {
  if (owner.host !== here) return false;
  if (!processAlive(owner.pid)) return true;
  const start = processStart(owner.pid);
  return owner.process_start !== undefined && start !== undefined && start !== owner.process_start;
}

async function readRecord(path: string): Promise<RunLockRecord | undefined | 'missing'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return undefined;
  }
  try {
    const parsed = lockRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function busyMessage(path: string, owner: RunLockRecord | undefined): string {
  if (owner === undefined) return `${path} exists but cannot be read as a lock; if no gp process is using this run folder, remove the file and launch again.`;
  const where = owner.host === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.host}`;
  return `the run folder is in use by ${where} (\`${owner.command}\`, since ${owner.locked_at}); wait for it, stop it, or choose another run folder. If that process is gone, remove ${path}.`;
}

export class RunLock {
  private released = false;

  private constructor(
    readonly path: string,
    readonly record: RunLockRecord,
  ) {}

  /**
   * Takes the lock for this process. The record is written to a private file first and then
   * linked to the lock's name, which fails if the name exists: the lock appears whole or not at all.
   */
  static async acquire(path: string, command: string): Promise<RunLockResult> {
    const start = processStart(process.pid);
    const record: RunLockRecord = {
      pid: process.pid,
      host: hostname(),
      ...(start === undefined ? {} : { process_start: start }),
      command,
      locked_at: isoTimestamp(new Date()),
      nonce: randomBytes(8).toString('hex'),
    };
    const draft = `${path}.${process.pid}.${record.nonce}.tmp`;
    await writeFile(draft, `${JSON.stringify(record)}\n`, { mode: 0o644 });
    let broke: RunLockRecord | undefined;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await link(draft, path);
          return { ok: true, lock: new RunLock(path, record), broke };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const owner = await readRecord(path);
        if (owner === 'missing') continue;
        if (owner === undefined || !ownerGone(owner)) return { ok: false, owner, message: busyMessage(path, owner) };
        if (await breakStale(path, owner)) broke = owner;
      }
      return { ok: false, owner: undefined, message: `${path} kept changing while it was being taken; another launch is racing this one. Launch again.` };
    } finally {
      await rm(draft, { force: true });
    }
  }

  /** Removes the lock if it is still this process's own. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const current = await readRecord(this.path);
    if (current !== 'missing' && current?.nonce === this.record.nonce) await rm(this.path, { force: true });
  }
}

/**
 * Moves a dead owner's lock aside, then checks that what moved is the lock judged dead. Another
 * launch may have broken it and taken a new one in between: that one is put back (a link, which
 * fails if yet another took the name) and this launch tries again from the start.
 */
async function breakStale(path: string, dead: RunLockRecord): Promise<boolean> {
  const aside = `${path}.broken.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = await readRecord(aside);
  if (moved !== 'missing' && moved?.nonce === dead.nonce) {
    await rm(aside, { force: true });
    return true;
  }
  await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
  return false;
}
