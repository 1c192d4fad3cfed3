/**
 * Whether a process runs here. `EPERM` means it exists but belongs to another user. A pid can be
 * reused after its process ends, so a long-dead owner may look alive; that errs on the side of
 * keeping what it owns (a container, a staging folder, a temp file), never of removing a live one's.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
