/**
 * An episode on the code graph: the subgraph it explored, laid out by the server, stepped through
 * with a slider (or in step with the trajectory viewer's selection), the gold patch's nodes marked,
 * the distance from what the agent had seen to the nearest gold node at each step, and its
 * localisation recall. Every message from the extension is validated before anything is drawn;
 * clicking a node asks the extension to open its file at its first line.
 */
import { codeGraphHostMessageSchema, type CodeGraphNode, type CodeGraphStep, type EpisodeCodeGraph, type RecallCounts } from '../../../server/src/protocol/codeGraphView.js';
import type { CodeGraphWebviewMessage } from '../../../server/src/protocol/codeGraphWebview.js';
import { el, plural } from '../dom.js';
import { vscodeApi } from '../host.js';
import { adoptCodeGraphStyles } from './codeGraphStyles.js';
import { describeNode, drawGraph, type DrawnGraph } from './graphSvg.js';

const send = (message: CodeGraphWebviewMessage): void => vscodeApi.postMessage(message);

interface SavedState {
  step?: number;
  /** A scale, or `fit`: as large as fits the panel’s width, between 0.8 and full size (smaller text is hard to read; past that the panel scrolls). */
  zoom?: number | 'fit';
}
const saved = (vscodeApi.getState() ?? {}) as SavedState;
let graph: EpisodeCodeGraph | undefined;
let drawn: DrawnGraph | undefined;
let step = typeof saved.step === 'number' ? saved.step : undefined;
let zoom: number | 'fit' = typeof saved.zoom === 'number' ? saved.zoom : 'fit';
let painted = false;

const root = (): HTMLElement => document.getElementById('root') ?? document.body;

function save(): void {
  vscodeApi.setState({ ...(step === undefined ? {} : { step }), zoom } satisfies SavedState);
}

function distanceText(s: CodeGraphStep | undefined, hasGold: boolean): HTMLElement {
  if (!hasGold) return el('span', { class: 'distance unknown', attrs: { id: 'distance' } }, 'no gold to measure against');
  if (s?.distance === null || s === undefined) return el('span', { class: 'distance unknown', attrs: { id: 'distance', title: 'No path the trajectory recorded joins what was seen to a gold node; the real graph may still have one.' } }, 'distance to gold: unknown');
  return el('span', { class: 'distance', attrs: { id: 'distance', title: 'Fewest known edges (containment, edges expansions walked) from a node seen by this step to a gold node' } }, s.distance === 0 ? 'gold seen (0 hops)' : `distance to gold: ${plural(s.distance, 'hop')}`);
}

function recallPart(title: string, c: RecallCounts): HTMLElement {
  const of = (n: number) => `${n}/${c.gold}`;
  return el('span', { attrs: { id: `recall-${title.toLowerCase()}` } }, `${title}: saw `, el('b', {}, of(c.seen)), ', read ', el('b', {}, of(c.read)), ', edited ', el('b', {}, of(c.edited)));
}

function header(g: EpisodeCodeGraph): HTMLElement {
  const gold = g.gold;
  const goldLine =
    gold.files.length === 0 && gold.functions.length === 0
      ? null
      : el('p', { class: 'muted' }, `Gold: ${plural(gold.files.length, 'file')}, ${plural(gold.functions.length, 'definition')} (${[...new Set(gold.functions.map((f) => f.evidence))].join(', ') || 'files only'})${gold.source === null ? '' : ` from ${gold.source.split(/[\\/]/).pop() ?? gold.source}`}`);
  return el(
    'header',
    { class: 'top' },
    el('h1', {}, `Code graph · ${g.taskId ?? 'unknown task'}`, g.episodeId !== null && g.episodeId !== g.taskId ? el('span', { class: 'muted' }, ` · ${g.episodeId}`) : ''),
    el('p', { class: 'muted', attrs: { id: 'node-count' } }, `${plural(g.nodes.length, 'node')}: what the episode met, the files they are in and the gold nodes`, g.omitted > 0 ? omittedNote(g) : ''),
    goldLine,
    g.recall === null ? null : el('p', { class: 'recall', attrs: { id: 'recall' } }, recallPart('Files', g.recall.files), recallPart('Functions', g.recall.functions)),
    gold.note === null ? null : el('div', { class: 'banner warning', attrs: { role: 'status', id: 'gold-note' } }, gold.note),
  );
}

/** Says how many nodes met only in passing are left out (each file says how many of its own), with a way to draw them all. */
function omittedNote(g: EpisodeCodeGraph): HTMLElement {
  const all = el('button', { class: 'plain', title: 'Draw every node the episode met (slower to read on a large repository)', attrs: { id: 'show-all' } }, `Show all ${g.total}`);
  all.addEventListener('click', () => send({ type: 'showAll' }));
  return el('span', {}, `; ${g.omitted} met only in passing are left out to keep it readable (“+N more” on their file) `, all);
}

