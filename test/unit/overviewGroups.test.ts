/** The overview page's layout data: settings grouped by config section, and where long texts may wrap. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkConfigText } from '../../server/src/config/index.js';
import { experimentOverview } from '../../server/src/lsp/experimentOverview.js';
import { breakPieces, groupSettings } from '../../webview/src/overviewGroups.js';

test('groups every Verl setting under its section once, in the table’s order, keyed by the rest of its path', () => {
  const { settings } = experimentOverview(checkConfigText('experiment:\n  name: t\n'), 'file:///e.yaml', 1);
  const groups = groupSettings(settings);
  const sections = groups.map((g) => g.section);
  assert.equal(new Set(sections).size, sections.length, `a section appears twice: ${sections.join(', ')}`);
  assert.deepEqual(groups.flatMap((g) => g.rows.map((r) => r.setting.key)).sort(), settings.map((s) => s.key).sort());
  for (const g of groups) for (const r of g.rows) assert.equal(`${g.section}.${r.rest}`, r.setting.key);
  const paths = groups.find((g) => g.section === 'paths');
  assert.ok(
    paths?.rows.some((r) => r.rest === 'dataset_train'),
    JSON.stringify(paths),
  );
  const logging = groups.find((g) => g.section === 'logging');
  assert.ok(
    logging?.rows.some((r) => r.rest === 'wandb.run_name'),
    'a deeper key keeps its inner dots',
  );
});

test('a key without a dot is a section of its own', () => {
  const setting = { key: 'seed', mapsTo: 'trainer.seed', value: '1', source: 'default', overridden: false } as const;
  assert.deepEqual(groupSettings([setting]), [{ section: 'seed', rows: [{ rest: 'seed', setting }] }]);
});

test('long values wrap after path slashes, dots and list commas, and join back to the same text', () => {
  assert.deepEqual(breakPieces('datasets/r2e_gym/train.jsonl'), ['datasets/', 'r2e_gym/', 'train.', 'jsonl']);
  assert.deepEqual(breakPieces('actor_rollout_ref.rollout.n'), ['actor_rollout_ref.', 'rollout.', 'n']);
  assert.deepEqual(breakPieces('[0, 1, 2]'), ['[0, ', '1, ', '2]']);
  assert.deepEqual(breakPieces('4096'), ['4096']);
  for (const text of ['a/b/c', 'x, y', '', '...', 'models/Qwen3-14B']) assert.equal(breakPieces(text).join(''), text);
});
