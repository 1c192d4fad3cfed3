/**
 * The handle between the trajectory viewer's step list and the step's detail: dragged with the
 * pointer, or moved with the arrow keys once focused (Shift for larger moves, Home and End for the
 * narrowest and widest, Enter or a double click for the default). The width is applied through a
 * constructable style sheet of its own (the page's Content Security Policy allows no inline style)
 * and kept as a share of the editor (`stepListWidth.ts`), which the page saves in its state.
 */
import { el } from '../dom.js';
import { minStepListPx, stepListShare, stepListWidth } from './stepListWidth.js';

const keyStep = 16;
const bigKeyStep = 64;
/** Below this width the page stacks the list above the detail (episodeStyles.ts) and the handle hides. */
const stackedBelowPx = 821;

export class StepListSplitter {
  readonly element = el('div', {
    class: 'splitter',
    title: 'Drag to resize the step list (or focus and use ← →; double-click for the default width)',
    attrs: {
      id: 'step-list-splitter',
      role: 'separator',
      tabindex: '0',
      'aria-orientation': 'vertical',
      'aria-label': 'Resize the step list',
      'aria-controls': 'step-list',
    },
  });
  private readonly sheet = new CSSStyleSheet();

  constructor(
    private readonly body: HTMLElement,
    private share: number | undefined,
    private readonly changed: (share: number | undefined) => void,
  ) {
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.sheet];
    this.element.addEventListener('pointerdown', (event) => this.drag(event));
    this.element.addEventListener('dblclick', () => this.set(undefined));
    this.element.addEventListener('keydown', (event) => this.key(event));
    new ResizeObserver(() => this.apply()).observe(body);
  }

  /** The list's width now, in CSS pixels. */
  private width(): number {
    return stepListWidth(this.body.clientWidth, this.share);
  }

  private apply(): void {
    const total = this.body.clientWidth;
    if (total <= 0) return;
    const width = this.width();
    this.sheet.replaceSync(`@media (min-width: ${stackedBelowPx}px) { .body { grid-template-columns: ${width}px 5px minmax(0, 1fr); } }`);
    this.element.setAttribute('aria-valuemin', String(minStepListPx));
    this.element.setAttribute('aria-valuemax', String(stepListWidth(total, 1)));
    this.element.setAttribute('aria-valuenow', String(width));
    this.element.setAttribute('aria-valuetext', `step list ${width} pixels wide`);
  }

  /** Sets the list's width (undefined: the default share) and tells the page to keep it. */
  private set(width: number | undefined): void {
    const total = this.body.clientWidth;
    this.share = width === undefined || total <= 0 ? undefined : stepListShare(width, total);
    this.apply();
    this.changed(this.share);
  }

  private drag(event: PointerEvent): void {
    if (event.button !== 0) return;
    event.preventDefault();
    const left = this.body.getBoundingClientRect().left;
    this.element.setPointerCapture(event.pointerId);
    this.element.classList.add('dragging');
    const move = (e: PointerEvent) => this.set(e.clientX - left);
    const end = () => {
      this.element.classList.remove('dragging');
      this.element.removeEventListener('pointermove', move);
      this.element.removeEventListener('pointerup', end);
      this.element.removeEventListener('pointercancel', end);
    };
    this.element.addEventListener('pointermove', move);
    this.element.addEventListener('pointerup', end);
    this.element.addEventListener('pointercancel', end);
  }

  private key(event: KeyboardEvent): void {
    const step = event.shiftKey ? bigKeyStep : keyStep;
    const moves: Record<string, () => number | undefined> = {
      ArrowLeft: () => this.width() - step,
      ArrowRight: () => this.width() + step,
      Home: () => 0,
      End: () => this.body.clientWidth,
      Enter: () => undefined,
    };
    const to = moves[event.key];
    if (to === undefined) return;
    // The viewer's own keys (↑ ↓ Home End step through the episode) are not meant here.
    event.preventDefault();
    event.stopPropagation();
    this.set(to());
  }
}
