/**
 * The language client library, loaded when the first server starts rather than with the
 * extension. It is most of what loading the extension would otherwise cost (docs/benchmarks.md,
 * "Activation"), and nothing needs it before a server starts: the bundle `dist/extension.js`
 * leaves it out and `dist/languageClient.js` carries it (scripts/build.mjs).
 */
export type LanguageClientLib = typeof import('vscode-languageclient/node');

let loading: Promise<LanguageClientLib> | undefined;

/**
 * The library, loaded once. The load waits for the turn after the one that asked, so that a
 * start requested during activation loads it after `activate` has returned: commands, views and
 * the status bar are registered first, and a command run meanwhile waits for the client
 * (`ExtensionState.currentClient`).
 */
export function loadLanguageClientLib(): Promise<LanguageClientLib> {
  loading ??= new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => import('vscode-languageclient/node'))
    .catch((error: unknown) => {
      // A later start (Restart Server) tries again rather than repeating this failure.
      loading = undefined;
      throw error;
    });
  return loading;
}
