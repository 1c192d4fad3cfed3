/**
 * Edges of one file, resolved from its raw facts against the index: `contains`, `imports`
 * (file → file), `calls` (best effort), `inherits` and `tests`. Resolution follows Python's
 * lookup as far as static text allows: enclosing scopes, then the module, then imported names
 * (through re-exports, a few levels deep), `self`/`cls`/`super()` through the enclosing class and
 * its bases, and as a last resort a name defined only once in the whole repository. A call whose
 * receiver is a module outside the repository is dropped, never guessed.
 *
 * A `Resolver` caches per-file bindings and per-class bases, so it is made fresh for each pass.
 */
import type { GraphEdge } from '../protocol/graph.js';
import type { GraphIndex, FileRecord, Ref } from './graphIndex.js';
import type { RawImport } from './pythonText.js';
import { commonMethodNames, pythonBuiltins } from './tokens.js';

/** What a name bound by an import statement stands for. */
type Binding =
  /** A module: a file of the repository (`file`), or an absolute dotted name to look up with what follows it. */
  | { readonly kind: 'module'; readonly file: string | undefined; readonly dotted: string | undefined }
  /** A name imported from a module, which is `undefined` when the module is not in the repository. */
  | { readonly kind: 'symbol'; readonly file: string | undefined; readonly name: string };

interface FileBindings {
  readonly names: ReadonlyMap<string, Binding>;
  /** Files of the repository imported with `from m import *`. */
  readonly stars: readonly string[];
}

/** A name looked up: a node of the graph, a module found by dotted name, or something outside the repository. */
type Found = { readonly ref: Ref } | { readonly dotted: string } | 'external' | undefined;

/** How deep re-exports and base classes are followed. */
const maxDepth = 6;

export class Resolver {
  private readonly bindingsCache = new Map<string, FileBindings>();
  private readonly basesCache = new Map<string, readonly Ref[]>();

  constructor(private readonly index: GraphIndex) {}

  /** Every edge whose source is the file or one of its definitions, without duplicates. */
  edgesFrom(path: string): GraphEdge[] {
    const record = this.index.files.get(path);
    if (record === undefined) return [];
    const out: GraphEdge[] = [];
    const defs = record.parse.definitions;
    const fileId = record.file.id;
    // Each definition is the source of its own edges only, so duplicates are looked for per source.
    defs.forEach((d, i) => {
      const parent = d.parent < 0 ? record.file : record.nodes[d.parent];
      const node = record.nodes[i];
      if (parent !== undefined && node !== undefined) out.push({ src: parent.id, dst: node.id, kind: 'contains' });
    });
    const imported = [...new Set(this.importedFiles(record))];
    for (const file of imported) out.push({ src: fileId, dst: `file:${file}`, kind: 'imports' });
    defs.forEach((d, i) => {
      const node = record.nodes[i];
      if (node === undefined) return;
      if (d.kind === 'class') {
        const seen = new Set<string>();
        for (const base of this.bases({ path, def: i })) {
          const target = this.index.node(base);
          if (target !== undefined && target.id !== node.id && !seen.has(target.id)) {
            seen.add(target.id);
            out.push({ src: node.id, dst: target.id, kind: 'inherits' });
          }
        }
        return;
      }
      const testing = record.isTest && d.name.startsWith('test');
      const seen = new Set<string>();
      for (const chain of d.calls) {
        const ref = this.call(record, i, chain);
        const target = ref === undefined || ref.def < 0 ? undefined : this.index.node(ref);
        if (target === undefined || target.id === node.id || seen.has(target.id)) continue;
        seen.add(target.id);
        out.push({ src: node.id, dst: target.id, kind: 'calls' });
        if (testing && this.index.files.get(target.path)?.isTest === false) out.push({ src: node.id, dst: target.id, kind: 'tests' });
      }
    });
    if (record.isTest) {
      for (const file of imported) if (this.index.files.get(file)?.isTest === false) out.push({ src: fileId, dst: `file:${file}`, kind: 'tests' });
    }
    return out;
  }

  /** Files of the repository the file's import statements name, in statement order. */
  private importedFiles(record: FileRecord): string[] {
    const modules = this.index.modules;
    const path = record.parse.path;
    const out: string[] = [];
    const push = (file: string | undefined) => {
      if (file !== undefined && file !== path) out.push(file);
    };
    for (const raw of record.parse.imports) {
      if (raw.form === 'import') {
        push(modules.longestPrefix(raw.module)?.file);
        continue;
      }
      push(modules.fromModule(path, raw.level, raw.module));
      for (const { name } of raw.names) if (name !== '*') push(modules.submodule(path, raw.level, raw.module, name));
    }
    return out;
  }

