/**
 * The Containers view's messages (extension ↔ server): our labelled containers, refreshed from
 * Docker's event stream (filtered to our label) while the view is visible, and the actions a
 * person takes on them. The server talks to Docker; the extension only renders and opens terminals.
 */
import { z } from 'zod';
import { containerInfoSchema } from './sandbox.js';

/** Whether the daemon answered; when not, why and what to do (shown as the view's welcome text). */
export const dockerReachSchema = z.discriminatedUnion('reachable', [
  z.object({ reachable: z.literal(true) }),
  z.object({ reachable: z.literal(false), reason: z.string(), hint: z.string() }),
]);
export type DockerReach = z.infer<typeof dockerReachSchema>;

/** Client → server request: our containers, running and stopped, newest first. */
export const containersListRequest = 'graphPlanner/containers/list';
export const containersListResultSchema = z.object({
  daemon: dockerReachSchema,
  containers: z.array(containerInfoSchema),
});
export type ContainersListResult = z.infer<typeof containersListResultSchema>;

/** Client → server request: start or stop following Docker's events (the view became visible or hidden). */
export const containersWatchRequest = 'graphPlanner/containers/watch';
export const containersWatchParamsSchema = z.object({ watching: z.boolean() });
export type ContainersWatchParams = z.infer<typeof containersWatchParamsSchema>;

/** Server → client notification: the list changed (or the daemon came or went); the reason is logged. */
export const containersChangedNotification = 'graphPlanner/containers/changed';
export const containersChangedSchema = containersListResultSchema.extend({ reason: z.string() });
export type ContainersChanged = z.infer<typeof containersChangedSchema>;

/** Client → server request: one action on one container. `inspect` and `logs` return text to show. */
export const containerActionRequest = 'graphPlanner/containers/action';
export const containerActionParamsSchema = z.object({ id: z.string(), action: z.enum(['stop', 'remove', 'inspect', 'logs']) });
export type ContainerActionParams = z.infer<typeof containerActionParamsSchema>;
export const containerActionResultSchema = z.object({ ok: z.boolean(), message: z.string(), text: z.string().nullable() });
export type ContainerActionResult = z.infer<typeof containerActionResultSchema>;

/** Client → server request: remove every container whose owner process is gone. */
export const containersReapRequest = 'graphPlanner/containers/reap';
export const containersReapResultSchema = z.object({ removed: z.number().int(), failed: z.number().int(), message: z.string() });
export type ContainersReapResult = z.infer<typeof containersReapResultSchema>;
