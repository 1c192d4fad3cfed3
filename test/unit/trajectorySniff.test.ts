import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sniffChars, sniffTrajectoryFormat } from '../../server/src/protocol/trajectorySniff.js';
import { foreignFormatOf } from '../../server/src/formats/trajectoryFormat.js';

const formats = 'test/fixtures/formats';

test('every real ATIF, SWE-agent, mini-swe-agent and Inspect JSON file is told from its first characters as the full read tells it', () => {
  let checked = 0;
  for (const folder of ['atif', 'swe-agent', 'mini-swe-agent', 'inspect']) {
    for (const name of readdirSync(join(formats, folder)).filter((n) => /\.(json|traj)$/.test(n))) {
      const text = readFileSync(join(formats, folder, name), 'utf8');
      assert.equal(sniffTrajectoryFormat(text.slice(0, sniffChars)), foreignFormatOf(JSON.parse(text)), name);
      checked++;
    }
  }
  assert.ok(checked >= 4);
});

test('ordinary JSON is never taken for a trajectory', () => {
  for (const path of ['package.json', 'tsconfig.json', 'schemas/trajectory.schema.json', 'schemas/experiment.schema.json', 'package-lock.json']) {
    assert.equal(sniffTrajectoryFormat(readFileSync(path, 'utf8')), undefined, path);
  }
  assert.equal(sniffTrajectoryFormat('{"description": "mentions \\"schema_version\\" and ATIF-v1.7 in prose"}'), undefined);
  assert.equal(sniffTrajectoryFormat('[{"name": "x"}]'), undefined);
  assert.equal(sniffTrajectoryFormat('{"trajectory": "a string, not steps"}'), undefined);
  assert.equal(sniffTrajectoryFormat('not json at all'), undefined);
});

test('a marker past the characters read is not looked for', () => {
  const late = `{"padding": "${'x'.repeat(sniffChars)}", "schema_version": "ATIF-v1.7", "agent": {}, "steps": []}`;
  assert.equal(foreignFormatOf(JSON.parse(late)), 'atif', 'the full read would tell it');
  assert.equal(sniffTrajectoryFormat(late), undefined);
});
