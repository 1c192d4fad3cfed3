/**
 * An episode on the code graph as a part of a page: the graph the server laid out, a header with the
 * gold and the recall, a step slider with the distance to gold, the legend, and the drawing. The
 * code-graph panel (`main.ts`) fills its page with one; the trajectory viewer shows one in place of
 * the step's detail, stepping with its own selection. What a click or "Show all" does is the host
 * page's to say; the pane sends nothing itself.
 */
import type { CodeGraphNode, CodeGraphStep, EpisodeCodeGraph, RecallCounts } from '../../../server/src/protocol/codeGraphView.js';
import { el, plural } from '../dom.js';
import { fitScale, smallestScale } from './fitScale.js';
import { describeNode, drawGraph, type DrawnGraph } from './graphSvg.js';

export interface PaneActions {
  readonly openNode: (node: CodeGraphNode) => void;
  readonly showAll: () => void;
  /** The step or the zoom changed (the host may keep them across reloads). */
  readonly changed?: (state: PaneState) => void;
  /** Called once, when the first graph has been drawn and painted. */
  readonly painted?: () => void;
}

export interface PaneState {
  readonly step?: number;
  /** A scale, or `fit`: the whole graph in the room the pane has on screen (`fitScale.ts`). */
  readonly zoom?: number | 'fit';
}

const hoverHint = 'Hover a node for its id and place; click it to open its file.';

export class CodeGraphPane {
  readonly element = el('div', { class: 'code-graph', attrs: { id: 'code-graph-pane' } });
  private graph: EpisodeCodeGraph | undefined;
  private drawn: DrawnGraph | undefined;
  private step: number | undefined;
  private zoom: number | 'fit';
  private painted = false;
  private readonly info = el('div', { class: 'info', attrs: { id: 'node-info', 'aria-live': 'polite' } }, hoverHint);
  private controls = el('div', { attrs: { id: 'controls' } });

  constructor(
    private readonly actions: PaneActions,
    saved: PaneState = {},
  ) {
    this.step = saved.step;
    this.zoom = saved.zoom ?? 'fit';
    // Fitted again whenever the pane's room changes: the window, the viewer's splitter, or the pane
    // being put on the page after it was drawn (its room was nothing until then).
    new ResizeObserver(() => {
      if (this.graph !== undefined && this.zoom === 'fit') this.applyZoom();
    }).observe(this.element);
  }

  get hasGraph(): boolean {
    return this.graph !== undefined;
  }

  /** Draws a graph (a new one replaces what was drawn). */
  show(graph: EpisodeCodeGraph): void {
    this.graph = graph;
    this.drawn = undefined;
    this.render();
  }

  /** Moves to a step (0: after reset). */
  setStep(step: number): void {
    this.step = step;
    if (this.graph !== undefined) this.rerenderControls();
  }

  /** Says why there is no graph. */
  unavailable(reason: string): void {
    this.graph = undefined;
    this.drawn = undefined;
    this.element.replaceChildren(el('div', { class: 'banner warning', attrs: { role: 'alert', id: 'unavailable' } }, reason));
  }

  /** Says the graph is being built. */
  loading(text: string): void {
    if (this.graph === undefined) this.element.replaceChildren(el('p', { class: 'muted loading' }, text));
  }

  private state(): PaneState {
    return { ...(this.step === undefined ? {} : { step: this.step }), zoom: this.zoom };
  }

  private current(): number {
    const last = this.graph?.steps.at(-1)?.step ?? 0;
    return Math.min(this.step ?? last, last);
  }

  /**
   * The scale the drawing is shown at now. Fitting measures the canvas's width and the height from
   * its top to the bottom of the page: in the trajectory viewer the pane sits in the detail's
   * scrolling column, whose own height is the whole pane's, not what shows.
   */
  private scaleNow(): number {
    if (this.zoom !== 'fit') return this.zoom;
    const canvas = this.element.querySelector('.canvas');
    const width = (canvas?.clientWidth ?? window.innerWidth) - 8;
    const height = window.innerHeight - Math.max(0, canvas?.getBoundingClientRect().top ?? 0) - 8;
    return fitScale({ width: this.graph?.width ?? 1, height: this.graph?.height ?? 1 }, { width, height });
  }

  private applyZoom(): void {
    this.drawn?.zoom(this.scaleNow());
  }

  private render(): void {
    const g = this.graph;
    if (g === undefined) return;
    if (this.drawn === undefined)
      this.drawn = drawGraph(g, { open: (n) => this.actions.openNode(n), hover: (n) => (this.info.textContent = n === null ? hoverHint : describeNode(n)) });
    this.drawn.show(this.current());
    const canvas = el('div', { class: 'canvas', attrs: { id: 'graph' } });
    if (g.nodes.length === 0) canvas.append(el('p', { class: 'empty' }, 'The trajectory names no node of the code graph yet.'));
    else canvas.append(this.drawn.element);
    this.controls = el('div', { attrs: { id: 'controls' } }, this.stepper(g));
    this.element.replaceChildren(header(g, this.actions.showAll), this.controls, legend(), this.info, canvas);
    this.applyZoom();
    if (!this.painted) {
      this.painted = true;
      requestAnimationFrame(() => this.actions.painted?.());
    }
  }

