import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';
import { DatasetInputError, formatSourcePlace, openRowSource, type RowSource, type SourceItem } from '../../server/src/datasets/rowSource.js';
import { r2eColumns, r2eShapedRows, swebenchColumns, swebenchLiteRows, writeFixtureParquet, type FixtureColumn } from '../support/parquetFixtures.js';
import { fixturePath, swebenchLiteFixture } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-row-source-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

/** A fresh path in the temporary folder with the given suffix. */
function temp(suffix: string): string {
  counter++;
  return join(dir, `f${counter}${suffix}`);
}

function writeText(suffix: string, text: string | Buffer): string {
  const path = temp(suffix);
  writeFileSync(path, text);
  return path;
}

async function collect(source: RowSource): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of source.rows()) items.push(item);
  return items;
}

async function itemsOf(path: string, options: { maxLineBytes?: number } = {}): Promise<SourceItem[]> {
  return collect(await openRowSource(path, options));
}

function rowValue(item: SourceItem | undefined): Record<string, unknown> {
  if (item?.kind !== 'row') assert.fail(`expected a row, got ${JSON.stringify(item)}`);
  return item.value;
}

function problem(item: SourceItem | undefined): Extract<SourceItem, { kind: 'problem' }> {
  if (item?.kind !== 'problem') assert.fail(`expected a problem, got ${JSON.stringify(item)}`);
  return item;
}

/** Asserts that `promise` rejects with a DatasetInputError of `code` and returns it. */
async function inputError(promise: Promise<unknown>, code: string): Promise<DatasetInputError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof DatasetInputError)) throw error;
    assert.equal(error.code, code, error.message);
    return error;
  }
  return assert.fail(`expected a DatasetInputError ${code}`);
}

/** Byte ranges of each row group (all its column chunks), from the file's own metadata. */
async function groupRanges(path: string): Promise<{ start: number; end: number }[]> {
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
  return metadata.row_groups.map((group) => {
    const starts = group.columns.map((c) => Number(c.meta_data?.dictionary_page_offset || c.meta_data?.data_page_offset));
    const ends = group.columns.map((c, i) => (starts[i] ?? 0) + Number(c.meta_data?.total_compressed_size));
    return { start: Math.min(...starts), end: Math.max(...ends) };
  });
}

const stringColumns = (names: string[]): FixtureColumn[] => names.map((name) => ({ name, type: 'STRING' }));

// ---------------------------------------------------------------------------------------------
// Parquet

test('all 300 SWE-bench Lite rows read back from parquet equal to the rows of the JSONL source', async () => {
  const rows = swebenchLiteRows();
  const path = temp('.parquet');
  writeFixtureParquet(path, rows, swebenchColumns, { rowGroupSize: 64 });
  const parquet = await openRowSource(path);
  assert.equal(parquet.format, 'parquet');
  assert.deepEqual(
    parquet.columns,
    swebenchColumns.map((c) => c.name),
  );
  assert.equal(parquet.rowCount, 300);
  const fromParquet = await collect(parquet);
  const jsonl = await openRowSource(fixturePath(swebenchLiteFixture));
  assert.equal(jsonl.format, 'jsonl');
  assert.equal(jsonl.columns, undefined);
  assert.equal(jsonl.rowCount, undefined);
  const fromJsonl = await collect(jsonl);
  assert.equal(fromParquet.length, 300);
  assert.equal(fromJsonl.length, 300);
  fromParquet.forEach((item, i) => {
    assert.deepEqual(rowValue(item), rowValue(fromJsonl[i]), `row ${i}`);
    assert.deepEqual(item.place, { file: path, row: i, rowGroup: Math.floor(i / 64) });
    assert.deepEqual(fromJsonl[i]?.place, { file: fixturePath(swebenchLiteFixture), line: i + 1 });
  });
});

test('reads parquet one row group at a time, placing each row by its index and group, with int64 as numbers', async () => {
  const rows = r2eShapedRows(20);
  const path = temp('.parquet');
  writeFixtureParquet(path, rows, r2eColumns, { rowGroupSize: 7 });
  const source = await openRowSource(path);
  assert.equal(source.rowCount, 20);
  const items = await collect(source);
  assert.deepEqual(
    items.map((i) => i.place),
    rows.map((_, i) => ({ file: path, row: i, rowGroup: Math.floor(i / 7) })),
  );
  items.forEach((item, i) => assert.deepEqual(rowValue(item), rows[i]));
  assert.equal(typeof rowValue(items[0])['num_non_test_lines'], 'number');
  assert.equal(formatSourcePlace(items[17]?.place ?? { file: '' }), `${path} row 17 (row group 2)`);
});

