/**
 * The message of anything thrown, the extension's copy of `server/src/util/errors.ts`: the
 * extension imports nothing from the server but `protocol/` (`test/unit/layering.test.ts`), so it
 * keeps this one line itself rather than a helper per file.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