  private bindings(path: string): FileBindings {
    const cached = this.bindingsCache.get(path);
    if (cached !== undefined) return cached;
    const names = new Map<string, Binding>();
    const stars: string[] = [];
    const record = this.index.files.get(path);
    for (const raw of record?.parse.imports ?? []) this.bind(path, raw, names, stars);
    const made = { names, stars };
    this.bindingsCache.set(path, made);
    return made;
  }

  private bind(path: string, raw: RawImport, names: Map<string, Binding>, stars: string[]): void {
    const modules = this.index.modules;
    if (raw.form === 'import') {
      // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
      const dotted = raw.alias === undefined ? (raw.module.split('.')[0] ?? raw.module) : raw.module;
      names.set(raw.alias ?? dotted, { kind: 'module', file: undefined, dotted });
      return;
    }
    const from = modules.fromModule(path, raw.level, raw.module);
    for (const { name, alias } of raw.names) {
      if (name === '*') {
        if (from !== undefined) stars.push(from);
        continue;
      }
      const submodule = modules.submodule(path, raw.level, raw.module, name);
      names.set(alias ?? name, submodule !== undefined ? { kind: 'module', file: submodule, dotted: undefined } : { kind: 'symbol', file: from, name });
    }
  }

  /**
   * What a module-level name of `path` means to other modules: its own definition, a name it
   * imports (followed), a star import, or a submodule of its package.
   */
  private exported(path: string, name: string, depth: number): Ref | undefined {
    const record = this.index.files.get(path);
    if (record === undefined || depth > maxDepth) return undefined;
    const own = record.members[0]?.get(name);
    if (own !== undefined) return { path, def: own };
    const { names, stars } = this.bindings(path);
    const bound = names.get(name);
    if (bound !== undefined) {
      if (bound.kind === 'symbol') return bound.file === undefined ? undefined : this.exported(bound.file, bound.name, depth + 1);
      const file = bound.file ?? (bound.dotted === undefined ? undefined : this.index.modules.absolute(bound.dotted));
      return file === undefined ? undefined : { path: file, def: -1 };
    }
    for (const star of stars) {
      const found = this.exported(star, name, depth + 1);
      if (found !== undefined) return found;
    }
    if (path.endsWith('/__init__.py') || path === '__init__.py') {
      const dir = path.slice(0, path.length - '__init__.py'.length);
      const sub = this.index.modules.has(`${dir}${name}.py`)
        ? `${dir}${name}.py`
        : this.index.modules.has(`${dir}${name}/__init__.py`)
          ? `${dir}${name}/__init__.py`
          : undefined;
      if (sub !== undefined) return { path: sub, def: -1 };
    }
    return undefined;
  }

  /** A bare name as seen from definition `scope` of `path`: enclosing scopes, the module, its imports. */
  private lookup(record: FileRecord, scope: number, name: string): Found {
    const defs = record.parse.definitions;
    const path = record.parse.path;
    // Class bodies are not enclosing scopes for the functions defined in them.
    for (let s = scope; s >= 0; s = defs[s]?.parent ?? -1) {
      if (s !== scope && defs[s]?.kind === 'class') continue;
      const found = record.members[s + 1]?.get(name);
      if (found !== undefined) return { ref: { path, def: found } };
    }
    const top = record.members[0]?.get(name);
    if (top !== undefined) return { ref: { path, def: top } };
    const { names, stars } = this.bindings(path);
    const bound = names.get(name);
    if (bound !== undefined) {
      if (bound.kind === 'symbol') {
        if (bound.file === undefined) return 'external';
        const ref = this.exported(bound.file, bound.name, 0);
        return ref === undefined ? 'external' : { ref };
      }
      if (bound.file !== undefined) return { ref: { path: bound.file, def: -1 } };
      return bound.dotted === undefined ? 'external' : { dotted: bound.dotted };
    }
    for (const star of stars) {
      const ref = this.exported(star, name, 1);
      if (ref !== undefined) return { ref };
    }
    return undefined;
  }

  /** A member of a node: a module-level name of a file, or an attribute of a class (its bases included). */
  private member(ref: Ref, name: string): Ref | undefined {
    if (ref.def < 0) return this.exported(ref.path, name, 0);
    const node = this.index.node(ref);
    return node?.kind === 'class' ? this.classMember(ref, name, 0, new Set()) : undefined;
  }

