/**
 * The code graph of a repository read through a sandbox: Python files parsed with tree-sitter
 * (wasm), definitions and their edges, BM25 search, localisation from issue text and tracebacks,
 * scored expansion, and incremental updates.
 */
export { buildCodeGraph, buildCodeGraphFromFiles, type BuildOptions } from './build.js';
export type { CodeGraph, ExpandOptions, IssueText, Localisation, TracebackFrame } from './types.js';
export type { SourceFile } from './parseFiles.js';
export { parseTraceback, type RawFrame } from './traceback.js';
export { isPythonSource } from './sources.js';
export { isTestPath } from './nodes.js';
export { type IssueRanking, type RankedNode, type RankOptions, type RetrieverName, type SemanticIndex } from './rank.js';
export { mapRepoPath } from './paths.js';
export { pythonParser, withTree, type PythonParser } from './parser.js';
export { loadEmbedder, embeddingModel, modelSearchPath, type TextEmbedder, type LoadedEmbedder } from './embedder.js';
export { EmbeddingStore, embedCached, defaultEmbeddingCacheDir } from './embeddingStore.js';
export { NodeEmbeddings, describeNode } from './semanticIndex.js';
