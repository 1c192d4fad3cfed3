/**
 * Starting a job (the trainer, the sandbox hosts, a pre-pull) and watching it end, in one of two
 * places: a local child process in its own process group, or a Ray job submitted through the Jobs
 * REST API. Either way the caller gets its log lines as they come, a way to stop it, and how it
 * ended. Neither runs anything of ours in between: the trainer is Verl's, the scheduler Ray's.
 */
import { spawn } from 'node:child_process';
import { terminalRayJobStatuses } from '../protocol/rayJobs.js';
import { errorMessage } from '../util/errors.js';
import type { RayJobsClient } from './rayJobs.js';

/** A command line for a shell (a Ray job's entrypoint): words quoted where a shell would split or expand them. */
export function shellCommand(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The Ray submission id of a run's job: derived from the run, so a retried submission finds its job. */
export function raySubmissionId(runName: string, suffix: string): string {
  return `gp-${runName}-${suffix}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

export interface TrainerEnd {
  readonly ok: boolean;
  /** How it ended, in words: `exit code 0`, `Ray job SUCCEEDED`, `killed by SIGTERM`. */
  readonly reason: string;
}

export interface TrainerHandle {
  /** Where it runs, for the log: `local process 1234`, `Ray job gp-run-1 on http://…`. */
  readonly where: string;
  readonly ended: Promise<TrainerEnd>;
  /** Asks it to stop (SIGTERM, or Ray's stop) and waits until it has; SIGKILL after `graceMs` locally. */
  stop(graceMs?: number): Promise<void>;
}

export interface LocalLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /**
   * The command is our trainer environment's Python: it runs under `graph_planner_verl.lifeline`,
   * which ends the whole group when this process's pipe to it closes, so a `gp train` killed
   * outright (SIGKILL) does not leave its trainer running.
   */
  readonly lifeline?: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly onLine: (line: string) => void;
}

function splitLines(onLine: (line: string) => void): { push(chunk: string): void; flush(): void } {
  let pending = '';
  return {
    push(chunk) {
      const lines = (pending + chunk).split(/\r?\n/);
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    },
    flush() {
      if (pending !== '') onLine(pending);
      pending = '';
    },
  };
}

export function launchLocal(launch: LocalLaunch): TrainerHandle {
  // Its own process group, so a stop reaches Verl's workers and Ray's local processes too.
  const args = launch.lifeline === true ? ['-m', 'graph_planner_verl.lifeline', '--', ...launch.args] : [...launch.args];
  // The lifeline's end of the pipe is its standard input; nothing is ever written to it.
  const child = spawn(launch.command, args, { cwd: launch.cwd, env: launch.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  // Without a lifeline the trainer reads nothing; its input is closed at once, as 'ignore' would.
  if (launch.lifeline !== true) child.stdin.end();
  child.stdin.on('error', () => undefined);
  const out = splitLines(launch.onLine);
  const err = splitLines(launch.onLine);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => err.push(chunk));
  const ended = new Promise<TrainerEnd>((resolve) => {
    child.once('error', (error) => resolve({ ok: false, reason: `could not start ${launch.command}: ${errorMessage(error)}` }));
    child.once('close', (code, signal) => {
      child.stdin.destroy();
      out.flush();
      err.flush();
      resolve(code === 0 ? { ok: true, reason: 'exit code 0' } : { ok: false, reason: signal !== null ? `killed by ${signal}` : `exit code ${code ?? '?'}` });
    });
  });
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  // The trainer must not outlive gp train, which hosts its environment: if this process exits
  // without having stopped it (an uncaught error, process.exit), the group is killed on the way out.
  const onExit = (): void => signalGroup('SIGKILL');
  process.once('exit', onExit);
  void ended.then(() => process.removeListener('exit', onExit));
  return {
    where: `local process ${child.pid ?? '?'}`,
    ended,
    async stop(graceMs = 15_000) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await ended;
      clearTimeout(timer);
    },
  };
}

export interface RayLaunch {
  readonly client: RayJobsClient;
  readonly submissionId: string;
  readonly entrypoint: string;
  /** Paths and switches only: Ray returns `runtime_env` in clear to any client. */
  readonly envVars: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly onLine: (line: string) => void;
  readonly pollMs?: number;
  /**
   * How long the dashboard may go unanswered before the job counts as ended (failed): a cluster
   * that went away must not leave the command waiting on it forever. Five minutes by default.
   */
  readonly unreachableMs?: number;
}

/** Submits the job (or finds it already submitted, after a lost answer) and follows it to its end. */
export async function launchRayJob(launch: RayLaunch): Promise<TrainerHandle & { readonly existing: boolean }> {
  const { client, submissionId } = launch;
  const submitted = await client.submit({
    entrypoint: launch.entrypoint,
    submission_id: submissionId,
    runtime_env: { env_vars: { ...launch.envVars } },
    metadata: { ...launch.metadata },
  });
  const lines = splitLines(launch.onLine);
  let seen = 0;
  const readLogs = async (): Promise<void> => {
    const logs = await client.logs(submissionId);
    // Ray returns the whole driver log each time; only the part not yet seen is new.
    if (logs.length < seen) seen = 0;
    lines.push(logs.slice(seen));
    seen = logs.length;
  };
  const ended = (async (): Promise<TrainerEnd> => {
    let unanswered: number | undefined;
    for (;;) {
      await new Promise((r) => setTimeout(r, launch.pollMs ?? 2000));
      let details;
      try {
        details = await client.details(submissionId);
        await readLogs();
        unanswered = undefined;
      } catch (error) {
        unanswered ??= Date.now();
        const limit = launch.unreachableMs ?? 300_000;
        if (Date.now() - unanswered >= limit) {
          lines.flush();
          return {
            ok: false,
            reason: `Ray job ${submissionId}: the dashboard at ${client.address} did not answer for ${Math.round(limit / 1000)} s (${errorMessage(error)}); the cluster may be gone`,
          };
        }
        launch.onLine(`gp: could not read Ray job ${submissionId}: ${errorMessage(error)} (retrying)`);
        continue;
      }
      if (terminalRayJobStatuses.includes(details.status)) {
        lines.flush();
        const code = details.driver_exit_code ?? undefined;
        const why = details.message ? `: ${details.message}` : '';
        return { ok: details.status === 'SUCCEEDED', reason: `Ray job ${details.status}${code === undefined ? '' : ` (driver exit code ${code})`}${why}` };
      }
    }
  })();
  return {
    where: `Ray job ${submissionId} on ${client.address}`,
    existing: submitted.existing,
    ended,
    async stop() {
      await client.stop(submissionId).catch((error: unknown) => launch.onLine(`gp: stopping Ray job ${submissionId} failed: ${errorMessage(error)}`));
      await ended;
    },
  };
}
