/**
 * Building a code graph: from a repository read through its sandbox (ARCHITECTURE.md §4.2: never from the
 * host checkout), or from texts already in memory (tests and benchmarks).
 */
import { posix } from 'node:path';
import type { Sandbox } from '../sandbox/index.js';
import { PythonCodeGraph } from './codeGraph.js';
import type { SourceFile } from './parseFiles.js';
import { decodeSource, isPythonSource } from './sources.js';
import type { CodeGraph } from './types.js';

export interface BuildOptions {
  /** Folder to read, relative to the sandbox's workdir; the whole repository by default. */
  root?: string;
  /** Larger files are left out (default 1 MiB, as `readTree`). */
  maxFileBytes?: number;
  /** Called as files are parsed. */
  onProgress?: (done: number, total: number) => void;
}

const defaultMaxFileBytes = 1024 * 1024;

/** Reads every Python file of the repository in one `readTree` transfer and builds its graph. */
export async function buildCodeGraph(sandbox: Sandbox, options: BuildOptions = {}): Promise<CodeGraph> {
  const root = options.root ?? '.';
  const maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
  const tree = await sandbox.readTree(root, { include: isPythonSource, maxFileBytes });
  const files = tree.map((f) => ({ path: f.path, text: decodeSource(f.content) }));
  // Absolute paths in tracebacks may name the container's workdir (`/testbed/…`) or, for the local
  // backend, the working copy on the host.
  const absoluteRoots = [...new Set([sandbox.spec.workdir, sandbox.workdir].map((w) => posix.join(w, root)))];
  return PythonCodeGraph.build(files, { root, absoluteRoots, maxFileBytes }, options.onProgress);
}

/** Builds the graph of files given as texts, with repository-relative paths. */
export async function buildCodeGraphFromFiles(files: ReadonlyArray<SourceFile>): Promise<CodeGraph> {
  return PythonCodeGraph.build(files, { root: '.', absoluteRoots: [], maxFileBytes: Number.POSITIVE_INFINITY });
}
