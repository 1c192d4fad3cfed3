/**
 * Following the JSON progress stream of a build or an import. The Engine answers 200 and then
 * reports most failures inside the stream (an `error` event), so a stream that ended is not yet a
 * success; this module reads the events and turns an error into one that names the failing step.
 */
import type Docker from 'dockerode';
import { ImageBuildError, type ImageBuildErrorCode } from './imageError.js';

interface ProgressEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

function asEvent(value: unknown): ProgressEvent {
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const event: ProgressEvent = {};
  if (typeof v['stream'] === 'string') event.stream = v['stream'];
  if (typeof v['status'] === 'string') event.status = v['status'];
  if (typeof v['error'] === 'string') event.error = v['error'];
  const detail = v['errorDetail'];
  if (typeof detail === 'object' && detail !== null) {
    const message = (detail as Record<string, unknown>)['message'];
    event.errorDetail = typeof message === 'string' ? { message } : {};
  }
  const aux = v['aux'];
  if (typeof aux === 'object' && aux !== null) {
    const id = (aux as Record<string, unknown>)['ID'];
    event.aux = typeof id === 'string' ? { ID: id } : {};
  }
  return event;
}

/** What a finished stream said: the image id it reported, if any. */
export interface ProgressOutcome {
  id?: string;
}

const stepLine = /^Step \d+\/\d+ : /;
// The builder's own bookkeeping, which says nothing about why a step failed.
const builderChatter = /^( ---> |Removing intermediate container )/;

/**
 * Waits for the stream to end, passing each output line to `onLine`. Rejects with an
 * `ImageBuildError` whose message names the step that failed (`Step 3/5 : RUN …`), the daemon's
 * error, and the step's last line of output.
 */
export function followProgress(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  code: ImageBuildErrorCode,
  onLine: (line: string) => void = () => undefined,
): Promise<ProgressOutcome> {
  let step: string | undefined;
  let lastOutput: string | undefined;
  let failure: string | undefined;
  const outcome: ProgressOutcome = {};
  const onEvent = (raw: unknown) => {
    const event = asEvent(raw);
    const text = event.stream ?? event.status;
    for (const line of (text ?? '').split('\n').map((l) => l.trimEnd())) {
      if (line.length === 0) continue;
      onLine(line);
      if (stepLine.test(line)) {
        step = line;
        lastOutput = undefined;
      } else if (!builderChatter.test(line)) lastOutput = line;
    }
    if (event.aux?.ID !== undefined) outcome.id = event.aux.ID;
    // An import reports the new image's id as its final status.
    if (event.status !== undefined && /^sha256:[0-9a-f]{64}$/.test(event.status)) outcome.id = event.status;
    const error = event.errorDetail?.message ?? event.error;
    if (error !== undefined && failure === undefined) {
      onLine(`error: ${error}`);
      const where = step === undefined ? '' : `${step}: `;
      const output = lastOutput === undefined || lastOutput === error ? '' : ` (last output: ${lastOutput})`;
      failure = `${where}${error}${output}`;
    }
  };
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => {
        if (error !== null) reject(new ImageBuildError(`${step === undefined ? '' : `${step}: `}${error.message}`, code));
        else if (failure !== undefined) reject(new ImageBuildError(failure, code));
        else resolve(outcome);
      },
      onEvent,
    );
  });
}
