/**
 * Which file a Python module name means. Absolute names (`a.b`) are tried under the roots a
 * repository commonly puts packages in: its top level, `src/`, and each top-level folder that is
 * not itself a package (`lib/`, `python/`); `a.b` is `a/b.py` or `a/b/__init__.py` there. Relative
 * names (`from ..m import x`) count up from the importing file's folder.
 */
import { posix } from 'node:path';

export class ModuleMap {
  private readonly paths = new Set<string>();
  private rootsCache: string[] | undefined;
  /** Absolute module names already looked up (most name modules outside the repository, asked again and again). */
  private readonly absoluteCache = new Map<string, string | undefined>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) this.paths.add(path);
  }

  has(path: string): boolean {
    return this.paths.has(path);
  }

  add(path: string): void {
    this.paths.add(path);
    this.changed();
  }

  delete(path: string): void {
    this.paths.delete(path);
    this.changed();
  }

  private changed(): void {
    this.rootsCache = undefined;
    this.absoluteCache.clear();
  }

  /** `''`, `src/`, then the top-level folders without an `__init__.py`, in name order. */
  roots(): readonly string[] {
    if (this.rootsCache !== undefined) return this.rootsCache;
    const folders = new Set<string>();
    for (const path of this.paths) {
      const slash = path.indexOf('/');
      if (slash > 0) folders.add(path.slice(0, slash));
    }
    const extra = [...folders]
      .filter((f) => f !== 'src' && !this.paths.has(`${f}/__init__.py`))
      .sort()
      .map((f) => `${f}/`);
    this.rootsCache = ['', 'src/', ...extra];
    return this.rootsCache;
  }

  /** The file of a module under a folder prefix (`''` or ending in `/`), when there is one. */
  private fileUnder(prefix: string, dotted: string): string | undefined {
    const stem = `${prefix}${dotted.replaceAll('.', '/')}`;
    if (this.paths.has(`${stem}.py`)) return `${stem}.py`;
    if (this.paths.has(`${stem}/__init__.py`)) return `${stem}/__init__.py`;
    return undefined;
  }

  /** The file of an absolute module name, trying each root. */
  absolute(dotted: string): string | undefined {
    if (dotted === '') return undefined;
    if (this.absoluteCache.has(dotted)) return this.absoluteCache.get(dotted);
    let found: string | undefined;
    for (const root of this.roots()) {
      found = this.fileUnder(root, dotted);
      if (found !== undefined) break;
    }
    this.absoluteCache.set(dotted, found);
    return found;
  }

  /** The file of the longest prefix of `dotted` that is a module (`a.b.C` → `a/b.py`), with the rest. */
  longestPrefix(dotted: string): { file: string; rest: string[] } | undefined {
    const parts = dotted.split('.');
    for (let n = parts.length; n > 0; n -= 1) {
      const file = this.absolute(parts.slice(0, n).join('.'));
      if (file !== undefined) return { file, rest: parts.slice(n) };
    }
    return undefined;
  }

  /**
   * The folder a relative import with `level` dots counts from (`''` for the repository's top), or
   * undefined when the dots climb above it.
   */
  relativeBase(fromPath: string, level: number): string | undefined {
    let dir = posix.dirname(fromPath);
    if (dir === '.') dir = '';
    for (let up = 1; up < level; up += 1) {
      if (dir === '') return undefined;
      const parent = posix.dirname(dir);
      dir = parent === '.' ? '' : parent;
    }
    return dir;
  }

  /** The file of `from <dots><module> import …` in `fromPath`; the package's `__init__.py` for a bare `from . import`. */
  relative(fromPath: string, level: number, dotted: string): string | undefined {
    const base = this.relativeBase(fromPath, level);
    if (base === undefined) return undefined;
    const prefix = base === '' ? '' : `${base}/`;
    if (dotted === '') return this.paths.has(`${prefix}__init__.py`) ? `${prefix}__init__.py` : undefined;
    return this.fileUnder(prefix, dotted);
  }

  /** The module a `from` import names, for an import statement in `fromPath`. */
  fromModule(fromPath: string, level: number, dotted: string): string | undefined {
    return level > 0 ? this.relative(fromPath, level, dotted) : this.longestPrefix(dotted)?.file;
  }

  /** A submodule `name` of the package whose `from` statement in `fromPath` names `module`: `from a import b` with `a/b.py`. */
  submodule(fromPath: string, level: number, module: string, name: string): string | undefined {
    const dotted = module === '' ? name : `${module}.${name}`;
    return level > 0 ? this.relative(fromPath, level, dotted) : this.absolute(dotted);
  }
}
