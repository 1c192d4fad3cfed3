/**
 * The backend a sandbox actually ran on, and why `sandbox.backend: auto` fell back to the local
 * backend when it did. `openSandbox` (server/src/sandbox/openSandbox.ts) decides it; trajectories,
 * test run records, `status.json` and `report.json` record it, and the CLI announces it.
 */
import { z } from 'zod';
import { openedBackendSchema, sandboxBackendSchema } from './sandbox.js';

/**
 * Why `auto` ran a task on the local backend instead of Docker: no daemon answered, the daemon
 * lacks the task's image (and the task has a local copy), or the task names no image at all.
 */
export const backendFallbackSchema = z.object({
  code: z.enum(['daemon-unreachable', 'image-missing', 'no-image']),
  /** The reason in words, e.g. `no Docker daemon at unix:///var/run/docker.sock (connect ENOENT …)`. */
  reason: z.string(),
});
export type BackendFallback = z.infer<typeof backendFallbackSchema>;

/** Which backend a sandbox ran on, what was asked for, and, when `auto` fell back, why. */
export const backendChoiceSchema = z.object({
  requested: sandboxBackendSchema,
  backend: openedBackendSchema,
  fallback: backendFallbackSchema.optional(),
});
export type BackendChoice = z.infer<typeof backendChoiceSchema>;

/**
 * What a task loses on the local backend compared with a container (sandbox/localSandbox.ts): it
 * runs on this host without CPU or process limits (memory is limited with `ulimit -v` only), and
 * where bubblewrap cannot run, without network or file isolation either (sandbox/bubblewrap.ts).
 */
export const localBackendLoss =
  "commands run on this host without a container's CPU and process limits, and without network or file isolation where bubblewrap cannot run";

/**
 * Said once per process, the first time a local sandbox opens: what the local backend isolates
 * under bubblewrap and what it does not, or, given why bubblewrap cannot run (`unisolated`), that
 * it does not isolate.
 */
export function localBackendWarning(unisolated?: string): string {
  if (unisolated === undefined) {
    return 'the local backend runs task commands under bubblewrap: their own user, PID and network namespaces (no network unless the task allows it), a clean environment, the working copy, scratch and /tmp writable, the rest of the file system read-only and your home hidden; it sets no CPU or process limits (memory: ulimit -v) and shares the kernel with you, so for untrusted tasks prefer sandbox.backend docker';
  }
  return `the local backend does not isolate (${unisolated}): task commands run as you, on this machine, with its network and your files (commands run on this host without a container, network isolation or CPU and process limits); run only tasks you trust on it, install bubblewrap, or use sandbox.backend docker`;
}
