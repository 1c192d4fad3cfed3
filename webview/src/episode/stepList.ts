/**
 * The step list: one row per step (number, the kind's glyph, a summary that starts with the kind, reward, duration, and
 * markers for protocol errors, fallbacks, environment errors and timeouts). Rows are built once
 * and appended as a running episode grows; filtering and selection only toggle attributes, so a
 * thousand-step episode stays quick to step through.
 */
import type { StepKindName, StepRow } from '../../../server/src/protocol/episodeView.js';
import { el } from '../dom.js';
import { rewardClass, signed } from './stepDetail.js';
import { suspectBadge } from './suspectedHacks.js';

/** Our action kinds, then who spoke in a step of another tool's trajectory. */
export const stepKinds: readonly StepKindName[] = ['find', 'expand', 'read', 'memory', 'repair', 'submit', 'noop', 'invalid', 'system', 'user', 'agent'];

const glyphs: Record<StepKindName, string> = {
  find: '⌕',
  expand: '⤢',
  read: '☰',
  memory: '◆',
  repair: '✎',
  submit: '✓',
  noop: '·',
  invalid: '✕',
  system: '⚙',
  user: '✉',
  agent: '▸',
};

export interface Filters {
  /** Kinds hidden from the list; empty shows every kind. */
  readonly hidden: ReadonlySet<StepKindName>;
  readonly problemsOnly: boolean;
}

export function hasProblem(row: StepRow): boolean {
  // A submit flagged as suspected reward hacking is something to look at, so "problems only" keeps it.
  return row.protocolError !== null || row.fallback !== null || row.error !== null || row.timedOut || row.suspectedHacks !== undefined;
}

export class StepList {
  readonly element: HTMLElement;
  private readonly rows: StepRow[] = [];
  private readonly items = new Map<number, HTMLElement>();
  private readonly byStep = new Map<number, StepRow>();
  private selected: number | undefined;

  constructor(private readonly onSelect: (step: number) => void) {
    this.element = el('div', { class: 'step-list', attrs: { role: 'listbox', 'aria-label': 'Steps', tabindex: '0', id: 'step-list' } });
  }

  get all(): readonly StepRow[] {
    return this.rows;
  }

  row(step: number): StepRow | undefined {
    return this.byStep.get(step);
  }

  reset(rows: readonly StepRow[]): void {
    this.rows.length = 0;
    this.items.clear();
    this.byStep.clear();
    this.element.replaceChildren();
    this.append(rows);
  }

  append(rows: readonly StepRow[]): void {
    const fragment = document.createDocumentFragment();
    for (const row of rows) {
      this.rows.push(row);
      this.byStep.set(row.step, row);
      const item = this.item(row);
      this.items.set(row.step, item);
      fragment.append(item);
    }
    this.element.append(fragment);
  }

  applyFilters(filters: Filters): void {
    for (const row of this.rows) {
      const visible = !filters.hidden.has(row.kind) && (!filters.problemsOnly || hasProblem(row));
      this.items.get(row.step)?.toggleAttribute('hidden', !visible);
    }
  }

  /** Marks the rows of steps with search matches. */
  markMatches(steps: ReadonlySet<number>): void {
    for (const [step, item] of this.items) item.classList.toggle('match', steps.has(step));
  }

  select(step: number): void {
    if (this.selected !== undefined) {
      const old = this.items.get(this.selected);
      old?.setAttribute('aria-selected', 'false');
      old?.classList.remove('selected');
    }
    this.selected = step;
    const item = this.items.get(step);
    if (item === undefined) return;
    item.setAttribute('aria-selected', 'true');
    item.classList.add('selected');
    this.element.setAttribute('aria-activedescendant', item.id);
    item.scrollIntoView({ block: 'nearest' });
  }

  /** The visible steps, in order. */
  visibleSteps(): number[] {
    return this.rows.filter((r) => !this.items.get(r.step)?.hidden).map((r) => r.step);
  }

  private item(row: StepRow): HTMLElement {
    const markers = [
      row.protocolError !== null && el('span', { class: 'marker error', title: `Protocol error: ${row.protocolError}` }, 'protocol'),
      row.fallback !== null && el('span', { class: 'marker warning', title: `Fell back: ${row.fallback}` }, 'fallback'),
      row.error !== null && el('span', { class: 'marker error', title: row.error }, 'error'),
      row.timedOut && el('span', { class: 'marker warning', title: 'The step or the episode timed out' }, 'timeout'),
      row.replayed === true &&
        el(
          'span',
          { class: 'marker replayed', title: "Replayed from the episode this one continues: its parent's action, executed again and checked" },
          'replayed',
        ),
    ];
    // The markers stay visible when a long summary is cut with an ellipsis: they sit beside it, not in it.
    const badges = [...markers, row.suspectedHacks !== undefined && suspectBadge(row.suspectedHacks)].filter((b): b is HTMLElement => b instanceof HTMLElement);
    const summary = el('span', { class: 'summary', title: row.summary }, row.summary);
    const item = el(
      'div',
      { class: `step kind-${row.kind}`, attrs: { role: 'option', id: `step-${row.step}`, 'aria-selected': 'false', 'data-step': String(row.step) } },
      el('span', { class: 'num' }, String(row.step)),
      el('span', { class: 'glyph', title: row.kind, attrs: { 'aria-hidden': 'true' } }, glyphs[row.kind]),
      badges.length === 0 ? summary : el('span', { class: 'summary-cell' }, summary, ...badges),
      el(
        'span',
        { class: rewardClass(row.reward), title: row.reward === null ? 'This trajectory’s format records no reward for the step' : '' },
        signed(row.reward),
      ),
      el(
        'span',
        { class: 'duration' },
        row.durationMs === null ? '' : row.durationMs >= 1000 ? `${(row.durationMs / 1000).toFixed(1)} s` : `${Math.round(row.durationMs)} ms`,
      ),
    );
    item.addEventListener('click', () => this.onSelect(row.step));
    return item;
  }
}