test('a damaged row group is found only when it is reached: the earlier groups yield their rows first, then reading throws naming the group', async () => {
  const path = temp('.parquet');
  writeFixtureParquet(path, r2eShapedRows(20), r2eColumns, { rowGroupSize: 7 });
  const bytes = readFileSync(path);
  const third = (await groupRanges(path))[2];
  assert.ok(third);
  bytes.fill(0xff, third.start, third.end);
  writeFileSync(path, bytes);

  const source = await openRowSource(path);
  const seen: SourceItem[] = [];
  const error = await inputError(
    (async () => {
      for await (const item of source.rows()) seen.push(item);
    })(),
    'dataset/corrupt-parquet',
  );
  // Rows 0–13 came from the first two groups before the third was decoded.
  assert.equal(seen.length, 14);
  assert.deepEqual(seen[0]?.place, { file: path, row: 0, rowGroup: 0 });
  assert.deepEqual(error.place, { file: path, rowGroup: 2 });
  assert.match(error.message, /row group 2 \(rows 14–19\) cannot be decoded/);
  assert.match(error.message, /download it again/);
  assert.ok(error.message.startsWith(path));
});

test('a parquet file cut short anywhere is rejected on open as truncated, saying to download it again', async () => {
  const path = temp('.parquet');
  writeFixtureParquet(path, r2eShapedRows(20), r2eColumns, { rowGroupSize: 7 });
  const bytes = readFileSync(path);
  const metadataLength = bytes.readUInt32LE(bytes.length - 8);
  const second = (await groupRanges(path))[1];
  assert.ok(second);
  const cuts = {
    'in the tail magic': bytes.length - 2,
    'in the metadata length': bytes.length - 6,
    'in the metadata': bytes.length - 8 - Math.floor(metadataLength / 2),
    'in the middle of a row group': Math.floor((second.start + second.end) / 2),
    'after the head magic': 6,
    'inside the head magic': 2,
  };
  for (const [where, at] of Object.entries(cuts)) {
    const cut = temp('.parquet');
    writeFileSync(cut, bytes.subarray(0, at));
    const error = await inputError(openRowSource(cut), 'dataset/truncated');
    assert.ok(error.message.startsWith(cut), where);
    assert.match(error.message, /truncated/, where);
    assert.match(error.message, /gp dataset prepare/, where);
  }
});

test('a parquet file missing the middle of a row group but keeping its footer is rejected on open, naming the group', async () => {
  const path = temp('.parquet');
  writeFixtureParquet(path, r2eShapedRows(20), r2eColumns, { rowGroupSize: 7 });
  const bytes = readFileSync(path);
  const metadataLength = bytes.readUInt32LE(bytes.length - 8);
  const second = (await groupRanges(path))[1];
  assert.ok(second);
  const spliced = temp('.parquet');
  writeFileSync(spliced, Buffer.concat([bytes.subarray(0, second.start + 100), bytes.subarray(bytes.length - metadataLength - 8)]));
  const error = await inputError(openRowSource(spliced), 'dataset/truncated');
  assert.equal(error.place.rowGroup, 1);
  assert.match(error.message, /of row group 1 \(rows 7–13\)/);
  assert.match(error.message, /bytes are missing/);
});

test('a footer whose metadata length exceeds the file is reported as truncated', async () => {
  const path = temp('.parquet');
  writeFixtureParquet(path, r2eShapedRows(3), r2eColumns);
  const bytes = readFileSync(path);
  // The first 100 bytes and the last 8: the footer claims more metadata than the file has.
  const shortened = temp('.parquet');
  writeFileSync(shortened, Buffer.concat([bytes.subarray(0, 100), bytes.subarray(bytes.length - 8)]));
  const error = await inputError(openRowSource(shortened), 'dataset/truncated');
  assert.match(error.message, /footer says the metadata is \d+ bytes, more than the file holds \(108 bytes\)/);
});

test('a file named .parquet that is not parquet, or is a Git LFS pointer, says so', async () => {
  const html = writeText('.parquet', '<!DOCTYPE html><html><body>Rate limited</body></html>\n');
  const notParquet = await inputError(openRowSource(html), 'dataset/not-parquet');
  assert.match(notParquet.message, /not a parquet file/);
  const lfs = writeText('.parquet', 'version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 2095978\n');
  const pointer = await inputError(openRowSource(lfs), 'dataset/not-parquet');
  assert.match(pointer.message, /Git LFS pointer/);
});

