/**
 * Which files of a repository the graph reads, and how their bytes become text.
 */
import { SandboxError, type Sandbox } from '../sandbox/index.js';

/** Folders that hold installed or generated code rather than the repository's own. */
const skippedFolders = new Set(['node_modules', 'site-packages', 'dist-packages', '__pycache__', 'venv']);

/** `*.py` files outside hidden folders, virtual environments and installed packages. */
export function isPythonSource(path: string): boolean {
  if (!path.endsWith('.py')) return false;
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i += 1) {
    const part = parts[i] ?? '';
    if (part.startsWith('.') || skippedFolders.has(part)) return false;
  }
  return true;
}

/** Source bytes as text: UTF-8 (Python's default source encoding), without a byte-order mark. */
export function decodeSource(content: Buffer): string {
  const text = content.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A file's text through the sandbox, or undefined when it is gone (or larger than `maxBytes`). */
export async function readSandboxFile(sandbox: Sandbox, path: string, maxBytes: number): Promise<string | undefined> {
  let content: Buffer;
  try {
    content = await sandbox.readFile(path);
  } catch (error) {
    // A read fails for a deleted file and for a sandbox in trouble alike; only the first means "gone".
    if (error instanceof SandboxError && error.code === 'io') {
      const probe = await sandbox.exec(['test', '-e', path]);
      if (probe.exitCode === 1) return undefined;
    }
    throw error;
  }
  return content.length > maxBytes ? undefined : decodeSource(content);
}
