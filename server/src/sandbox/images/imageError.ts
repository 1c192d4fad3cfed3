/**
 * Why an image build failed, as a value with a code and a message a person can act on, so that
 * `buildImages` reports a failure as a result instead of throwing it at its callers.
 */
import { errorMessage } from '../../util/errors.js';

/** Why an image build failed, with a message a person can act on. */
export type ImageBuildErrorCode = 'needs-root' | 'missing-tool' | 'no-mirror' | 'recipe' | 'bootstrap' | 'import' | 'build' | 'base-missing';

/**
 * A build that could not be done. `buildImages` turns it into a `failed` result, so callers see a
 * value, never an exception.
 */
export class ImageBuildError extends Error {
  constructor(
    message: string,
    readonly code: ImageBuildErrorCode,
  ) {
    super(message);
    this.name = 'ImageBuildError';
  }
}

/** The message of anything thrown, preferring the daemon's own explanation that docker-modem keeps in `json.message`. */
export function dockerErrorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const json = (error as { json?: unknown }).json;
    if (typeof json === 'object' && json !== null) {
      const message = (json as { message?: unknown }).message;
      if (typeof message === 'string' && message.length > 0) return message;
    }
  }
  return errorMessage(error);
}
