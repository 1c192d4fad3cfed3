import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver';
import { datasetValidate } from '../../server/src/cli/datasetCommands.js';
import { JsonlService } from '../../server/src/lsp/jsonlService.js';
import { splitLines, validateJsonl, validateJsonlFile, validateLine, type JsonlFinding } from '../../server/src/tasks/index.js';

const newJsonlService = () => new JsonlService({ validateLine, validateFile: validateJsonlFile });

const dir = mkdtempSync(join(tmpdir(), 'gp-jsonl-'));

function task(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ task_id: id, sandbox: { docker_image: 'graph-planner/repoenv-sample:latest', workdir: '/testbed' }, ...extra });
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function syntax(line: string): { column: number; message: string } {
  const f = validateLine(line).findings.find((x) => x.code === 'jsonl/syntax');
  assert.ok(f, `no syntax error for ${line}`);
  return { column: f.start, message: f.message };
}

test('reports a syntax error at the exact column', () => {
  assert.equal(syntax('{"task_id": "a", "sandbox": {"workdir": "/w",}}').column, 45);
  assert.equal(syntax('{"task_id" "a"}').column, 11);
  assert.equal(syntax('{"a": tru}').column, 6);
  assert.equal(syntax('{"a": 1} x').column, 9);
  const eol = syntax('{"a": [1, 2');
  assert.equal(eol.column, 11);
  assert.match(eol.message, /column 12/);
  assert.match(syntax("{'a': 1}").message, /double quotes/);
});

test('places schema errors inside the line on the key it is about', () => {
  const line = task('a', { max_steps: '40' });
  const report = validateJsonl(`${task('first')}\n${line}\n`);
  const f = report.findings.find((x) => x.code === 'task/schema');
  assert.ok(f);
  assert.equal(f.line, 1);
  assert.equal(line.slice(f.start, f.end), '"max_steps"', 'a finding sits on the key it is about');
  assert.match(f.message, /`max_steps` must be a whole number/);
  const missing = validateLine('{"task_id": "a", "sandbox": {"docker_image": "i"}}').findings.find((x) => x.code === 'task/schema');
  assert.match(missing?.message ?? '', /Missing required field `sandbox\.workdir`/);
  assert.equal(missing?.start, 17, 'a missing key is reported on its parent key');
});

test('reports duplicate task ids on the second and later lines, pointing at the first', () => {
  const text = [task('a'), task('b'), task('a'), task('a')].join('\n');
  const report = validateJsonl(text);
  const dups = report.findings.filter((f) => f.code === 'task/duplicate-id');
  assert.deepEqual(
    dups.map((f) => f.line),
    [2, 3],
  );
  assert.ok(dups.every((f) => f.severity === 'error' && f.relatedLines?.[0]?.line === 0));
  const second = text.split('\n')[2] ?? '';
  assert.equal(second.slice(dups[0]?.start, dups[0]?.end), '"a"');
  assert.equal(report.summary.tasks, 2);
});

test('ignores blank lines, tolerates a BOM and CRLF line breaks', () => {
  const text = `\ufeff${task('a')}\r\n\r\n   \r\n${task('b')}\r\n`;
  const report = validateJsonl(text);
  assert.deepEqual(report.findings, []);
  assert.deepEqual(report.summary, { lines: 4, tasks: 2, errors: 0, warnings: 0, infos: 0, hints: 0 });
  const bom = validateLine('\ufeff{"task_id": 1}');
  const f = bom.findings.find((x) => x.path.join('.') === 'task_id');
  assert.equal(f?.start, 2, 'columns count the BOM: the key starts after it and the brace');
});

test('reports bytes that are not UTF-8, from text and from disk, but not a real U+FFFD on disk', async () => {
  const fromText = validateLine(task('a\ufffd'));
  assert.equal(fromText.findings.find((f) => f.code === 'jsonl/encoding')?.start, 13);
  const bad = Buffer.concat([Buffer.from(task('a').slice(0, 13)), Buffer.from([0xff, 0xfe]), Buffer.from(task('a').slice(13)), Buffer.from('\n')]);
  const badReport = await validateJsonlFile(file('bad-utf8.jsonl', bad));
  assert.deepEqual(
    badReport.findings.map((f) => f.code),
    ['jsonl/encoding'],
  );
  assert.match(badReport.findings[0]?.message ?? '', /not valid UTF-8/);
  const genuine = await validateJsonlFile(file('real-fffd.jsonl', `${task('a\ufffd')}\n`));
  assert.deepEqual(genuine.findings, []);
});

