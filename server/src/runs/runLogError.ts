/**
 * The first error in a run's output (`run.log`, or what a process printed): what the person is
 * shown when a launch ends before its run reports (issue 37). `gp` prints each problem it refuses
 * on as `FILE:LINE:COL message` (a task file's line, a config's key), so such a line is an error
 * with a place; a warning printed the same way is passed over, since it did not stop the run. A
 * Python traceback's error is its last line, placed at its innermost frame. Failing those, a line
 * that says it is an error, else the last line printed.
 */
import { isAbsolute, resolve } from 'node:path';
import type { LogError } from '../protocol/launch.js';

/** `path:12:5 message` or `path:12: message`; the path holds a dot or a slash, so `Error: x` is not one. */
const located = /^(?<file>[^\s:'"][^:'"]*[./][^:'"]*?):(?<line>\d+)(?::(?<col>\d+))?:?\s+(?<message>\S.*)$/;
const frame = /^\s*File "(?<file>[^"]+)", line (?<line>\d+)/;
const pythonError = /^(?<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::\s*(?<message>.*))?$/;
const saysError = /\berror\b|^gp [\w -]+: /i;
const notAnError = /^(?:warning|info|hint)\b/i;
const maxMessage = 400;

/** The first error in `text`; relative places resolve against `cwd`, the folder the process ran in. */
export function firstLogError(text: string, cwd: string): LogError | null {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd());
  const where = (file: string) => (isAbsolute(file) ? file : resolve(cwd, file));
  let fallback: LogError | null = null;
  let lastFrame: { file: string; line: number } | undefined;
  let inTraceback = false;
  for (const line of lines) {
    // The lines the editor writes before the output (launch/detachedRun.ts) are comments.
    if (line.trim() === '' || line.startsWith('# ')) continue;
    if (line.startsWith('Traceback (most recent call last)')) {
      inTraceback = true;
      continue;
    }
    if (inTraceback) {
      const f = frame.exec(line)?.groups;
      if (f !== undefined) lastFrame = { file: f['file'] ?? '', line: Number(f['line']) };
      const err = line.startsWith(' ') ? undefined : pythonError.exec(line)?.groups;
      if (err !== undefined)
        return {
          message: clip(line),
          file: lastFrame === undefined ? null : where(lastFrame.file),
          line: lastFrame === undefined ? null : lastFrame.line - 1,
          character: lastFrame === undefined ? null : 0,
        };
      continue;
    }
    const place = located.exec(line)?.groups;
    if (place !== undefined && !notAnError.test(place['message'] ?? '')) {
      return {
        message: clip(line),
        file: where(place['file'] ?? ''),
        line: Number(place['line']) - 1,
        character: place['col'] === undefined ? 0 : Number(place['col']) - 1,
      };
    }
    if (place === undefined && saysError.test(line) && fallback === null) fallback = { message: clip(line), file: null, line: null, character: null };
  }
  if (fallback !== null) return fallback;
  const last = lines.filter((l) => l.trim() !== '' && !l.startsWith('# ')).at(-1);
  return last === undefined ? null : { message: clip(last), file: null, line: null, character: null };
}

function clip(line: string): string {
  const one = line.trim();
  return one.length > maxMessage ? `${one.slice(0, maxMessage - 1)}…` : one;
}
