/**
 * The code graph's public shapes: nodes, edges, anchors and expansion candidates. The graph is
 * built by `server/src/graph/`; the environment puts these shapes into observations, and the
 * webview and trajectories read them. Nothing else declares them.
 */
import { z } from 'zod';

/** What a node stands for. Methods are functions defined directly in a class body. */
export const nodeKinds = ['file', 'class', 'function', 'method'] as const;
export const nodeKindSchema = z.enum(nodeKinds);
export type NodeKind = z.infer<typeof nodeKindSchema>;

/**
 * Edge kinds. `contains`: file → class/function, class → method. `imports`: file → file.
 * `calls`: function/method → function/method/class (best-effort name resolution). `inherits`:
 * class → base class. `tests`: a test function or test file → the code it exercises.
 */
export const edgeKinds = ['contains', 'imports', 'calls', 'inherits', 'tests'] as const;
export const edgeKindSchema = z.enum(edgeKinds);
export type EdgeKind = z.infer<typeof edgeKindSchema>;

/** 1-based, inclusive line range. */
export const spanSchema = z.object({ start: z.number().int().min(1), end: z.number().int().min(1) });
export type Span = z.infer<typeof spanSchema>;

/**
 * A node. Ids carry no line numbers so that they survive edits above them:
 * `file:<path>`, `class:<path>#<Qualified.Name>`, `func:<path>#<name>`, `method:<path>#<Class.name>`
 * (a repeated definition of the same qualified name gets `@2`, `@3` … in source order).
 */
export const graphNodeSchema = z.object({
  id: z.string().min(1),
  kind: nodeKindSchema,
  /** The definition's own name; the file name for files. */
  name: z.string(),
  /** Repository-relative POSIX path. */
  path: z.string(),
  span: spanSchema,
  /** `def name(args) -> ret` or `class Name(bases)`, one line. */
  signature: z.string().optional(),
  /** First line of the docstring, when there is one. */
  docstring: z.string().optional(),
  /**
   * Set (true) on nodes of test files (`test_*.py`, `*_test.py`, `conftest.py`, anything under
   * `tests/` or `test/`), so an agent can tell tests and test data from the code under test.
   */
  test: z.literal(true).optional(),
});
export type GraphNode = z.infer<typeof graphNodeSchema>;

export const graphEdgeSchema = z.object({ src: z.string(), dst: z.string(), kind: edgeKindSchema });
export type GraphEdge = z.infer<typeof graphEdgeSchema>;

/**
 * Where to start looking. `id` names a node exactly; otherwise `text` is matched by kind: a path
 * for `file`, a name for `class`/`function`/`method`/`symbol` (any definition), and free text
 * searched with BM25 for `text`. The original system's kinds `module`, `t-file` and `func` are
 * accepted and mapped (`module` → file, `t-file` → file, `func` → function).
 */
export const anchorKinds = ['file', 'class', 'function', 'method', 'symbol', 'text'] as const;
export const anchorKindSchema = z.preprocess(
  (value) => (value === 'module' || value === 't-file' ? 'file' : value === 'func' ? 'function' : value),
  z.enum(anchorKinds),
);
export const anchorSchema = z
  .object({
    kind: anchorKindSchema.default('symbol'),
    text: z.string().optional(),
    id: z.string().optional(),
  })
  .refine((a) => (a.text !== undefined && a.text.trim() !== '') || (a.id !== undefined && a.id !== ''), {
    message: 'an anchor needs a non-empty text or id',
  });
export type Anchor = z.infer<typeof anchorSchema>;

/** A node proposed by an expansion, with why it was proposed. */
export const candidateSchema = graphNodeSchema.extend({
  score: z.number(),
  /** Short reasons such as `anchor`, `calls`, `same_file`, `same_dir`, `test`, `novel`. */
  reasons: z.array(z.string()),
  /** The anchor node this candidate was reached from. */
  from: z.string().optional(),
  /** Hops from that anchor (0 for the anchor itself). */
  hops: z.number().int().min(0),
});
export type Candidate = z.infer<typeof candidateSchema>;

export const graphStatsSchema = z.object({
  files: z.number().int().min(0),
  classes: z.number().int().min(0),
  functions: z.number().int().min(0),
  methods: z.number().int().min(0),
  edges: z.record(edgeKindSchema, z.number().int().min(0)),
});
export type GraphStats = z.infer<typeof graphStatsSchema>;