test('survives a 50,000-line file in memory and from disk', async () => {
  const lines: string[] = [];
  for (let i = 0; i < 50_000; i++) lines.push(i % 1000 === 999 ? '{"task_id": broken' : task(`t-${i}`));
  const text = `${lines.join('\n')}\n`;
  const inMemory = validateJsonl(text, { maxFindings: 10 });
  assert.equal(inMemory.summary.lines, 50_000);
  assert.equal(inMemory.summary.errors, 50);
  assert.equal(inMemory.findings.length, 10);
  const fromDisk = await validateJsonlFile(file('big.jsonl', text));
  assert.deepEqual(fromDisk.summary, inMemory.summary);
});

test('survives a binary file without crashing', async () => {
  const report = await validateJsonlFile(file('binary.jsonl', randomBytes(2 * 1024 * 1024)));
  assert.ok(report.summary.lines > 0);
  assert.ok(report.summary.errors > 0);
  assert.equal(report.summary.tasks, 0);
});

test('handles a line over 1 MB: valid, broken at its end, and deeply nested', () => {
  const long = 'x'.repeat(1_200_000);
  assert.equal(validateLine(task('a', { issue: { body: long } })).hasError, false);
  const broken = validateLine(`{"task_id": "a", "issue": {"body": "${long}"}`);
  assert.equal(broken.findings[0]?.code, 'jsonl/syntax');
  assert.ok((broken.findings[0]?.start ?? 0) > 1_200_000);
  const nested = validateLine('['.repeat(1_100_000));
  assert.equal(nested.findings[0]?.code, 'jsonl/syntax');
  const manyKeys = validateLine(`{${Array.from({ length: 60_000 }, (_, i) => `"k${i}": ${i}`).join(', ')}}`);
  assert.ok(manyKeys.findings.some((f) => f.code === 'task/too-many-problems'));
});

test('skips a line longer than the limit when streaming from disk', async () => {
  const path = file('too-long.jsonl', `${task('a')}\n${'y'.repeat(5000)}\n${task('b')}\n`);
  const report = await validateJsonlFile(path, { maxLineBytes: 1000 });
  assert.deepEqual(
    report.findings.map((f: JsonlFinding) => [f.line, f.code]),
    [[1, 'jsonl/line-too-long']],
  );
  assert.equal(report.summary.tasks, 2);
  assert.equal(report.summary.lines, 3);
});

test('revalidates only the lines whose text changed', () => {
  const service = newJsonlService();
  const lines = [task('a'), task('b'), task('c'), task('d', { max_steps: 0 })];
  const first = service.validate('file:///t.jsonl', lines.join('\n'));
  assert.equal(service.linesValidated, 4);
  assert.equal(first.diagnostics.length, 1);
  lines[1] = task('c', { max_steps: 5 });
  const second = service.validate('file:///t.jsonl', lines.join('\n'), first.lines);
  assert.equal(service.linesValidated, 5, 'only the edited line is validated again');
  assert.deepEqual(
    second.diagnostics.map((d) => [d.range.start.line, d.code]),
    [
      [2, 'task/duplicate-id'],
      [3, 'task/schema'],
    ],
  );
  lines.splice(0, 0, '');
  service.validate('file:///t.jsonl', lines.join('\n'), second.lines);
  assert.equal(service.linesValidated, 6, 'inserting a blank line re-uses every other result');
  service.validate('file:///t.jsonl', lines.join('\n'));
  assert.equal(service.linesValidated, 11, 'without the line cache every line is validated again');
});

test('turns findings into diagnostics with source, code, related information and fixes', () => {
  const service = newJsonlService();
  const first = service.validate('file:///d.jsonl', `${task('a')}\n${task('a', { max_step: 3 })}`);
  assert.ok(first.diagnostics[1]);
  const { diagnostics } = service.validate('file:///d.jsonl', `${task('a')}\n${task('a', { max_step: 3 })}`, first.lines);
  const duplicate = diagnostics.find((d) => d.code === 'task/duplicate-id');
  assert.equal(duplicate?.source, 'graph-planner');
  assert.equal(duplicate?.relatedInformation?.[0]?.location.range.start.line, 0);
  const unknown = diagnostics.find((d) => d.code === 'task/unknown-key');
  assert.ok(Array.isArray((unknown?.data as { fixes?: unknown[] } | undefined)?.fixes));
});