function legend(): HTMLElement {
  const item = (swatch: string, text: string) => el('span', {}, el('span', { class: `swatch ${swatch}` }), text);
  const mark = (m: string, text: string) => el('span', {}, el('span', { class: 'mark' }, m), text);
  return el(
    'div',
    { class: 'legend', attrs: { id: 'legend' } },
    item('unseen', 'not seen yet'),
    item('', 'seen'),
    item('read', 'read'),
    item('edited', 'edited'),
    item('gold', 'gold'),
    mark('★', 'gold'),
    mark('✎', 'edited'),
    mark('◉', 'read'),
    mark('⊕', 'in memory'),
    mark('↗', 'expanded'),
    el('span', {}, 'F file · C class · ƒ function · m method; dashed purple: an edge an expansion walked'),
  );
}

function stepper(g: EpisodeCodeGraph, current: number, onStep: (s: number) => void): HTMLElement {
  const last = g.steps.at(-1)?.step ?? 0;
  const slider = el('input', { attrs: { type: 'range', min: '0', max: String(last), step: '1', value: String(current), id: 'step-slider', 'aria-label': 'Step' } });
  slider.addEventListener('input', () => onStep(Number(slider.value)));
  const button = (text: string, title: string, delta: number) => {
    const b = el('button', { class: 'plain', title }, text);
    b.addEventListener('click', () => onStep(Math.min(last, Math.max(0, current + delta))));
    return b;
  };
  const zoomButton = (text: string, title: string, to: (scale: number) => number | 'fit') => {
    const b = el('button', { class: 'plain', title }, text);
    b.addEventListener('click', () => {
      zoom = to(scaleNow(g));
      applyZoom(g);
      save();
    });
    return b;
  };
  const s = g.steps.find((x) => x.step === current);
  return el(
    'div',
    { class: 'stepper' },
    el('div', { class: 'row' }, button('◀', 'Previous step', -1), slider, button('▶', 'Next step', 1)),
    el(
      'div',
      { class: 'row' },
      el('span', { class: 'now', attrs: { id: 'step-now' } }, current === 0 ? 'After reset' : `Step ${current} of ${last}`, s === undefined ? '' : el('span', { class: 'muted' }, ` · ${s.summary} · ${plural(s.seen, 'node')} seen`)),
      distanceText(s, g.gold.functions.length + g.gold.files.length > 0),
      el(
        'span',
        { class: 'zoom' },
        zoomButton('−', 'Zoom out', (now) => Math.max(0.25, now / 1.25)),
        zoomButton('+', 'Zoom in', (now) => Math.min(3, now * 1.25)),
        zoomButton('Fit', 'Fit the width of the panel', () => 'fit'),
        zoomButton('1:1', 'Actual size', () => 1),
      ),
    ),
  );
}

const info = el('div', { class: 'info', attrs: { id: 'node-info', 'aria-live': 'polite' } }, 'Hover a node for its id and place; click it to open its file.');

/** The scale the drawing is shown at now. */
function scaleNow(g: EpisodeCodeGraph): number {
  if (zoom !== 'fit') return zoom;
  const room = (document.getElementById('graph')?.clientWidth ?? window.innerWidth) - 8;
  return Math.min(1, Math.max(0.8, room / Math.max(1, g.width)));
}

function applyZoom(g: EpisodeCodeGraph): void {
  drawn?.zoom(scaleNow(g));
}

function open(n: CodeGraphNode): void {
  send({ type: 'openNode', file: n.path, line: n.span?.start ?? 1 });
}

function render(): void {
  const g = graph;
  if (g === undefined) return;
  const last = g.steps.at(-1)?.step ?? 0;
  const current = Math.min(step ?? last, last);
  if (drawn === undefined) drawn = drawGraph(g, { open, hover: (n) => (info.textContent = n === null ? 'Hover a node for its id and place; click it to open its file.' : describeNode(n)) });
  drawn.show(current);
  const canvas = el('div', { class: 'canvas', attrs: { id: 'graph' } });
  if (g.nodes.length === 0) canvas.append(el('p', { class: 'empty' }, 'The trajectory names no node of the code graph yet.'));
  else canvas.append(drawn.element);
  const onStep = (s: number): void => {
    step = s;
    save();
    rerenderControls();
  };
  const controls = el('div', { attrs: { id: 'controls' } }, stepper(g, current, onStep));
  root().replaceChildren(header(g), controls, legend(), info, canvas);
  applyZoom(g);
  function rerenderControls(): void {
    const now = Math.min(step ?? last, last);
    drawn?.show(now);
    const focused = document.activeElement?.id;
    controls.replaceChildren(stepper(g as EpisodeCodeGraph, now, onStep));
    if (focused === 'step-slider') document.getElementById('step-slider')?.focus();
  }
  if (!painted) {
    painted = true;
    requestAnimationFrame(() => send({ type: 'timing', what: 'firstPaint', ms: performance.now() }));
  }
}

window.addEventListener('resize', () => {
  if (graph !== undefined && zoom === 'fit') applyZoom(graph);
});

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = codeGraphHostMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'unavailable') {
    graph = undefined;
    drawn = undefined;
    root().replaceChildren(el('div', { class: 'banner warning', attrs: { role: 'alert', id: 'unavailable' } }, message.reason));
    return;
  }
  if (message.type === 'step') {
    step = message.step;
    save();
  } else {
    graph = message.graph;
    drawn = undefined;
  }
  render();
});

adoptCodeGraphStyles();
send({ type: 'ready' });
