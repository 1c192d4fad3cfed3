/**
 * The one list of sandbox backends. Every enum of backend names derives from it: the config's
 * `sandbox.backend`, a task's `sandbox.backend`, the launch messages, the records of where a
 * sandbox ran, the CLI's usage and the extension's pickers. What each backend does (how it opens,
 * what makes a task ready on it, its containers) is registered beside its code in
 * `server/src/sandbox/backends.ts`. Adding a backend is one entry here and one registration there
 * (ARCHITECTURE.md §2, "Adding a backend, a dataset format or an agent").
 *
 * The file imports nothing, not even zod, so the extension's pickers read it without loading zod
 * at activation (`test/unit/extensionActivationImports.test.ts`).
 */

/**
 * Each backend with what the rest of the code asks of it without running it: whether its tasks run
 * in a container or on this host (the preflight leaves out model notes for the rule agent on the
 * host, `config/preflight/applicable.ts`), and the line the editor's backend picker shows.
 */
export const sandboxBackendTable = {
  docker: { isolation: 'container', pick: 'each task in a container from its image' },
  local: { isolation: 'host', pick: 'a working copy of the task’s local_repo, on this machine without isolation' },
} as const;

/** A backend a sandbox actually runs on. */
export type OpenedBackendName = keyof typeof sandboxBackendTable;

/** The backends in the table's order. The cast gives zod's `z.enum` the non-empty tuple it needs; the table above is not empty. */
export const sandboxBackendNames = Object.keys(sandboxBackendTable) as [OpenedBackendName, ...OpenedBackendName[]];

/** What a config, a task or a flag may ask for: a backend, or `auto` (docker when the daemon answers and the task has an image). */
export const sandboxBackendChoices: readonly ['auto', ...OpenedBackendName[]] = ['auto', ...sandboxBackendNames];

/** The original system's backend names that mean `docker` here (a task file may still use them). */
export const legacyDockerBackendNames = ['repoenv', 'r2e'] as const;

/** Whether a backend runs its tasks on this host rather than in a container. */
export function runsOnHost(backend: string): boolean {
  return backend in sandboxBackendTable && sandboxBackendTable[backend as OpenedBackendName].isolation === 'host';
}
