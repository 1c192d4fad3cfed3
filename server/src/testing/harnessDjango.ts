/**
 * The harness's parser of Django's test runner, ported line for line from swebench 5.0.2's
 * `parse_log_django` (docs/upstream-contracts.md#swe-bench-grading). Its quirks are the harness's
 * and are kept: a `FAIL:`/`ERROR:` header records only the test's first word, `expected failure`
 * and `unexpected success` are not read (the test is missing), and any line starting with `ok`
 * marks the last test that printed ` ... ` as passed.
 */
import { beforeFirst, beforeLast, pyLstrip, pySplit, pyStrip, pyWhitespace } from './pyText.js';
import { HarnessParserCrash, type StatusMap } from './logText.js';

const passSuffixes = [' ... ok', ' ... OK', ' ...  OK'];
const ws = `[${pyWhitespace}]`;
// Python's `^` and `$` under re.MULTILINE: only `\n` ends a line, and `.` crosses anything but `\n`.
const bol = '(?:^|(?<=\\n))';
const eol = '(?=\\n|$)';
const interrupted = [
  `${bol}([^\\n]*?)${ws}\\.\\.\\.${ws}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${eol}`,
  `${bol}([^\\n]*?)${ws}\\.\\.\\.${ws}Internal Server Error: /([^\\n]*)/\\nok${eol}`,
  `${bol}([^\\n]*?)${ws}\\.\\.\\.${ws}System check identified no issues \\(0 silenced\\)\\nok${eol}`,
].map((source) => new RegExp(source, 'g'));

/** The second word of a `FAIL:`/`ERROR:` header, where the harness takes the test's name from. */
function headerName(line: string, index: number): string {
  const name = pySplit(line)[1];
  if (name === undefined) throw new HarnessParserCrash(`line ${index + 1} ("${line}") has no test name after its header`);
  return pyStrip(name);
}

export function parseLogDjango(log: string): StatusMap {
  const map = new Map<string, string>();
  let previous: string | undefined;
  log.split('\n').forEach((raw, index) => {
    let line = pyStrip(raw);
    if (line.includes('--version is equivalent to version')) map.set('--version is equivalent to version', 'PASSED');
    if (line.includes(' ... ')) previous = beforeFirst(line, ' ... ');
    for (const suffix of passSuffixes) {
      if (!line.endsWith(suffix)) continue;
      // The harness's own exception for django__django-7188, whose result shares a line with a migration.
      if (pyStrip(line).startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) {
        const at = line.indexOf('...');
        line = pyStrip(line.slice(at + 3));
      }
      map.set(beforeLast(line, suffix), 'PASSED');
      break;
    }
    if (line.includes(' ... skipped')) map.set(beforeFirst(line, ' ... skipped'), 'SKIPPED');
    if (line.endsWith(' ... FAIL')) map.set(beforeFirst(line, ' ... FAIL'), 'FAILED');
    if (line.startsWith('FAIL:')) map.set(headerName(line, index), 'FAILED');
    if (line.endsWith(' ... ERROR')) map.set(beforeFirst(line, ' ... ERROR'), 'ERROR');
    if (line.startsWith('ERROR:')) map.set(headerName(line, index), 'ERROR');
    if (pyLstrip(line).startsWith('ok') && previous !== undefined) map.set(previous, 'PASSED');
  });
  // A result interrupted by one of three long messages the harness knows, with its `ok` on the next line.
  for (const pattern of interrupted) {
    for (const match of log.matchAll(pattern)) map.set(match[1] ?? '', 'PASSED');
  }
  return map;
}
