/**
 * `gp dataset validate FILE...`: the editor's dataset checks, headless. Files are read as streams
 * with the same engine the language server uses for large files, so a 50,000-line dataset needs no
 * more memory than its longest line. Hints (such as the original system's backend names) are
 * counted but not printed, because a converted dataset would otherwise print one per line.
 */
import { collectImages } from '../datasets/index.js';
import { validateJsonlFile, type JsonlFinding, type JsonlSummary } from '../tasks/index.js';
import { defaultMaxProblems, moreProblems, plural, type Io } from './output.js';
import { errorMessage } from '../util/errors.js';

export const datasetValidateUsage = `gp dataset validate FILE... [--json] [--max-problems N]
      Validate dataset JSONL files line by line (file:line:col), then a summary per
      file: tasks, errors, duplicate ids, rows without an image, unknown keys, images
      and how many are build-only. At most N findings per file are printed (default
      ${defaultMaxProblems}; 0 prints all). An empty file gets a warning, a binary file one error.`;

export const datasetValidateOptions = { json: { type: 'boolean' }, 'max-problems': { type: 'string' } } as const;

/** What the summary counts besides errors and warnings: the problems a dataset author fixes first. */
export interface DatasetCounts {
  readonly duplicateIds: number;
  readonly missingImages: number;
  readonly unknownKeys: number;
  readonly invalidJson: number;
  readonly nonUtf8: number;
  /** Distinct images named, and how many of them are built locally (SWE-bench `sweb.eval.*`), never pulled. */
  readonly images: number;
  readonly buildOnlyImages: number;
}

const countedCodes = {
  'task/duplicate-id': 'duplicateIds',
  'task/missing-image': 'missingImages',
  'task/unknown-key': 'unknownKeys',
  'jsonl/syntax': 'invalidJson',
  'jsonl/encoding': 'nonUtf8',
} as const;

type CountedKey = (typeof countedCodes)[keyof typeof countedCodes];

function countedKey(code: string): CountedKey | undefined {
  return Object.hasOwn(countedCodes, code) ? countedCodes[code as keyof typeof countedCodes] : undefined;
}

export interface DatasetValidateOptions {
  readonly json?: boolean;
  /**
   * How many findings to print per file, 0 for all; the summary still counts all of them. Absent:
   * `defaultMaxProblems` for text, all of them for JSON (a program reads it, not a person).
   */
  readonly maxProblems?: number;
}

interface FileReport {
  readonly file: string;
  readonly summary?: JsonlSummary;
  readonly counts?: DatasetCounts;
  readonly findings?: readonly object[];
  readonly error?: string;
}

function printable(f: JsonlFinding): boolean {
  return f.severity !== 'hint';
}

/** `file:line:col severity code message`, 1-based like compilers print it. */
export function formatFinding(file: string, f: JsonlFinding): string {
  return `${file}:${f.line + 1}:${f.start + 1} ${f.severity} ${f.code} ${f.message}`;
}

function jsonFinding(f: JsonlFinding): object {
  return { line: f.line + 1, column: f.start + 1, endColumn: f.end + 1, severity: f.severity, code: f.code, message: f.message, path: f.path, fixes: f.fixes };
}

/** Exit code 1 when any file has an error, 2 when a file cannot be read (that wins), else 0. */
export async function datasetValidate(files: string[], opts: DatasetValidateOptions, io: Io): Promise<number> {
  const given = opts.maxProblems ?? (opts.json === true ? 0 : defaultMaxProblems);
  const max = given === 0 ? Number.POSITIVE_INFINITY : given;
  let unreadable = false;
  let anyError = false;
  const reports: FileReport[] = [];
  for (const file of files) {
    let shown = 0;
    let hidden = 0;
    const kept: object[] = [];
    const tally: Record<CountedKey, number> = { duplicateIds: 0, missingImages: 0, unknownKeys: 0, invalidJson: 0, nonUtf8: 0 };
    const onFinding = (f: JsonlFinding) => {
      const key = countedKey(f.code);
      if (key !== undefined) tally[key]++;
      if (!printable(f) && !opts.json) return;
      if (shown >= max) {
        hidden++;
        return;
      }
      shown++;
      if (opts.json) kept.push(jsonFinding(f));
      else io.out(formatFinding(file, f));
    };
    let summary: JsonlSummary;
    try {
      // The findings are printed as they stream in; the report need not keep them.
      summary = (await validateJsonlFile(file, { onFinding, maxFindings: 0 })).summary;
    } catch (err) {
      unreadable = true;
      const reason = errorMessage(err);
      if (opts.json) reports.push({ file, error: reason });
      else io.err(`${file}: cannot read it (${reason}).`);
      continue;
    }
    if (summary.errors > 0) anyError = true;
    // The images are read in a second streaming pass; the validator reports rows, not images.
    const images = await collectImages([file]);
    const counts: DatasetCounts = { ...tally, images: images.images.length, buildOnlyImages: images.buildOnly.length };
    if (opts.json) {
      reports.push({ file, summary, counts, findings: kept });
      continue;
    }
    if (hidden > 0) io.out(moreProblems(hidden));
    io.out(
      `${file}: ${plural(summary.lines, 'line')}, ${plural(summary.tasks, 'task')}, ${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')}.`,
    );
    io.out(
      `  ${plural(counts.duplicateIds, 'duplicate id')}, ${plural(counts.missingImages, 'row')} without an image, ${plural(counts.unknownKeys, 'unknown key')}, ${plural(counts.invalidJson, 'line')} of invalid JSON, ${plural(counts.nonUtf8, 'line')} not UTF-8; ${plural(counts.images, 'image')}, ${counts.buildOnlyImages} build-only.`,
    );
  }
  if (opts.json) io.out(JSON.stringify(reports, null, 2));
  return unreadable ? 2 : anyError ? 1 : 0;
}
