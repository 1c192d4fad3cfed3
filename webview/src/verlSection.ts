/**
 * The Verl settings: the config fields with `maps_to` metadata grouped under their section, each a
 * row of two columns (our key on the left, never centred; on the right the effective value, the
 * Verl key it is passed as and where the value comes from), then the `verl_overrides` leaves, which
 * Verl applies last. The two columns become one when the panel is narrow (styles.ts).
 */
import type { OverviewRange, VerlOverride, VerlSetting } from '../../server/src/protocol/overview.js';
import { el } from './dom.js';
import { breakPieces, groupSettings } from './overviewGroups.js';

const sourceLabels: Record<VerlSetting['source'], string> = {
  file: 'set in the file',
  default: 'default',
  invalid: 'default (the file’s value is invalid)',
};

type Reveal = (range: OverviewRange) => void;

export function verlSection(settings: readonly VerlSetting[], overrides: readonly VerlOverride[], reveal: Reveal): HTMLElement {
  const groups = groupSettings(settings).map((g) =>
    el(
      'div',
      { class: 'kv-group' },
      el('h3', { class: 'section-name' }, el('code', {}, g.section)),
      el('dl', { class: 'kv', attrs: { 'aria-label': `${g.section} settings` } }, ...g.rows.map((r) => settingRow(r.rest, r.setting, reveal))),
    ),
  );
  return el(
    'section',
    { attrs: { 'aria-labelledby': 'verl-heading', id: 'verl-settings' } },
    el('h2', { attrs: { id: 'verl-heading' } }, 'Verl settings'),
    el('p', { class: 'hint' }, 'Fields that reach Verl/Hydra, defaults merged with the file. Click a key written in the file to show it.'),
    el('div', { class: 'kv-groups' }, ...groups),
    el('h3', {}, el('code', {}, 'verl_overrides')),
    overrides.length === 0
      ? el('p', { class: 'hint' }, 'None. Entries here are passed to Hydra unchanged and applied last, so they win.')
      : el(
          'div',
          {},
          el('p', { class: 'hint' }, 'Passed to Hydra unchanged and applied last: they win over the settings above.'),
          el('dl', { class: 'kv', attrs: { id: 'overrides', 'aria-label': 'verl_overrides' } }, ...overrides.map((o) => overrideRow(o, reveal))),
        ),
  );
}

function settingRow(rest: string, s: VerlSetting, reveal: Reveal): HTMLElement {
  const source = el('span', { class: `source ${s.source}` }, sourceLabels[s.source]);
  const overridden = s.overridden && el('span', { class: 'source overridden-note' }, 'overridden by verl_overrides');
  return el(
    'div',
    { class: 'kv-row', attrs: { 'data-key': s.key } },
    el('dt', {}, keyCell(rest, s.range, reveal)),
    el(
      'dd',
      {},
      el('code', { class: `value${s.overridden ? ' overridden' : ''}` }, ...breakable(s.value)),
      el(
        'span',
        { class: 'meta' },
        el('span', { class: 'maps-to', title: 'The Verl/Hydra key it is passed as' }, '→ ', el('code', {}, ...breakable(s.mapsTo))),
        source,
        overridden,
      ),
    ),
  );
}

function overrideRow(o: VerlOverride, reveal: Reveal): HTMLElement {
  return el(
    'div',
    { class: 'kv-row', attrs: { 'data-key': `verl_overrides.${o.key}` } },
    el('dt', {}, keyCell(o.key, o.range, reveal)),
    el('dd', {}, el('code', { class: 'value' }, ...breakable(o.value))),
  );
}

/** A key: a link-styled button that shows it in the YAML when the file writes it, else plain code. */
function keyCell(key: string, range: OverviewRange | undefined, reveal: Reveal): HTMLElement {
  const code = el('code', {}, ...breakable(key));
  if (range === undefined) return el('span', { class: 'key', title: 'Not written in the file: the default applies' }, code);
  const button = el('button', { class: 'link key', title: 'Show in the YAML file' }, code);
  button.addEventListener('click', () => reveal(range));
  return button;
}

/** Text with a line-break opportunity after each separator (`breakPieces`), as text nodes and `<wbr>`. */
function breakable(text: string): (Node | string)[] {
  return breakPieces(text).flatMap((piece, i) => (i === 0 ? [piece] : [el('wbr'), piece]));
}
