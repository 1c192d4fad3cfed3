/**
 * Checking a large experiment YAML on a thread of its own. Parsing is one synchronous call (about
 * 0.6 s for 1 MB), and the language server answers every other request on its main thread: while a
 * big file is checked there, hovers and completions in other files would wait (issue 21). So the
 * server hands texts over `offThreadBytes` to this worker and publishes what comes back.
 *
 * One worker per server, one check at a time; a newer text of the same document replaces one still
 * waiting (its caller gets `superseded`), so a burst of edits costs one check, not a backlog.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LocatedFinding } from './check.js';

/** Texts at least this long are checked off the main thread. */
export const offThreadBytes = 256 * 1024;

export interface CheckRequest {
  readonly id: number;
  readonly text: string;
  /** Whether to run the disk rules too (`graphPlanner.preflightDiskChecks`). */
  readonly disk: boolean;
  /** The folder relative paths of the config resolve against. */
  readonly baseDir: string;
}

export type CheckReply =
  { readonly id: number; readonly ok: true; readonly findings: LocatedFinding[] } | { readonly id: number; readonly ok: false; readonly message: string };

export type OffThreadResult = { readonly kind: 'checked'; readonly findings: LocatedFinding[] } | { readonly kind: 'superseded' };

interface Waiting {
  readonly request: CheckRequest;
  readonly key: string;
  readonly settle: (result: OffThreadResult | Error) => void;
}

/**
 * The worker: the bundle's script beside this one (`dist/configCheckWorker.js`, scripts/build.mjs),
 * or, run from source (the tests), the TypeScript file beside this one loaded through tsx, which a
 * worker does not inherit from `node --import tsx`.
 */
function startWorker(): Worker {
  const bundled = join(__dirname, 'configCheckWorker.js');
  if (existsSync(bundled)) return new Worker(bundled);
  const source = join(__dirname, 'checkWorkerMain.ts');
  return new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(source)});`, { eval: true });
}

export class ConfigCheckWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private running: Waiting | undefined;
  /** At most one waiting check per document. */
  private readonly queue = new Map<string, Waiting>();

  /** Checks `text` of the document `key`; `superseded` when a newer text of it came first. */
  check(key: string, text: string, options: { disk: boolean; baseDir: string }): Promise<OffThreadResult> {
    return new Promise<OffThreadResult>((resolve, reject) => {
      const request: CheckRequest = { id: this.nextId++, text, ...options };
      this.queue.get(key)?.settle({ kind: 'superseded' });
      this.queue.set(key, { request, key, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
      this.pump();
    });
  }

  /** Starts the next waiting check. The worker holds the process open only while it checks. */
  private pump(): void {
    if (this.running !== undefined) return;
    const next = this.queue.values().next();
    if (next.done === true) {
      this.worker?.unref();
      return;
    }
    const waiting = next.value;
    this.queue.delete(waiting.key);
    this.running = waiting;
    const worker = this.ensureWorker();
    worker.ref();
    worker.postMessage(waiting.request);
  }

  private ensureWorker(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startWorker();
    worker.on('message', (reply: CheckReply) => {
      const waiting = this.running;
      if (waiting === undefined || waiting.request.id !== reply.id) return;
      this.running = undefined;
      waiting.settle(reply.ok ? { kind: 'checked', findings: reply.findings } : new Error(reply.message));
      this.pump();
    });
    // A worker that dies takes its check with it; the next check starts a new one.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      const waiting = this.running;
      this.running = undefined;
      waiting?.settle(error);
      this.pump();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker && code !== 0) fail(new Error(`the config check worker exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }
}
