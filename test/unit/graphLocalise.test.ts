/**
 * Localisation from issue text: real tracebacks printed by the `python3` on this machine (CPython's
 * own format, and pytest's short and long styles) over the standard library's `json` package,
 * mapped onto a graph whose files are `json/…`; failure frames; file paths, module names and
 * symbols mentioned in prose.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCodeGraphFromFiles, parseTraceback, type CodeGraph, type SourceFile } from '../../server/src/graph/index.js';
import { assertPythonModule } from '../support/hostTools.js';

const jsonDir = execFileSync('python3', ['-c', 'import json, os; print(os.path.dirname(json.__file__))'], { encoding: 'utf8' }).trim();

function jsonFiles(): SourceFile[] {
  return readdirSync(jsonDir)
    .filter((n) => n.endsWith('.py'))
    .sort()
    .map((n) => ({ path: `json/${n}`, text: readFileSync(join(jsonDir, n), 'utf8') }));
}

const testFile = { path: 'tests/test_loads.py', text: 'import json\n\n\ndef test_loads():\n    json.loads("{")\n' };

/**
 * Runs a Python statement that raises, printing the traceback CPython prints (stderr) and, from
 * the same exception, the frames Python reports (stdout, outermost first).
 */
function failingRun(statement: string): { stderr: string; frames: Array<{ file: string; line: number; name: string }> } {
  const program = [
    'import json as _json, traceback',
    'try:',
    `    ${statement}`,
    'except Exception as e:',
    '    traceback.print_exc()',
    '    print(_json.dumps([{"file": f.filename, "line": f.lineno, "name": f.name} for f in traceback.extract_tb(e.__traceback__)]))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', program], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^Traceback \(most recent call last\):/);
  return { stderr: run.stderr, frames: JSON.parse(run.stdout) as Array<{ file: string; line: number; name: string }> };
}

let graphPromise: Promise<CodeGraph> | undefined;
function graph(): Promise<CodeGraph> {
  graphPromise ??= buildCodeGraphFromFiles([...jsonFiles(), testFile]);
  return graphPromise;
}

test('anchors a CPython traceback pasted into an issue on the innermost frame in the repository', async () => {
  const g = await graph();
  const { stderr, frames } = failingRun('import json; json.loads("{")');
  const inner = [...frames].reverse().find((f) => f.file.startsWith(`${jsonDir}/`));
  assert.ok(inner !== undefined, stderr);
  const path = `json/${inner.file.slice(jsonDir.length + 1)}`;
  const expected = g.nodeAt(path, inner.line);
  assert.ok(expected !== undefined && expected.kind !== 'file');
  assert.equal(expected.name, inner.name, 'the node around the line is the function Python names');
  const found = g.localise({ title: 'json.loads crashes on a lone brace', body: `Loading "{" fails:\n\n\`\`\`\n${stderr}\`\`\`\n` });
  assert.equal(found.nodeIds[0], expected.id);
  assert.deepEqual(found.anchors[0], { kind: expected.kind, text: g.nodeAt(path, inner.line)?.id.split('#')[1], id: expected.id });
  // Every frame Python printed is kept, in Python's order; only the ones in json/ are in the repository.
  assert.deepEqual(
    found.frames.map((f) => [f.line, f.function, f.inRepo]),
    frames.map((f) => [f.line, f.name, f.file.startsWith(`${jsonDir}/`)]),
  );
  for (const f of found.frames.filter((x) => x.inRepo)) assert.match(f.path, /^json\/[a-z_]+\.py$/);
  // The outer in-repository frames follow the innermost one.
  const outer = frames
    .filter((f) => f.file.startsWith(`${jsonDir}/`) && f !== inner)
    .map((f) => g.nodeAt(`json/${f.file.slice(jsonDir.length + 1)}`, f.line)?.id);
  for (const id of outer) assert.ok(found.nodeIds.includes(id ?? ''), `${id} is anchored too`);
});