test('int64 values become numbers when safe and decimal strings when not, also inside lists', async () => {
  const path = temp('.parquet');
  const big = 2n ** 60n;
  parquetWriteFile({
    filename: path,
    schema: [
      { name: 'root', num_children: 2 },
      { name: 'n', type: 'INT64', repetition_type: 'OPTIONAL' },
      { name: 'ns', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'INT64', repetition_type: 'OPTIONAL' },
    ],
    columnData: [
      { name: 'n', data: [5n, big, -big, null] },
      { name: 'ns', data: [[1n, big], [], [-3n], null] },
    ],
  } as Parameters<typeof parquetWriteFile>[0]);
  const values = (await itemsOf(path)).map(rowValue);
  assert.deepEqual(values, [
    { n: 5, ns: [1, '1152921504606846976'] },
    { n: '1152921504606846976', ns: [] },
    { n: '-1152921504606846976', ns: [-3] },
    { n: null, ns: null },
  ]);
});

test('a parquet text value with invalid UTF-8 bytes is a non-utf8 problem naming the row and the column, while a real U+FFFD passes', async () => {
  const path = temp('.parquet');
  const rows: Record<string, unknown>[] = [
    { instance_id: 'a', problem_statement: 'fine' },
    { instance_id: 'b', problem_statement: new Uint8Array([0x6f, 0x6b, 0xff, 0x21]) },
    { instance_id: 'c', problem_statement: 'a real \ufffd replacement character' },
  ];
  writeFixtureParquet(path, rows, stringColumns(['instance_id', 'problem_statement']), { rowGroupSize: 2 });
  const items = await itemsOf(path);
  assert.equal(items.length, 3);
  assert.deepEqual(rowValue(items[0]), rows[0]);
  const bad = problem(items[1]);
  assert.equal(bad.code, 'dataset/non-utf8');
  assert.deepEqual(bad.place, { file: path, row: 1, rowGroup: 0 });
  assert.match(bad.message, /column `problem_statement` is not valid UTF-8 \(first bad byte at byte 3 of `problem_statement`\)/);
  assert.deepEqual(rowValue(items[2]), rows[2]);
});

test('a binary parquet column (bytes not declared as text) keeps invalid bytes as bytes and is not a problem', async () => {
  const path = temp('.parquet');
  parquetWriteFile({
    filename: path,
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'blob', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
    ],
    columnData: [{ name: 'blob', data: [new Uint8Array([0x89, 0x50, 0x4e, 0x47]), new TextEncoder().encode('plain text')] }],
  } as Parameters<typeof parquetWriteFile>[0]);
  const values = (await itemsOf(path)).map(rowValue);
  assert.deepEqual(values[0], { blob: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) });
  assert.deepEqual(values[1], { blob: 'plain text' });
});

test('an aborted signal stops a parquet read with dataset/aborted', async () => {
  const path = temp('.parquet');
  writeFixtureParquet(path, r2eShapedRows(10), r2eColumns, { rowGroupSize: 5 });
  const controller = new AbortController();
  const source = await openRowSource(path, { signal: controller.signal });
  const seen: SourceItem[] = [];
  await inputError(
    (async () => {
      for await (const item of source.rows()) {
        seen.push(item);
        controller.abort();
      }
    })(),
    'dataset/aborted',
  );
  // The first group was already decoded; the abort stops before the second is fetched.
  assert.equal(seen.length, 5);
});

// ---------------------------------------------------------------------------------------------
// JSONL

test('JSONL: strips a BOM, skips blank lines and CRLF endings, and keeps line numbers', async () => {
  const path = writeText('.jsonl', '\ufeff{"a":1}\r\n\r\n   \n{"a":2}\n\n{"a":3}');
  const items = await itemsOf(path);
  assert.deepEqual(items.map(rowValue), [{ a: 1 }, { a: 2 }, { a: 3 }]);
  assert.deepEqual(
    items.map((i) => i.place.line),
    [1, 4, 6],
  );
});

