/**
 * Parsing a batch of files into records: one tree at a time, deleted as soon as its facts are
 * read, with a turn for the event loop every few milliseconds so that a language server stays
 * responsive while a large repository is indexed.
 */
import { extractFile, syntaxFor } from './extract.js';
import { fileRecord, type FileRecord } from './graphIndex.js';
import { pythonParser, withTree, yieldToEventLoop } from './parser.js';

export interface SourceFile {
  /** Repository-relative POSIX path. */
  readonly path: string;
  readonly text: string;
}

/** Longest stretch of synchronous parsing before the event loop gets a turn. */
const sliceMs = 25;

export async function parseFiles(files: readonly SourceFile[], onProgress?: (done: number, total: number) => void): Promise<FileRecord[]> {
  const python = await pythonParser();
  const syntax = syntaxFor(python.language);
  const records: FileRecord[] = [];
  let sliceStart = performance.now();
  for (const [i, file] of files.entries()) {
    const parse = withTree(python, file.text, (tree) => extractFile(file.path, file.text, tree, syntax));
    records.push(fileRecord(parse, file.text));
    if (performance.now() - sliceStart >= sliceMs || i === files.length - 1) {
      onProgress?.(i + 1, files.length);
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
  return records;
}