for (const style of ['short', 'long'] as const) {
  test(`anchors a pytest --tb=${style} traceback on the innermost non-test frame, keeping the test frame too`, async () => {
    assertPythonModule('pytest', 'python3-pytest');
    const g = await graph();
    const dir = mkdtempSync(join(tmpdir(), 'gp-graph-pytest-'));
    try {
      mkdirSync(join(dir, 'tests'));
      writeFileSync(join(dir, testFile.path), testFile.text);
      const run = spawnSync('python3', ['-m', 'pytest', '-q', `--tb=${style}`, '-p', 'no:cacheprovider', testFile.path], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      const found = g.localise({ body: run.stdout });
      const { frames } = failingRun('import json; json.loads("{")');
      const inner = [...frames].reverse().find((f) => f.file.startsWith(`${jsonDir}/`));
      assert.ok(inner !== undefined);
      const expected = g.nodeAt(`json/${inner.file.slice(jsonDir.length + 1)}`, inner.line);
      assert.equal(found.nodeIds[0], expected?.id);
      assert.ok(found.nodeIds.includes('func:tests/test_loads.py#test_loads'), found.nodeIds.join(', '));
      const testFrame = found.frames.find((f) => f.path === testFile.path);
      assert.deepEqual(testFrame && [testFrame.line, testFrame.inRepo], [5, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('reads CPython and pytest frame lines, dropping the location line that repeats a frame', () => {
  const text = [
    'Traceback (most recent call last):',
    '  File "/testbed/app/calc.py", line 12, in add',
    '    return lhs / rhs',
    '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
    'app/calc.py:7: in mul',
    '    return add(a, b)',
    'tests/test_calc.py:9: ',
    'app/calc.py:12: ZeroDivisionError',
    'app/calc.py:12: ZeroDivisionError',
    'see app/calc.py:3 for details',
  ].join('\n');
  assert.deepEqual(parseTraceback(text), [
    { path: '/testbed/app/calc.py', line: 12, function: 'add' },
    { path: '<frozen importlib._bootstrap>', line: 241, function: '_call_with_frames_removed' },
    { path: 'app/calc.py', line: 7, function: 'mul' },
    { path: 'tests/test_calc.py', line: 9, function: '' },
    { path: 'app/calc.py', line: 12, function: '' },
  ]);
});

test('uses the failure frame first: the definition around its line, then its file', async () => {
  const g = await graph();
  const decode = g.find({ kind: 'method', text: 'JSONDecoder.decode' }, 1)[0];
  assert.ok(decode !== undefined);
  const found = g.localise({
    failure_frame: { path: '/usr/local/lib/python3.11/site-packages/json/decoder.py', lineno: decode.span.start + 1, function: 'decode' },
  });
  assert.deepEqual(found.nodeIds.slice(0, 2), [decode.id, 'file:json/decoder.py']);
  const byName = g.localise({ failure_frame: { path: 'json/decoder.py', function: 'raw_decode' } });
  assert.equal(byName.nodeIds[0], 'method:json/decoder.py#JSONDecoder.raw_decode');
});

test('anchors paths, module names and symbols named in prose, in that order, without stop words or common names', async () => {
  const g = await graph();
  const found = g.localise({
    title: 'JSONEncoder.iterencode ignores indent',
    body: 'When I call `dumps` with indent, json/encoder.py ignores it. The json.scanner module and py_encode_basestring( look fine. I think the main issue is in the encoder; the test suite does not run it.',
  });
  assert.deepEqual(found.nodeIds, [
    'file:json/encoder.py',
    'file:json/scanner.py',
    'func:json/__init__.py#dumps',
    'func:json/encoder.py#py_encode_basestring',
    'method:json/encoder.py#JSONEncoder.iterencode',
  ]);
  assert.deepEqual(found.frames, []);
  // `main` is a function of json/tool.py but too common a word to anchor on without backticks.
  assert.ok(g.find({ kind: 'function', text: 'main' }, 1).length === 1);
  assert.ok(!found.nodeIds.includes('func:json/tool.py#main'));
});

test('never anchors frames outside the repository, and caps the anchors', async () => {
  const g = await graph();
  const outside = g.localise({ body: '  File "/usr/lib/python3.11/argparse.py", line 1, in parse_args\n' });
  assert.deepEqual([outside.anchors, outside.frames.map((f) => f.inRepo)], [[], [false]]);
  const many = g.localise({
    body: g
      .nodes()
      .filter((n) => n.kind !== 'file')
      .map((n) => `\`${n.name}\``)
      .join(' '),
  });
  assert.equal(many.anchors.length, 8);
  assert.equal(new Set(many.nodeIds).size, many.nodeIds.length);
});

test('maps an installed package’s frames onto a src/ layout and anchors the function around the line', async () => {
  const g = await buildCodeGraphFromFiles(jsonFiles().map((f) => ({ ...f, path: `src/${f.path}` })));
  const decode = g.nodes().find((n) => n.path === 'src/json/decoder.py' && n.name === 'decode');
  assert.ok(decode !== undefined);
  const installed = '/usr/local/lib/python3.11/site-packages/json/decoder.py';
  const body = `Traceback (most recent call last):\n  File "/tmp/t.py", line 1, in <module>\n  File "${installed}", line ${decode.span.start + 2}, in decode\n    obj, end = self.raw_decode(s, idx=_w(s, 0).end())\nValueError: boom\n`;
  const found = g.localise({ title: 'decode fails', body });
  assert.equal(found.nodeIds[0], decode.id, 'the frame of the installed copy anchors the repository’s function');
  assert.deepEqual(
    found.frames.filter((f) => f.inRepo).map((f) => f.path),
    ['src/json/decoder.py'],
  );
});

test('a plain word that also names a test anchors the code, not the test, unless the issue is about tests', async () => {
  const tests = { path: 'tests/test_decoding.py', text: 'def scanstring():\n    pass\n\n\ndef test_py_scanstring():\n    pass\n' };
  const g = await buildCodeGraphFromFiles([...jsonFiles(), tests]);
  const prose = g.localise({
    title: 'Decoding a lone surrogate',
    body: 'The py_scanstring helper and scanstring mangle the string; test_py_scanstring shows it.',
  });
  assert.ok(prose.nodeIds.length > 0);
  assert.ok(
    prose.nodeIds.every((id) => !id.includes('tests/')),
    `no test anchors: ${prose.nodeIds.join(', ')}`,
  );
  const quoted = g.localise({ title: 'Decoding a lone surrogate', body: 'See `test_py_scanstring`.' });
  assert.ok(quoted.nodeIds.includes('func:tests/test_decoding.py#test_py_scanstring'), 'a name in backticks is taken as written');
  assert.ok(prose.nodeIds.includes('func:json/decoder.py#py_scanstring'));
  const aboutTests = g.localise({ title: 'Flaky test for scanstring', body: 'test_py_scanstring fails under xdist.' });
  assert.ok(aboutTests.nodeIds.includes('func:tests/test_decoding.py#test_py_scanstring'), 'an issue about tests anchors on tests');
});
