/**
 * The package index as of a day (server/src/sandbox/asOfIndex.ts) and the days of SWE-bench's
 * specifications (server/src/datasets/specDates.ts), without the network: which files a day lets
 * through, how they are written for pip, and which day a specification gets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseProject, projectPage, upstreamIndex } from '../../server/src/sandbox/asOfIndex.js';
import { specDate } from '../../server/src/datasets/specDates.js';
import { swebenchSpecTable } from '../../server/src/datasets/swebenchTable.js';

const file = (filename: string, uploaded: string | null, extra: Record<string, unknown> = {}) => ({
  filename,
  url: `https://files.example/${filename}`,
  hashes: { sha256: 'a'.repeat(64) },
  'upload-time': uploaded,
  ...extra,
});

test('a release uploaded after the day is not listed, even when it is the newest', () => {
  const page = projectPage(
    'pluggy',
    [
      file('pluggy-1.3.0-py3-none-any.whl', '2023-08-26T13:02:31.123Z'),
      file('pluggy-1.3.0.tar.gz', '2023-09-06T00:00:00Z'),
      file('pluggy-1.4.0-py3-none-any.whl', '2024-01-24T13:45:02Z'),
      file('pluggy-0.1.tar.gz', null),
    ],
    '2023-09-06T00:00:00Z',
  );
  assert.match(page, /pluggy-1\.3\.0-py3-none-any\.whl/);
  // Uploaded at the very instant the day starts: not before it.
  assert.doesNotMatch(page, /pluggy-1\.3\.0\.tar\.gz/);
  assert.doesNotMatch(page, /pluggy-1\.4\.0/);
  // No upload time: it cannot be shown to predate the day.
  assert.doesNotMatch(page, /pluggy-0\.1/);
});

test('links carry the hash, Requires-Python and yanked marks, and hostile names are escaped', () => {
  const page = projectPage(
    'x',
    [
      file('x-1.0.tar.gz', '2020-01-01T00:00:00Z', { 'requires-python': '>=3.7,<4', yanked: 'broken "build"' }),
      file('x-<script>.tar.gz', '2020-01-01T00:00:00Z'),
    ],
    '2021-01-01T00:00:00Z',
  );
  assert.match(
    page,
    /href="https:\/\/files\.example\/x-1\.0\.tar\.gz#sha256=a{64}" data-requires-python="&gt;=3\.7,&lt;4" data-yanked="broken &quot;build&quot;">x-1\.0\.tar\.gz<\/a>/,
  );
  assert.doesNotMatch(page, /<script>/);
  assert.match(page, /x-&lt;script&gt;\.tar\.gz/);
});

test("project names are normalised as PEP 503 says, and the upstream is the user's index", () => {
  assert.equal(normaliseProject('Jinja2'), 'jinja2');
  assert.equal(normaliseProject('zope.interface'), 'zope-interface');
  assert.equal(normaliseProject('typing__Extensions'), 'typing-extensions');
  assert.equal(upstreamIndex({}), 'https://pypi.org/simple');
  assert.equal(upstreamIndex({ PIP_INDEX_URL: 'https://mirror.example/simple/' }), 'https://mirror.example/simple');
});

test('every specification of the tables has a day, and no day is before one of its exact pins', () => {
  const table = swebenchSpecTable();
  for (const [repo, versions] of Object.entries(table.repos)) {
    for (const version of Object.keys(versions)) {
      const { date, why } = specDate(repo, version);
      assert.match(date, /^\d{4}-\d{2}-\d{2}$/, `${repo}@${version}`);
      assert.ok(date >= '2023-09-06', `${repo}@${version}: ${date} is before the tables' first validation run`);
      assert.doesNotMatch(why, /not in the specification tables/, `${repo}@${version}`);
    }
  }
  // A pin from 2024 moves the day: flask's setuptools==70.0.0 was uploaded on 2024-05-21.
  assert.equal(specDate('pallets/flask', '2.0').date, '2024-05-22');
  assert.match(specDate('example/unknown', '1.0').why, /not in the specification tables/);
});