test('offers quick fixes that rewrite the line for the legacy shape and aliases', () => {
  const service = newJsonlService();
  const legacy = '{"task_id": "L", "docker_image": "img", "instance": {"mounts": ["repo:/workspace"], "commands": {"test": "pytest"}}}';
  const alias = task('A', { issue: { failure_frame: { func: 'f', line: 3 } } });
  const text = `${legacy}\n${alias}\n`;
  const diagnostics: Diagnostic[] = service.validate('file:///q.jsonl', text).diagnostics;
  const all = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };
  const actions = service.codeActions('file:///q.jsonl', text, all, diagnostics);
  const rewrite = actions.find((a) => a.title.includes('nested `sandbox`'));
  const newLegacy = rewrite?.edit?.changes?.['file:///q.jsonl']?.[0]?.newText ?? '';
  assert.deepEqual(
    validateLine(newLegacy).findings.map((f) => `${f.code} ${f.path.join('.')}`),
    ['task/host-mount sandbox.mounts.0.host'],
  );
  const rename = actions.find((a) => a.title === 'Rename `func` to `function`');
  const renamed = rename?.edit?.changes?.['file:///q.jsonl']?.[0];
  assert.equal(renamed?.range.start.line, 1);
  assert.match(renamed?.newText ?? '', /"function":"f"/);
  const none = service.codeActions('file:///q.jsonl', text, { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, diagnostics);
  assert.deepEqual(none, []);
});

test('validates a file from disk with a summary for the status notification', async () => {
  const service = newJsonlService();
  const path = file('disk.jsonl', `${task('a')}\n${task('a')}\nnot json\n`);
  const { diagnostics, summary } = await service.validateFile(path);
  assert.deepEqual(
    diagnostics.map((d) => d.code),
    ['task/duplicate-id', 'jsonl/syntax'],
  );
  assert.equal(summary.lines, 3);
  assert.equal(summary.tasks, 1);
  assert.equal(summary.errors, 2);
  assert.equal(typeof summary.durationMs, 'number');
});

