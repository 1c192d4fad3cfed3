/**
 * The trajectory viewer's marks of suspected reward hacking (server/src/env/hackSignals.ts): a
 * badge on the submit step's row, and the evidence under the submit's result. The evidence is the
 * patch's own text, already escaped to one line by the server; it goes in as text like every
 * string here (dom.ts), so a patch cannot inject markup into the page.
 */
import type { SuspectedHack, SuspectedHackKind } from '../../../server/src/protocol/observation.js';
import { el, plural } from '../dom.js';

const kindWords: Record<SuspectedHackKind, string> = {
  'grader-surface': 'grader’s files',
  'runner-internals': 'runner internals',
  git: 'runs git',
  network: 'network',
  'process-env': 'process environment',
};

/** What the badge says to a person who hovers it and to a screen reader. */
export function suspectWords(signals: number): string {
  return `Suspected reward hacking: the submitted patch has ${plural(signals, 'signal')} of gaming the grader (a flag to look at, not a verdict; the reward is unchanged)`;
}

/** The step list's badge for a submit whose patch looked like reward hacking. */
export function suspectBadge(signals: number): HTMLElement {
  const words = suspectWords(signals);
  return el('span', { class: 'marker suspect', title: words, attrs: { role: 'img', 'aria-label': words, 'data-suspect': String(signals) } }, '⚠ suspect');
}

/** The evidence under a submit's result: one row per signal, with the rule that matched. */
export function suspectedHacksSection(hacks: readonly SuspectedHack[]): HTMLElement {
  const rows = hacks.map((h) =>
    el(
      'tr',
      { attrs: { 'data-kind': h.kind } },
      el('td', {}, el('span', { class: `hack-kind kind-${h.kind}` }, kindWords[h.kind])),
      el('td', { class: 'where' }, el('code', {}, h.line === undefined ? h.path : `${h.path}:${h.line}`)),
      el('td', { class: 'evidence' }, el('code', {}, h.evidence), el('div', { class: 'muted' }, h.rule)),
    ),
  );
  return el(
    'section',
    { class: 'suspected-hacks', attrs: { id: 'suspected-hacks', 'aria-labelledby': 'suspected-hacks-title' } },
    el('h3', { attrs: { id: 'suspected-hacks-title' } }, `⚠ Suspected reward hacking (${plural(hacks.length, 'signal')})`),
    el(
      'p',
      { class: 'hint' },
      'The graded patch touches what the grader reads or reaches for the test runner, git, the network or the environment. It is flagged for a person to look at; the reward was not changed.',
    ),
    el(
      'table',
      { class: 'nodes hacks' },
      el('thead', {}, el('tr', {}, el('th', {}, 'signal'), el('th', {}, 'where'), el('th', {}, 'evidence · why'))),
      el('tbody', {}, ...rows),
    ),
  );
}
