/**
 * The second witness of a pytest run: its JUnit XML report, written outside the repository to a
 * path the patch cannot name in advance, read back after the run and compared with the parsed log
 * (docs/upstream-contracts.md#swe-bench-grading). The log is text that the code under test can
 * print into (a `conftest.py` that prints `PASSED` lines); the report is written by pytest's own
 * junitxml plugin. A test that one of them calls passed and the other calls failed, skipped or
 * does not list at all is not passed.
 */
import { XMLParser } from 'fast-xml-parser';
import type { TestStatus } from '../protocol/testReport.js';
import type { StatusMap } from './logText.js';

/** What the report says about one test case. */
export type JunitOutcome = 'passed' | 'failed' | 'error' | 'skipped' | 'xfail';

export interface JunitReport {
  /** Outcomes keyed by `junitKey(classname, name)`. */
  readonly outcomes: ReadonlyMap<string, JunitOutcome>;
}

export interface JunitMismatch {
  readonly test: string;
  readonly log: TestStatus;
  /** The report's outcome, or `absent` when it does not list the test. */
  readonly report: JunitOutcome | 'absent';
}

/** The key one test case is found by: its class name and its (possibly renamed) name. */
export function junitKey(classname: string, name: string): string {
  return `${classname}\u0000${name}`;
}

/**
 * The class name and name pytest's junitxml plugin writes for a node id (its
 * `mangle_test_address`): the parameters are cut off first, so `/` and `::` inside them are kept;
 * the file path becomes a dotted module path; the last part is the name.
 */
export function junitAddress(nodeId: string): { classname: string; name: string } {
  const bracket = nodeId.indexOf('[');
  const path = bracket === -1 ? nodeId : nodeId.slice(0, bracket);
  const params = bracket === -1 ? '' : nodeId.slice(bracket);
  const names = path.split('::');
  names[0] = (names[0] ?? '').replace(/\//g, '.').replace(/\.py$/, '');
  names[names.length - 1] += params;
  return { classname: names.slice(0, -1).join('.'), name: names[names.length - 1] ?? '' };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Test cases can be one or many under each suite, suites one or many under the root.
  isArray: (name) => name === 'testsuite' || name === 'testcase' || name === 'failure' || name === 'error' || name === 'skipped',
  processEntities: true,
  htmlEntities: false,
});

type Node = Record<string, unknown>;

function asNodes(value: unknown): Node[] {
  return Array.isArray(value) ? value.filter((v): v is Node => typeof v === 'object' && v !== null) : [];
}

function outcomeOf(testcase: Node): JunitOutcome {
  // An element with no attributes parses as an empty string, so presence is the array's length.
  if (Array.isArray(testcase['error']) && testcase['error'].length > 0) return 'error';
  if (Array.isArray(testcase['failure']) && testcase['failure'].length > 0) return 'failed';
  const skipped = testcase['skipped'];
  if (Array.isArray(skipped)) {
    // pytest writes an expected failure as a skip of type `pytest.xfail`.
    const first = skipped[0] as unknown;
    const type = typeof first === 'object' && first !== null ? (first as Node)['type'] : undefined;
    return type === 'pytest.xfail' ? 'xfail' : 'skipped';
  }
  return 'passed';
}

/** Test cases nested at any depth of suites (pytest writes one suite; other writers nest). */
function collect(suite: Node, rename: (name: string) => string, out: Map<string, JunitOutcome>): void {
  for (const testcase of asNodes(suite['testcase'])) {
    const classname = typeof testcase['classname'] === 'string' ? testcase['classname'] : '';
    const name = typeof testcase['name'] === 'string' ? testcase['name'] : '';
    const key = junitKey(classname, rename(name));
    const outcome = outcomeOf(testcase);
    // A test listed twice (a rerun plugin) is passed only if every listing passed.
    const earlier = out.get(key);
    out.set(key, earlier === undefined || earlier === 'passed' || earlier === 'xfail' ? outcome : earlier);
  }
  for (const inner of asNodes(suite['testsuite'])) collect(inner, rename, out);
}

/**
 * Reads a JUnit XML report; `rename` applies the same id clean-up the log's parser applies
 * (testing/repoLogFormats.ts) to each test's name. Throws when the text is not such a report.
 */
export function parseJunitReport(xml: string, rename: (name: string) => string = (n) => n): JunitReport {
  let root: Node;
  try {
    root = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new Error(`not well-formed XML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const top = root['testsuites'] ?? root['testsuite'];
  if (top === undefined) throw new Error('no <testsuites> or <testsuite> element');
  const outcomes = new Map<string, JunitOutcome>();
  const suites = Array.isArray(top) ? asNodes(top) : typeof top === 'object' && top !== null ? [top as Node] : [];
  for (const suite of suites) collect(suite, rename, outcomes);
  return { outcomes };
}

/**
 * The report's outcome for a log id. An id the harness's parser cut at a space (`test_x[a`) stands
 * for every report name that continues it with whitespace; it is passed only if all of them are.
 */
function reportOutcome(report: JunitReport, id: string): JunitOutcome | undefined {
  const { classname, name } = junitAddress(id);
  const exact = report.outcomes.get(junitKey(classname, name));
  if (exact !== undefined) return exact;
  const prefix = junitKey(classname, name);
  let found: JunitOutcome | undefined;
  for (const [key, outcome] of report.outcomes) {
    if (key.length <= prefix.length || !key.startsWith(prefix) || !/\s/.test(key.charAt(prefix.length))) continue;
    if (outcome !== 'passed' && outcome !== 'xfail') return outcome;
    found ??= outcome;
  }
  return found;
}

/**
 * The log's statuses with every test the log calls passed but the report does not (failed, errored,
 * skipped or absent) turned to FAILED, and the list of those disagreements. Tests the log calls
 * failed stay failed whatever the report says: the stricter witness wins.
 */
export function crossCheck(tests: StatusMap, report: JunitReport): { tests: Map<string, string>; mismatches: JunitMismatch[] } {
  const out = new Map(tests);
  const mismatches: JunitMismatch[] = [];
  for (const [id, status] of tests) {
    if (status !== 'PASSED' && status !== 'XFAIL') continue;
    const outcome = reportOutcome(report, id);
    const agrees = status === 'PASSED' ? outcome === 'passed' : outcome === 'xfail';
    if (agrees) continue;
    mismatches.push({ test: id, log: status, report: outcome ?? 'absent' });
    out.set(id, 'FAILED');
  }
  return { tests: out, mismatches };
}
