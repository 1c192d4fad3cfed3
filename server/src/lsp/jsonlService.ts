/**
 * The dataset JSONL language service: diagnostics and quick fixes for task files. Validation is
 * incremental: each line's result is kept under the line's text in the document's line cache, so
 * after an edit only lines whose text changed are validated again; duplicate ids, which span lines,
 * are recomputed from the cached ids on every call (a map insert per line). Files too large for the
 * editor are validated from disk as a stream.
 */
import { pathToFileURL } from 'node:url';
import type { CodeAction, Diagnostic, Range } from 'vscode-languageserver';
import { DatasetCheck, splitLines, textNotText, type JsonlFinding, type LineResult } from '../tasks/index.js';
import type { DatasetSummary } from '../protocol/index.js';
import { jsonlCodeActions } from './jsonlCodeActions.js';
import { toJsonlDiagnostic } from './jsonlDiagnostics.js';
import type { DatasetServices } from './services.js';

/** Diagnostics beyond this many per document are dropped; VS Code shows no more usefully. */
export const maxDiagnostics = 5000;

/** A document's line results keyed by line text; each validation returns a fresh one. */
export type LineCache = ReadonlyMap<string, LineResult>;

export const emptyLineCache: LineCache = new Map();

export interface FileValidation {
  readonly diagnostics: Diagnostic[];
  readonly summary: Omit<DatasetSummary, 'uri' | 'fromDisk'>;
}

export interface TextValidation {
  readonly diagnostics: Diagnostic[];
  /** The cache to hand to the next validation of the same document. */
  readonly lines: LineCache;
}

export class JsonlService {
  /** How many lines have been validated since the service started; tests use it to see the cache work. */
  linesValidated = 0;

  constructor(private readonly engine: DatasetServices) {}

  validate(uri: string, text: string, previous: LineCache = emptyLineCache): TextValidation {
    // A binary buffer gets one diagnostic that says so, not one per line of noise.
    const notText = textNotText(text);
    if (notText !== undefined) return { diagnostics: [toJsonlDiagnostic(uri, notText)], lines: emptyLineCache };
    const lines = splitLines(text);
    // A fresh map per call keeps only the current lines' results, so the cache never outgrows the document.
    const current = new Map<string, LineResult>();
    const check = new DatasetCheck((i) => lines[i]);
    const diagnostics: Diagnostic[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string; // i < lines.length, so the element exists.
      let result = current.get(line) ?? previous.get(line);
      if (result === undefined) {
        result = this.engine.validateLine(line);
        this.linesValidated++;
      }
      current.set(line, result);
      for (const f of check.add(i, line, result)) {
        if (diagnostics.length < maxDiagnostics) diagnostics.push(toJsonlDiagnostic(uri, f));
      }
    }
    // A file without a task says so once (`jsonl/empty`).
    for (const f of check.finish()) diagnostics.push(toJsonlDiagnostic(uri, f));
    return { diagnostics, lines: current };
  }

  codeActions(uri: string, text: string, range: Range, diagnostics: Diagnostic[]): CodeAction[] {
    return jsonlCodeActions(uri, splitLines(text), range, diagnostics);
  }

  /** Validates a file from disk with memory bounded by its longest line; rejects when it cannot be read. */
  async validateFile(path: string): Promise<FileValidation> {
    const started = Date.now();
    const uri = pathToFileURL(path).toString();
    const report = await this.engine.validateFile(path, { maxFindings: maxDiagnostics });
    const diagnostics = report.findings.map((f: JsonlFinding) => toJsonlDiagnostic(uri, f));
    const { lines, tasks, errors, warnings } = report.summary;
    return { diagnostics, summary: { lines, tasks, errors, warnings, durationMs: Date.now() - started } };
  }
}