test('JSONL: a line that is not valid JSON is an invalid-json problem at the column of the error, and reading goes on', async () => {
  const path = writeText('.jsonl', '{"a":1}\n{"a": 2, "b": }\n{"a":3}\n');
  const items = await itemsOf(path);
  assert.equal(items.length, 3);
  const bad = problem(items[1]);
  assert.equal(bad.code, 'dataset/invalid-json');
  assert.deepEqual(bad.place, { file: path, line: 2 });
  // `{"a": 2, "b": ` is 14 characters, so the unexpected `}` is in column 15.
  assert.equal(bad.column, 15);
  assert.equal(formatSourcePlace(bad.place, bad.column), `${path}:2:15`);
  assert.match(bad.message, /not valid JSON/);
  assert.deepEqual(rowValue(items[2]), { a: 3 });
});

test('JSONL: a list on a line is a not-an-object problem saying one object per line was expected', async () => {
  const path = writeText('.jsonl', '[{"a":1}]\n  "text"\n{"a":2}\n');
  const items = await itemsOf(path);
  const list = problem(items[0]);
  assert.equal(list.code, 'dataset/not-an-object');
  assert.equal(list.message, 'Expected one JSON object per line, found a list.');
  assert.equal(list.column, 1);
  const text = problem(items[1]);
  assert.equal(text.message, 'Expected one JSON object per line, found a string.');
  assert.equal(text.column, 3);
  assert.deepEqual(rowValue(items[2]), { a: 2 });
});

test('JSONL: invalid UTF-8 bytes on a line are a non-utf8 problem at their column, and the next line is read', async () => {
  const line2 = Buffer.concat([Buffer.from('{"t":"é', 'utf8'), Buffer.from([0xc3, 0x28]), Buffer.from('"}', 'utf8')]);
  const path = writeText('.jsonl', Buffer.concat([Buffer.from('{"t":"ok"}\n'), line2, Buffer.from('\n{"t":"\ufffd is fine"}\n')]));
  const items = await itemsOf(path);
  assert.equal(items.length, 3);
  const bad = problem(items[1]);
  assert.equal(bad.code, 'dataset/non-utf8');
  assert.deepEqual(bad.place, { file: path, line: 2 });
  // `{"t":"é` is 7 characters (8 bytes), so the bad byte is in column 8.
  assert.equal(bad.column, 8);
  assert.match(bad.message, /byte 0xC3 at byte 9 of the line/);
  assert.deepEqual(rowValue(items[2]), { t: '\ufffd is fine' });
});

test('JSONL: a line longer than the limit is a problem, not held in memory, and the next line is read', async () => {
  const path = writeText('.jsonl', `{"a":1}\n{"long":"${'x'.repeat(5000)}"}\n{"a":3}`);
  const items = await itemsOf(path, { maxLineBytes: 1000 });
  assert.equal(items.length, 3);
  const long = problem(items[1]);
  assert.equal(long.code, 'dataset/line-too-long');
  assert.equal(long.place.line, 2);
  assert.deepEqual(rowValue(items[2]), { a: 3 });
});

test('JSONL: .jsonl.gz is gunzipped as a stream', async () => {
  const path = writeText('.jsonl.gz', gzipSync('{"a":1}\n{"a":2}\n'));
  const items = await itemsOf(path);
  assert.deepEqual(items.map(rowValue), [{ a: 1 }, { a: 2 }]);
  assert.deepEqual(items[1]?.place, { file: path, line: 2 });
});

test('JSONL: a cut .jsonl.gz yields the rows before the damage, then throws corrupt-gzip', async () => {
  const text = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ i, pad: `row ${i} `.repeat(5) })).join('\n');
  const zipped = gzipSync(text);
  const path = writeText('.jsonl.gz', zipped.subarray(0, Math.floor(zipped.length * 0.8)));
  const seen: SourceItem[] = [];
  const source = await openRowSource(path);
  const error = await inputError(
    (async () => {
      for await (const item of source.rows()) seen.push(item);
    })(),
    'dataset/corrupt-gzip',
  );
  assert.ok(seen.length > 0);
  assert.match(error.message, /damaged or cut short after line \d+/);
});

test('JSONL: aborting the signal stops the read with dataset/aborted', async () => {
  const path = writeText('.jsonl', '{"a":1}\n'.repeat(10));
  const controller = new AbortController();
  const source = await openRowSource(path, { signal: controller.signal });
  controller.abort();
  await inputError(collect(source), 'dataset/aborted');
  await inputError(openRowSource(path, { signal: controller.signal }), 'dataset/aborted');
});

test('a source can be read once; a second read is a bug and throws', async () => {
  const source = await openRowSource(writeText('.jsonl', '{"a":1}\n'));
  await collect(source);
  assert.throws(() => source.rows(), /already read/);
});

