/**
 * A container's lifeline to the process that opened it, so that containers die with their owner
 * however it dies, `kill -9` included (ARCHITECTURE.md §4.15).
 *
 * The container's first process blocks reading its stdin, and the opener holds the one attachment
 * to that stdin for the sandbox's lifetime. When the opener dies, the kernel closes its end of the
 * connection, the engine closes the container's stdin (`StdinOnce`), the first process reads end of
 * file and exits, and the engine removes the container (`AutoRemove`). Reaping (`containers.ts`)
 * stays for what this cannot cover: containers of older versions or of other hosts, and an opener
 * killed between creating its container and attaching to it, which leaves a container that never
 * started.
 */
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';

/**
 * The first process: bash reading lines until end of file. While it waits in `read`, bash's
 * SIGCHLD handler still reaps the orphans of killed commands, which a bare `sleep infinity` would
 * leave as zombies counting against the process limit. Exec sessions have stdins of their own, so
 * they neither feed this one nor keep the container alive once it exits. The TERM trap is needed
 * because the first process of a container ignores signals it has no handler for, so `docker stop`
 * would otherwise wait out its grace period.
 */
export const lifelineCommand = 'trap "exit 0" TERM; while read -r _; do :; done';

/** The create options that give the first process a stdin of its own and remove the container when it exits. */
export const lifelineCreateOptions = {
  OpenStdin: true,
  StdinOnce: true,
  AttachStdin: true,
} as const satisfies Docker.ContainerCreateOptions;

export const lifelineHostConfig = { AutoRemove: true } as const satisfies Docker.HostConfig;

/** The hijacked connection, a socket for unix and tcp engines; other transports may lack these methods. */
type LifelineStream = Duplex & { setTimeout?: (ms: number) => unknown; unref?: () => unknown };

export class Lifeline {
  private constructor(private readonly stream: LifelineStream) {
    // A broken connection needs no handling here: the container ends, and the sandbox's next
    // command reports it gone (dockerSandbox.ts). Without a listener the error would crash the process.
    stream.on('error', () => undefined);
  }

  /** Attaches to the stdin of a container created with `lifelineCreateOptions`, before it starts. */
  static async attach(container: Docker.Container): Promise<Lifeline> {
    const stream = (await container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true })) as LifelineStream;
    // The client's request time limit (dockerClient.ts) is still set on the hijacked socket; a
    // lifeline is idle by design, so the limit is cleared.
    stream.setTimeout?.(0);
    // An open sandbox alone does not keep this process running; when the process ends, the
    // container ends with it.
    stream.unref?.();
    return new Lifeline(stream);
  }

  /** Lets go on close; after the engine was asked to remove the container, this only frees the socket. */
  release(): void {
    this.stream.destroy();
  }
}
