/**
 * The docker backend as the registry (`backends.ts`) holds it: a container from the task's image,
 * ready when the engine answers and holds the image, its containers shown in the Containers view
 * and reaped at a run's end. A container counts on its node as the steady share `slots.ts`
 * describes: its memory limit, and at most one core of its CPU limit.
 */
import { ContainerService } from './containerService.js';
import { reapContainers } from './containers.js';
import { unreachable } from './dockerClient.js';
import { DockerSandbox, imageMissingError, noImageError } from './dockerSandbox.js';
import type { SandboxBackend } from './backends.js';
import { steadyShare } from './slots.js';

export const dockerBackend: SandboxBackend = {
  name: 'docker',
  open: (spec) => DockerSandbox.open(spec),
  async readiness(source, { engine, reached, imagePresent }) {
    if (source.image === undefined) return { code: 'no-image', reason: noImageError(source.task).message };
    const engineNow = reached ?? (await engine.reach());
    if (!engineNow.ok) return { code: 'daemon-unreachable', reason: unreachable(engineNow.where, engineNow.cause).message };
    if (imagePresent === false) return { code: 'image-missing', reason: imageMissingError(source.image).message };
    return null;
  },
  slotShare: steadyShare,
  containers: {
    view: () => new ContainerService(),
    reap: async (run, includeLive) => (await reapContainers(includeLive ? { run, includeLive: true } : { run })).removed.length,
  },
};
