/**
 * Frames of Python tracebacks found in free text (an issue body, test output), outermost first as
 * Python prints them:
 *
 * - CPython: `  File "/testbed/app/calc.py", line 12, in add`;
 * - pytest's short style, `app/calc.py:12: in add`, and the location line that closes a frame in
 *   its long style, `app/calc.py:12: ` or, for the innermost frame, `app/calc.py:12:
 *   ZeroDivisionError` (no function name; when it repeats the frame just before it, it is skipped).
 *
 * Paths stay as written here; `localise.ts` maps them onto the files of a graph.
 */

export interface RawFrame {
  readonly path: string;
  readonly line: number;
  /** `''` when the line does not say (pytest's exception lines). */
  readonly function: string;
}

const cpythonFrame = /^\s*File "([^"]+)", line (\d+)(?:, in (\S.*?))?\s*$/;
const pytestIn = /^\s*([^\s:"']+\.py):(\d+): in (\S+)\s*$/;
// The location line that closes a frame in pytest's long style: empty for the outer frames, the
// exception's type for the innermost one (`--tb=line` adds the message after it).
const pytestLocation = /^\s*([^\s:"']+\.py):(\d+):(?:\s*|\s+[A-Za-z_][\w.]*(?::\s.*)?)$/;

export function parseTraceback(text: string): RawFrame[] {
  const frames: RawFrame[] = [];
  for (const line of text.split(/\r?\n/)) {
    const cpython = cpythonFrame.exec(line);
    if (cpython !== null) {
      frames.push({ path: cpython[1] ?? '', line: Number(cpython[2]), function: (cpython[3] ?? '').trim() });
      continue;
    }
    const inLine = pytestIn.exec(line);
    if (inLine !== null) {
      frames.push({ path: inLine[1] ?? '', line: Number(inLine[2]), function: inLine[3] ?? '' });
      continue;
    }
    const error = pytestLocation.exec(line);
    if (error !== null) {
      const path = error[1] ?? '';
      const lineNo = Number(error[2]);
      const previous = frames[frames.length - 1];
      if (previous !== undefined && previous.path === path && previous.line === lineNo) continue;
      frames.push({ path, line: lineNo, function: '' });
    }
  }
  return frames;
}