  private rerenderControls(): void {
    if (this.graph === undefined) return;
    this.drawn?.show(this.current());
    const focused = document.activeElement?.id;
    this.controls.replaceChildren(this.stepper(this.graph));
    if (focused === 'step-slider') document.getElementById('step-slider')?.focus();
  }

  private onStep(step: number): void {
    this.step = step;
    this.actions.changed?.(this.state());
    this.rerenderControls();
  }

  private stepper(g: EpisodeCodeGraph): HTMLElement {
    const current = this.current();
    const last = g.steps.at(-1)?.step ?? 0;
    const slider = el('input', {
      attrs: { type: 'range', min: '0', max: String(last), step: '1', value: String(current), id: 'step-slider', 'aria-label': 'Step' },
    });
    slider.addEventListener('input', () => this.onStep(Number(slider.value)));
    const button = (text: string, title: string, delta: number) => {
      const b = el('button', { class: 'plain', title }, text);
      b.addEventListener('click', () => this.onStep(Math.min(last, Math.max(0, current + delta))));
      return b;
    };
    const zoomButton = (text: string, title: string, to: (scale: number) => number | 'fit', id: string) => {
      const b = el('button', { class: 'plain', title, attrs: { id } }, text);
      b.addEventListener('click', () => {
        this.zoom = to(this.scaleNow());
        this.applyZoom();
        this.actions.changed?.(this.state());
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
        el(
          'span',
          { class: 'now', attrs: { id: 'step-now' } },
          current === 0 ? 'After reset' : `Step ${current} of ${last}`,
          s === undefined ? '' : el('span', { class: 'muted' }, ` · ${s.summary} · ${plural(s.seen, 'node')} seen`),
        ),
        distanceText(s, g.gold.functions.length + g.gold.files.length > 0),
        el(
          'span',
          { class: 'zoom' },
          zoomButton('−', 'Zoom out', (now) => Math.max(smallestScale, now / 1.25), 'zoom-out'),
          zoomButton('+', 'Zoom in', (now) => Math.min(3, now * 1.25), 'zoom-in'),
          zoomButton('Fit', 'Show the whole graph: fit it to the pane', () => 'fit', 'zoom-fit'),
          zoomButton('1:1', 'Actual size', () => 1, 'zoom-actual'),
        ),
      ),
    );
  }
}

function distanceText(s: CodeGraphStep | undefined, hasGold: boolean): HTMLElement {
  if (!hasGold) return el('span', { class: 'distance unknown', attrs: { id: 'distance' } }, 'no gold to measure against');
  if (s?.distance === null || s === undefined)
    return el(
      'span',
      {
        class: 'distance unknown',
        attrs: { id: 'distance', title: 'No path the trajectory recorded joins what was seen to a gold node; the real graph may still have one.' },
      },
      'distance to gold: unknown',
    );
  return el(
    'span',
    {
      class: 'distance',
      attrs: { id: 'distance', title: 'Fewest known edges (containment, edges expansions walked) from a node seen by this step to a gold node' },
    },
    s.distance === 0 ? 'gold seen (0 hops)' : `distance to gold: ${plural(s.distance, 'hop')}`,
  );
}

function recallPart(title: string, c: RecallCounts): HTMLElement {
  const of = (n: number) => `${n}/${c.gold}`;
  return el(
    'span',
    { attrs: { id: `recall-${title.toLowerCase()}` } },
    `${title}: saw `,
    el('b', {}, of(c.seen)),
    ', read ',
    el('b', {}, of(c.read)),
    ', edited ',
    el('b', {}, of(c.edited)),
  );
}

function header(g: EpisodeCodeGraph, showAll: () => void): HTMLElement {
  const gold = g.gold;
  const goldLine =
    gold.files.length === 0 && gold.functions.length === 0
      ? null
      : el(
          'p',
          { class: 'muted' },
          `Gold: ${plural(gold.files.length, 'file')}, ${plural(gold.functions.length, 'definition')} (${[...new Set(gold.functions.map((f) => f.evidence))].join(', ') || 'files only'})${gold.source === null ? '' : ` from ${gold.source.split(/[\\/]/).pop() ?? gold.source}`}`,
        );
  return el(
    'header',
    { class: 'top' },
    el(
      'h1',
      {},
      `Code graph · ${g.taskId ?? 'unknown task'}`,
      g.episodeId !== null && g.episodeId !== g.taskId ? el('span', { class: 'muted' }, ` · ${g.episodeId}`) : '',
    ),
    el(
      'p',
      { class: 'muted', attrs: { id: 'node-count' } },
      `${plural(g.nodes.length, 'node')}: what the episode met, the files they are in and the gold nodes`,
      g.omitted > 0 ? omittedNote(g, showAll) : '',
    ),
    goldLine,
    g.recall === null
      ? null
      : el('p', { class: 'recall', attrs: { id: 'recall' } }, recallPart('Files', g.recall.files), recallPart('Functions', g.recall.functions)),
    gold.note === null ? null : el('div', { class: 'banner warning', attrs: { role: 'status', id: 'gold-note' } }, gold.note),
  );
}

/** Says how many nodes met only in passing are left out (each file says how many of its own), with a way to draw them all. */
function omittedNote(g: EpisodeCodeGraph, showAll: () => void): HTMLElement {
  const all = el(
    'button',
    { class: 'plain', title: 'Draw every node the episode met (slower to read on a large repository)', attrs: { id: 'show-all' } },
    `Show all ${g.total}`,
  );
  all.addEventListener('click', showAll);
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
