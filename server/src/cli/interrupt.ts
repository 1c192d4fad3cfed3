/**
 * The one shape of Ctrl-C in `gp`: the first SIGINT (or SIGTERM) aborts an AbortSignal and calls
 * `onFirst`, so the command stops starting work and cleans up on its own (staged outputs removed,
 * sandboxes closed); the second calls `onForce` (bounded cleanup that must not be skipped, such as
 * removing containers) and exits at once with 128 + the signal number (130 for SIGINT). Commands
 * never touch `process.on('SIGINT')` themselves; they take the signal (and register cleanup) here.
 */

/** The part of `process` this module uses, so tests can send signals without sending them. */
export interface SignalSource {
  on(event: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  removeListener(event: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

export interface InterruptOptions {
  /** Called once, on the first signal, after the signal is aborted (print what happens next). */
  readonly onFirst?: () => void;
  /** Called on the second signal before the exit; it should finish within a few seconds. */
  readonly onForce?: () => Promise<void>;
  /** Defaults to `process`. */
  readonly source?: SignalSource;
  /** Defaults to `process.exit`. */
  readonly exit?: (code: number) => void;
  /** How long `onForce` may take before the exit happens anyway; default 10 s. */
  readonly forceTimeoutMs?: number;
}

export interface Interrupt {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** Removes the handlers; call it when the command ends, so a later Ctrl-C kills as usual. */
  dispose(): void;
}

const exitCodes = { SIGINT: 130, SIGTERM: 143 } as const;

/** Installs the handlers; see the module comment for what the first and the second signal do. */
export function installInterrupt(options: InterruptOptions = {}): Interrupt {
  const source = options.source ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  let count = 0;
  const handle = (name: keyof typeof exitCodes) => {
    count += 1;
    if (count === 1) {
      controller.abort();
      options.onFirst?.();
      return;
    }
    if (count > 2) return;
    const cleanup = options.onForce?.() ?? Promise.resolve();
    const deadline = new Promise<void>((done) => setTimeout(done, options.forceTimeoutMs ?? 10_000).unref());
    void Promise.race([cleanup.catch(() => undefined), deadline]).finally(() => exit(exitCodes[name]));
  };
  const onInt = () => handle('SIGINT');
  const onTerm = () => handle('SIGTERM');
  source.on('SIGINT', onInt);
  source.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    dispose: () => {
      source.removeListener('SIGINT', onInt);
      source.removeListener('SIGTERM', onTerm);
    },
  };
}