function capture(): { out: string[]; err: string[]; io: { out(l: string): void; err(l: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

test('gp dataset validate exits 0 for clean files and prints a summary', async () => {
  const c = capture();
  assert.equal(await datasetValidate(['datasets/sample/tasks.jsonl'], {}, c.io), 0);
  assert.deepEqual(c.out, [
    'datasets/sample/tasks.jsonl: 3 lines, 3 tasks, 0 errors, 0 warnings.',
    '  0 duplicate ids, 0 rows without an image, 0 unknown keys, 0 lines of invalid JSON, 0 lines not UTF-8; 1 image, 0 build-only.',
  ]);
});

test('gp dataset validate counts duplicate ids, rows without an image, unknown keys, bad lines and build-only images', async () => {
  const row = (id: string, image: string | undefined, extra = '') =>
    `{"task_id": "${id}", "sandbox": {${image === undefined ? '' : `"docker_image": "${image}", `}"workdir": "/testbed"}${extra}}`;
  const text = [row('a', 'sweb.eval.x86_64.a:latest'), row('a', 'img:1'), row('b', undefined), row('c', 'img:1', ', "colour": 1'), '{"task_id": ', '[1]'].join(
    '\n',
  );
  const path = file('counts.jsonl', `${text}\n`);
  const c = capture();
  assert.equal(await datasetValidate([path], {}, c.io), 1);
  assert.match(
    c.out.at(-1) ?? '',
    /^ {2}1 duplicate id, 1 row without an image, 1 unknown key, 1 line of invalid JSON, 0 lines not UTF-8; 2 images, 1 build-only\.$/,
  );
  const json = capture();
  await datasetValidate([path], { json: true }, json.io);
  const parsed = JSON.parse(json.out.join('\n')) as { counts: Record<string, number> }[];
  assert.deepEqual(parsed[0]?.counts, { duplicateIds: 1, missingImages: 1, unknownKeys: 1, invalidJson: 1, nonUtf8: 0, images: 2, buildOnlyImages: 1 });
});

test('gp dataset validate prints file:line:col severity code message and exits 1 on errors', async () => {
  const path = file('cli.jsonl', `${task('a')}\n{"task_id": "b",}\n`);
  const c = capture();
  assert.equal(await datasetValidate([path], {}, c.io), 1);
  assert.equal(c.out[0], `${path}:2:17 error jsonl/syntax Invalid JSON at column 17: Unexpected '}': remove the trailing comma before it.`);
  assert.equal(c.out[1], `${path}: 2 lines, 1 task, 1 error, 0 warnings.`);
  assert.match(c.out[2] ?? '', /1 line of invalid JSON/);
});

test('gp dataset validate exits 2 when a file cannot be read, limits problems, and prints JSON', async () => {
  const c = capture();
  assert.equal(await datasetValidate([join(dir, 'missing.jsonl'), 'datasets/sample/tasks.jsonl'], {}, c.io), 2);
  assert.match(c.err[0] ?? '', /missing\.jsonl: cannot read it/);
  const many = file('many.jsonl', `${['x', 'y', 'z'].join('\n')}\n`);
  const limited = capture();
  assert.equal(await datasetValidate([many], { maxProblems: 1 }, limited.io), 1);
  assert.equal(limited.out.length, 4);
  assert.equal(limited.out[1], '… and 2 more (use --max-problems 0 to see all)');
  const json = capture();
  assert.equal(await datasetValidate([many], { json: true }, json.io), 1);
  const parsed = JSON.parse(json.out.join('\n')) as { file: string; summary: { errors: number }; findings: { line: number; column: number }[] }[];
  assert.equal(parsed[0]?.summary.errors, 3);
  assert.deepEqual(
    parsed[0]?.findings.map((f) => [f.line, f.column]),
    [
      [1, 1],
      [2, 1],
      [3, 1],
    ],
  );
});

test('offers no whole-line rewrite that would round a large integer', async () => {
  const { fixedLine, losesPrecision } = await import('../../server/src/lsp/jsonlRowFix.js');
  const line = '{"task_id":"t","big":12345678901234567890,"sandbox":{"docker_image":"i","workdir":"/w"}}';
  assert.equal(losesPrecision(line), true);
  assert.equal(fixedLine(line, { title: 'x', edits: [{ op: 'set', path: ['max_steps'], value: 3 }] }), undefined);
  assert.equal(losesPrecision('{"task_id":"12345678901234567890","n":12}'), false, 'digits inside strings are fine');
});

test('fixes on a legacy row rewrite the whole normalised entry', () => {
  const legacy = JSON.stringify({
    task_id: 'l1',
    docker_image: 'sweb.eval.x86_64.django__django-1',
    instance: { mounts: ['repo:/repo'], commands: { test: 'pytest' } },
  });
  const result = validateLine(legacy);
  const rebased = result.findings.filter((f) => f.code !== 'task/legacy-shape' && f.fixes.length > 0);
  assert.ok(rebased.length > 0, 'the workdir of a sweb.eval image is checked on the normalised entry');
  for (const f of rebased)
    for (const fix of f.fixes)
      assert.deepEqual(
        fix.edits.map((e) => e.op),
        ['replaceRoot'],
        `${f.code}: ${fix.title}`,
      );
});

test('splits lines at a lone carriage return as the editor does', () => {
  assert.deepEqual(splitLines('a\rb\r\nc\nd\n'), ['a', 'b', 'c', 'd']);
});

test('the editor gives an empty dataset one jsonl/empty note and a binary one a single jsonl/not-text error', () => {
  const service = new JsonlService({ validateLine, validateFile: validateJsonlFile });
  const empty = service.validate('file:///d/empty.jsonl', '\n  \n').diagnostics;
  assert.deepEqual(
    empty.map((d) => d.code),
    ['jsonl/empty'],
  );
  const binary = `${'{"task_id": "a"}\n'}${String.fromCharCode(0)}${randomBytes(2048).toString('latin1')}`;
  const found = service.validate('file:///d/binary.jsonl', binary).diagnostics;
  assert.deepEqual(
    found.map((d) => d.code),
    ['jsonl/not-text'],
  );
});