  private classMember(cls: Ref, name: string, depth: number, seen: Set<string>): Ref | undefined {
    const key = `${cls.path}#${cls.def}`;
    if (depth > maxDepth || seen.has(key)) return undefined;
    seen.add(key);
    const own = this.index.files.get(cls.path)?.members[cls.def + 1]?.get(name);
    if (own !== undefined) return { path: cls.path, def: own };
    for (const base of this.bases(cls)) {
      const found = this.classMember(base, name, depth + 1, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The classes of the graph a class names as its bases. */
  private bases(cls: Ref): readonly Ref[] {
    const key = `${cls.path}#${cls.def}`;
    const cached = this.basesCache.get(key);
    if (cached !== undefined) return cached;
    // Guards against a cycle (`class A(B)` / `class B(A)` across files) while this one is resolved.
    this.basesCache.set(key, []);
    const record = this.index.files.get(cls.path);
    const d = record?.parse.definitions[cls.def];
    const out: Ref[] = [];
    if (record !== undefined && d !== undefined) {
      for (const base of d.bases) {
        const ref = this.chain(record, d.parent, base.split('.'), true);
        if (ref !== undefined && ref.def >= 0 && this.index.node(ref)?.kind === 'class') out.push(ref);
      }
    }
    this.basesCache.set(key, out);
    return out;
  }

  /** The class a definition is in: itself when it is one, else the nearest enclosing class. */
  private enclosingClass(record: FileRecord, def: number): Ref | undefined {
    const defs = record.parse.definitions;
    for (let s = def; s >= 0; s = defs[s]?.parent ?? -1) if (defs[s]?.kind === 'class') return { path: record.parse.path, def: s };
    return undefined;
  }

  /** The node a call made in definition `def` reaches, when it can be told. */
  private call(record: FileRecord, def: number, callee: string): Ref | undefined {
    const parts = callee.split('.');
    const head = parts[0] ?? '';
    const last = parts[parts.length - 1] ?? '';
    if (head === '?') return this.uniqueMethod(last);
    if (head === 'self' || head === 'cls' || head === 'super') {
      const cls = this.enclosingClass(record, def);
      if (cls === undefined || parts.length !== 2) return parts.length > 2 ? this.uniqueMethod(last) : undefined;
      if (head !== 'super') return this.classMember(cls, last, 0, new Set());
      for (const base of this.bases(cls)) {
        const found = this.classMember(base, last, 0, new Set());
        if (found !== undefined) return found;
      }
      return undefined;
    }
    return this.chain(record, def, parts, false);
  }

  /** A dotted name (`f`, `m.f`, `a.b.C.m`) as seen from definition `scope` of a file. */
  private chain(record: FileRecord, scope: number, parts: readonly string[], classOnly: boolean): Ref | undefined {
    const head = parts[0] ?? '';
    const found = this.lookup(record, scope, head);
    if (found === 'external') return undefined;
    if (found === undefined) {
      if (parts.length === 1) return this.uniqueTop(head, classOnly);
      return classOnly ? undefined : this.uniqueMethod(parts[parts.length - 1] ?? '');
    }
    let ref: Ref | undefined;
    let i = 1;
    if ('dotted' in found) {
      // `import a.b` bound `a`: the longest `a.b.c…` that is a module of the repository comes first,
      // and it must cover the whole module the import named.
      const full = [found.dotted, ...parts.slice(1)].join('.');
      const longest = this.index.modules.longestPrefix(full);
      if (longest === undefined || full.split('.').length - longest.rest.length < found.dotted.split('.').length) return undefined;
      ref = { path: longest.file, def: -1 };
      i = parts.length - longest.rest.length;
    } else ref = found.ref;
    for (; i < parts.length && ref !== undefined; i += 1) ref = this.member(ref, parts[i] ?? '');
    return ref;
  }

  private uniqueTop(name: string, classOnly: boolean): Ref | undefined {
    if (pythonBuiltins.has(name)) return undefined;
    const refs = this.index.topByName.get(name);
    if (refs?.length !== 1 || refs[0] === undefined) return undefined;
    return !classOnly || this.index.node(refs[0])?.kind === 'class' ? refs[0] : undefined;
  }

  private uniqueMethod(name: string): Ref | undefined {
    if (commonMethodNames.has(name) || name.startsWith('__')) return undefined;
    const refs = this.index.methodsByName.get(name);
    return refs?.length === 1 ? refs[0] : undefined;
  }
}