// ---------------------------------------------------------------------------------------------
// JSON

test('JSON: a list of objects yields one row per item; a non-object item is a problem at its index', async () => {
  const path = writeText('.json', JSON.stringify([{ a: 1 }, 7, { a: 2 }], null, 2));
  const source = await openRowSource(path);
  assert.equal(source.format, 'json');
  const items = await collect(source);
  assert.deepEqual(rowValue(items[0]), { a: 1 });
  const bad = problem(items[1]);
  assert.equal(bad.code, 'dataset/not-an-object');
  assert.deepEqual(bad.place, { file: path, item: 1 });
  assert.equal(formatSourcePlace(bad.place), `${path}[1]`);
  assert.match(bad.message, /Item 1 of the list is a number/);
  assert.deepEqual(items[2]?.place, { file: path, item: 2 });
});

test('JSON: rows wrapped in {instances:[…]} or {tasks:[…]} are read from the list; any other object is one row', async () => {
  const instances = await itemsOf(writeText('.json', JSON.stringify({ instances: [{ a: 1 }, { a: 2 }] })));
  assert.deepEqual(instances.map(rowValue), [{ a: 1 }, { a: 2 }]);
  const tasks = await itemsOf(writeText('.json.gz', gzipSync(JSON.stringify({ tasks: [{ a: 3 }] }))));
  assert.deepEqual(tasks.map(rowValue), [{ a: 3 }]);
  const single = await itemsOf(writeText('.json', '\ufeff{"task_id": "x", "tags": ["a"]}'));
  assert.deepEqual(single.map(rowValue), [{ task_id: 'x', tags: ['a'] }]);
});

test('JSON: a syntax error rejects on open with the line and column of the error', async () => {
  const path = writeText('.json', '[\n  {"a": 1},\n  {"a": 2,}\n]\n');
  const error = await inputError(openRowSource(path), 'dataset/invalid-json');
  assert.deepEqual(error.place, { file: path, line: 3 });
  assert.equal(error.column, 11);
  assert.ok(error.message.startsWith(`${path}:3:11: is not valid JSON`), error.message);
});

test('JSON: invalid UTF-8 rejects on open with the line and column of the bad byte', async () => {
  const path = writeText('.json', Buffer.concat([Buffer.from('[\n  {"t": "ü'), Buffer.from([0xfe]), Buffer.from('"}\n]')]));
  const error = await inputError(openRowSource(path), 'dataset/non-utf8');
  assert.deepEqual(error.place, { file: path, line: 2 });
  // `  {"t": "ü` is 10 characters (11 bytes), so the bad byte is in column 11.
  assert.equal(error.column, 11);
  assert.match(error.message, /iconv/);
});

test('JSON: a top-level value that is neither an object nor a list is rejected', async () => {
  const error = await inputError(openRowSource(writeText('.json', '42')), 'dataset/not-an-object');
  assert.match(error.message, /holds a number; expected one JSON object, a list of objects/);
});

// ---------------------------------------------------------------------------------------------
// Opening

test('an unknown extension is rejected with the accepted extensions', async () => {
  const error = await inputError(openRowSource(writeText('.csv', 'a,b\n1,2\n')), 'dataset/unknown-format');
  assert.match(error.message, /\.parquet, \.jsonl, \.jsonl\.gz, \.json and \.json\.gz/);
});

test('a missing file is rejected as not found, naming the path', async () => {
  const path = join(dir, 'nope.parquet');
  const error = await inputError(openRowSource(path), 'dataset/not-found');
  assert.ok(error.message.startsWith(`${path}: no such file`));
});

test('a folder is rejected as not a file', async () => {
  await inputError(openRowSource(dir), 'dataset/not-a-file');
});

test('formatSourcePlace writes lines, rows and items as messages show them', () => {
  assert.equal(formatSourcePlace({ file: 'a.jsonl', line: 3 }, 7), 'a.jsonl:3:7');
  assert.equal(formatSourcePlace({ file: 'a.jsonl', line: 3 }), 'a.jsonl:3');
  assert.equal(formatSourcePlace({ file: 'a.parquet', row: 17, rowGroup: 2 }), 'a.parquet row 17 (row group 2)');
  assert.equal(formatSourcePlace({ file: 'a.json', item: 3 }), 'a.json[3]');
  assert.equal(formatSourcePlace({ file: 'a.json' }), 'a.json');
});
