/**
 * The message of anything thrown: an `Error`'s message, or the thrown value as text. Code that
 * reports a failure to a person uses this one helper, so a rejected promise of a string or an
 * object never prints as `undefined`.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
