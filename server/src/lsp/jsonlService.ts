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
import { jsonlFixAll } from './jsonlFixAll.js';
import { toJsonlDiagnostic } from './jsonlDiagnostics.js';
import { summarisedDiagnostics } from './jsonlSummaries.js';
import type { DatasetServices } from './services.js';

/** Diagnostics beyond this many per document are dropped; VS Code shows no more usefully. */
export const maxDiagnostics = 5000;

/** Findings read from a file on disk before they are summarised into at most `maxDiagnostics`. */
const maxFindingsRead = 100_000;

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
    const findings: JsonlFinding[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string; // i < lines.length, so the element exists.
      let result = current.get(line) ?? previous.get(line);
      if (result === undefined) {
        result = this.engine.validateLine(line);
        this.linesValidated++;
      }
      current.set(line, result);
      for (const f of check.add(i, line, result)) findings.push(f);
    }
    // A file without a task says so once (`jsonl/empty`).
    findings.push(...check.finish());
    // Every finding is kept until the repeated ones are summarised, so a summary counts all its rows.
    return { diagnostics: summarisedDiagnostics(uri, findings, maxDiagnostics), lines: current };
  }

  codeActions(uri: string, text: string, range: Range, diagnostics: Diagnostic[]): CodeAction[] {
    return jsonlCodeActions(uri, splitLines(text), range, diagnostics);
  }

  /** The document's "Fix all" action over `diagnostics` (the document's own), or undefined when nothing has a fix. */
  fixAll(uri: string, text: string, diagnostics: readonly Diagnostic[]): CodeAction | undefined {
    return jsonlFixAll(uri, splitLines(text), diagnostics);
  }

  /** Validates a file from disk with memory bounded by its longest line; rejects when it cannot be read. */
  async validateFile(path: string): Promise<FileValidation> {
    const started = Date.now();
    const uri = pathToFileURL(path).toString();
    // More findings than diagnostics are read so that a summary of a repeated finding counts its
    // rows beyond the first 5,000; a finding without its line is a few hundred bytes.
    const report = await this.engine.validateFile(path, { maxFindings: maxFindingsRead });
    const diagnostics = summarisedDiagnostics(uri, report.findings, maxDiagnostics);
    const { lines, tasks, errors, warnings } = report.summary;
    return { diagnostics, summary: { lines, tasks, errors, warnings, durationMs: Date.now() - started } };
  }
}
