/**
 * Show or hide the thoughts, the tool results (what an action returned) and the observations of
 * every step, in every view of a trace (the trajectory viewer, the comparison and the group view),
 * as long traces need. A view marks those parts with `data-part="thought" | "result" |
 * "observation"`; the filters hide them with one class on the view's root, so toggling redraws
 * nothing. Each view keeps its own choice in its webview state, under `traceFilters`.
 */
import { el } from './dom.js';

export type TracePart = 'thought' | 'result' | 'observation';
export type TraceFilterState = Record<TracePart, boolean>;

const parts: readonly { part: TracePart; label: string; title: string }[] = [
  { part: 'thought', label: 'Thoughts', title: 'Show or hide the thought behind each action' },
  { part: 'result', label: 'Tool results', title: 'Show or hide what each action returned' },
  { part: 'observation', label: 'Observations', title: 'Show or hide the observation the model read after each step' },
];

const css = `
.hide-thought [data-part="thought"], .hide-result [data-part="result"], .hide-observation [data-part="observation"] { display: none !important; }
.trace-filters { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.trace-filters .label { color: var(--vscode-descriptionForeground); margin-right: 2px; }
.trace-filters button { font: inherit; font-size: 0.9em; padding: 1px 8px; border-radius: 10px; cursor: pointer;
  border: 1px solid var(--vscode-button-secondaryBackground, var(--vscode-panel-border)); background: transparent; color: var(--vscode-foreground); }
.trace-filters button[aria-pressed="true"] { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
.trace-filters button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
`;

let adopted = false;

function adopt(): void {
  if (adopted) return;
  adopted = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** A saved state read defensively: anything but a boolean keeps the view's default. */
export function traceFiltersFrom(saved: unknown, defaults: TraceFilterState): TraceFilterState {
  const value = typeof saved === 'object' && saved !== null ? (saved as Record<string, unknown>) : {};
  const pick = (part: TracePart): boolean => (typeof value[part] === 'boolean' ? (value[part] as boolean) : defaults[part]);
  return { thought: pick('thought'), result: pick('result'), observation: pick('observation') };
}

/** The filters of one view: its toggle buttons, applied to `root`, and told to `onChange` to be saved. */
export class TraceFilters {
  readonly element: HTMLElement;
  private state: TraceFilterState;

  constructor(
    initial: TraceFilterState,
    private readonly root: HTMLElement,
    private readonly onChange: (state: TraceFilterState) => void,
  ) {
    adopt();
    this.state = { ...initial };
    this.element = el('div', { class: 'trace-filters', attrs: { role: 'group', 'aria-label': 'Show parts of each step' } });
    this.render();
    this.apply();
  }

  get value(): TraceFilterState {
    return { ...this.state };
  }

  private render(): void {
    this.element.replaceChildren(
      el('span', { class: 'label' }, 'Show'),
      ...parts.map(({ part, label, title }) => {
        const b = el('button', { title, attrs: { type: 'button', 'aria-pressed': String(this.state[part]), 'data-trace-filter': part } }, label);
        b.addEventListener('click', () => {
          this.state = { ...this.state, [part]: !this.state[part] };
          this.render();
          this.apply();
          this.onChange(this.value);
        });
        return b;
      }),
    );
  }

  private apply(): void {
    for (const { part } of parts) this.root.classList.toggle(`hide-${part}`, !this.state[part]);
  }
}
