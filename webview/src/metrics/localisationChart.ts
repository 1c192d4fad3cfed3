/**
 * The metrics page's localisation charts: per training step, the mean fraction of the gold files
 * and of the gold functions (classes and methods included) that the step's sampled episodes saw,
 * read and edited (server/src/graphView/runLocalisation.ts). A run that is not a training run has one
 * group, shown as figures rather than a line. The section listens for its own message
 * (`localisation`, validated like every other) and keeps its element, which the page's render
 * places among the charts.
 */
import { localisationPageMessageSchema, type RunLocalisationResult } from '../../../server/src/protocol/codeGraphView.js';
import { el, plural } from '../dom.js';
import { lineChart } from './chart.js';

/** The section's own styles, adopted beside the page's (the Content Security Policy allows no inline style). */
const css = `
.localisation { margin-top: 20px; }
.localisation h2 { font-size: 1.1em; margin: 0 0 4px; }
table.localisation-table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
table.localisation-table th, table.localisation-table td { padding: 3px 10px; text-align: right; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
table.localisation-table th:first-child, table.localisation-table td:first-child { text-align: left; }
table.localisation-table th { font-weight: 600; color: var(--vscode-descriptionForeground); }
`;
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const section = el('section', { class: 'localisation', attrs: { id: 'localisation' } });
let result: RunLocalisationResult | undefined;
let width = 600;

const percent = (y: number): string => `${(100 * y).toFixed(0)}%`;

function chart(id: string, title: string, level: 'files' | 'functions', r: RunLocalisationResult): HTMLElement {
  const groups = r.groups.filter((g) => g.step !== null && (level === 'files' ? g.scoredFiles : g.scoredFunctions) > 0);
  const series = (['seen', 'read', 'edited'] as const).map((how) => ({ label: how, points: groups.map((g) => ({ x: g.step ?? 0, y: g[level][how] })) }));
  return lineChart({
    id,
    title,
    series,
    smoothing: 0,
    formatX: (x) => (Number.isInteger(x) ? String(x) : ''),
    formatY: percent,
    formatLatest: percent,
    width,
    yRange: [-0.04, 1.04],
    xTitle: 'training step',
    yTitle: 'recall',
    empty: 'No sampled episode of a training step has gold to score yet.',
  });
}

function figures(r: RunLocalisationResult): HTMLElement {
  const rows = r.groups.map((g) =>
    el(
      'tr',
      {},
      el('td', {}, g.step === null ? 'run' : `step ${g.step}`),
      el('td', {}, String(g.episodes)),
      ...(['files', 'functions'] as const).flatMap((level) =>
        (['seen', 'read', 'edited'] as const).map((how) =>
          el('td', {}, (level === 'files' ? g.scoredFiles : g.scoredFunctions) === 0 ? '–' : percent(g[level][how])),
        ),
      ),
    ),
  );
  return el(
    'table',
    { class: 'data localisation-table', attrs: { id: 'localisation-table' } },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['', 'episodes', 'files seen', 'files read', 'files edited', 'functions seen', 'functions read', 'functions edited'].map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, ...rows),
  );
}

function draw(): void {
  const r = result;
  if (r === undefined) return;
  const training = r.groups.some((g) => g.step !== null);
  const scored = r.episodes - r.withoutGold;
  const note = el(
    'p',
    { class: 'summary' },
    `Localisation against the gold patches: ${plural(r.episodes, 'episode')} read, ${scored} with gold${training ? ' (each training step’s sampled episodes)' : ''}.`,
    r.problems.length === 0 ? '' : ` ${r.problems.slice(0, 3).join('; ')}`,
  );
  const lastScored = [...r.groups].reverse().find((g) => g.step !== null && g.scoredFiles + g.scoredFunctions > 0);
  // The three lines often coincide (an episode that edits a gold function has read and seen it), so the last step's figures are spelled out.
  const latest =
    lastScored === undefined
      ? null
      : el(
          'p',
          { class: 'summary', attrs: { id: 'localisation-latest' } },
          `Step ${lastScored.step ?? ''}: files seen ${percent(lastScored.files.seen)}, read ${percent(lastScored.files.read)}, edited ${percent(lastScored.files.edited)}; functions seen ${percent(lastScored.functions.seen)}, read ${percent(lastScored.functions.read)}, edited ${percent(lastScored.functions.edited)}.`,
        );
  const body = training
    ? el(
        'div',
        { class: 'charts' },
        chart('recall-files', 'Gold files the episodes reached', 'files', r),
        chart('recall-functions', 'Gold functions the episodes reached', 'functions', r),
      )
    : figures(r);
  section.replaceChildren(el('h2', {}, 'Localisation recall'), note, ...(training && latest !== null ? [latest] : []), body);
}

/** The section, sized for charts of `columnWidth`; the page calls this on each render. */
export function localisationSection(columnWidth: number): HTMLElement {
  width = columnWidth;
  draw();
  return section;
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = localisationPageMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  result = parsed.data.result;
  draw();
});
