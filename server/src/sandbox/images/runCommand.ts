/**
 * Child processes of the base-image build (debootstrap, chroot, tar, umount), with their output
 * passed on line by line and the last lines kept for the error message.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface CommandResult {
  /** Exit status; null when the process was killed by a signal or could not start. */
  code: number | null;
  /** The last lines of stdout and stderr together, oldest first. */
  tail: string[];
  /** Set when the program could not be started (ENOENT, EACCES). */
  spawnError?: string;
}

const tailLines = 20;

/** Runs a program without a shell, calling `onLine` with each line of its output. */
export function runCommand(
  program: string,
  args: readonly string[],
  options: { onLine?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const tail: string[] = [];
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
    const onText = lineSplitter((line) => {
      tail.push(line);
      if (tail.length > tailLines) tail.shift();
      options.onLine?.(line);
    });
    child.stdout.on('data', (chunk: Buffer) => onText.push(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => onText.push(chunk.toString('utf8')));
    child.on('error', (error) => resolve({ code: null, tail, spawnError: error.message }));
    child.on('close', (code) => {
      onText.flush();
      resolve({ code, tail });
    });
  });
}

/** Cuts text arriving in chunks into whole lines; blank lines are dropped. */
function lineSplitter(onLine: (line: string) => void): { push(text: string): void; flush(): void } {
  let rest = '';
  const emit = (line: string) => {
    const trimmed = line.replace(/\r$/, '').trimEnd();
    if (trimmed.length > 0) onLine(trimmed);
  };
  return {
    push(text) {
      const parts = (rest + text).split('\n');
      rest = parts.pop() ?? '';
      parts.forEach(emit);
    },
    flush() {
      emit(rest);
      rest = '';
    },
  };
}

/**
 * The absolute path of an executable, looked up in PATH and in the sbin folders, which a
 * non-root PATH often lacks although debootstrap and chroot live there.
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env['PATH'] ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (dir.length === 0) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder; try the next.
    }
  }
  return undefined;
}
