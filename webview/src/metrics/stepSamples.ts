/**
 * The metrics page's sample table: for the selected training step, the episodes `step_samples.jsonl`
 * kept of it (spread over their returns, the worst and the best always in), each with its task,
 * reward, steps, termination, a link that opens its trajectory and one that opens its task's GRPO
 * group at that step. It follows the latest step until a person picks one (from the selector or by
 * clicking a chart). Messages from the extension are validated before anything is drawn.
 */
import type { StepSamplesLine } from '../../../server/src/protocol/metrics.js';
import { stepSamplesPageMessageSchema, type RunStepSamplesResult } from '../../../server/src/protocol/stepSamplesView.js';
import type { StepSamplesWebviewMessage } from '../../../server/src/protocol/stepSamplesWebview.js';
import { el, plural } from '../dom.js';
import { vscodeApi } from '../host.js';

const send = (message: StepSamplesWebviewMessage): void => vscodeApi.postMessage(message);

const css = `
.samples { margin-top: 18px; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 8px 12px 10px; }
.samples-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.samples-head h2 { font-size: 1.05em; margin: 0 8px 0 0; }
.samples-head select { font: inherit; padding: 1px 4px; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, transparent); }
.samples .spacer { flex: 1; }
table.samples-table { width: 100%; border-collapse: collapse; margin-top: 6px; font-variant-numeric: tabular-nums; }
table.samples-table th { text-align: left; font-weight: 600; padding: 3px 8px; border-bottom: 1px solid var(--vscode-panel-border, #8886); }
table.samples-table td { padding: 3px 8px; border-bottom: 1px solid var(--vscode-panel-border, #8883); }
table.samples-table td.num, table.samples-table th.num { text-align: right; }
table.samples-table td.no-outcome { color: var(--vscode-editorWarning-foreground); }
table.samples-table td.ok { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.samples a { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
.samples a:hover { text-decoration: underline; }
svg.pickable { cursor: pointer; }
`;

function link(text: string, title: string, action: () => void, attrs: Record<string, string> = {}): HTMLElement {
  const a = el('a', { title, attrs: { href: '#', ...attrs } }, text);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    action();
  });
  return a;
}

export class StepSamplesSection {
  readonly element = el('section', { class: 'samples', attrs: { id: 'step-samples', 'aria-label': 'Sampled episodes of a training step' } });
  private result: RunStepSamplesResult | undefined;
  /** The step a person picked; null follows the latest. */
  private picked: number | null = null;
  /** Scroll to the table once it is on the page and has its rows (Show Step Samples). */
  private focusWanted = false;

  constructor() {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      const parsed = stepSamplesPageMessageSchema.safeParse(event.data);
      if (!parsed.success) return;
      if (parsed.data.type === 'focusStepSamples') this.focusWanted = true;
      else {
        this.result = parsed.data.result;
        this.render();
      }
      this.placed();
    });
    this.render();
    send({ type: 'stepSamples', step: null });
  }

  /** New metrics lines arrived: a new step may have its table, which matters while following the latest. */
  metricsArrived(): void {
    if (this.picked === null) send({ type: 'stepSamples', step: null });
  }

  /**
   * Called once the page has put the section in place (the metrics page redraws its children as
   * lines arrive): a scroll asked for before the section was on the page happens now.
   */
  placed(): void {
    if (!this.focusWanted || !this.element.isConnected || this.result === undefined) return;
    this.focusWanted = false;
    this.element.scrollIntoView({ block: 'start' });
  }

  pick(step: number): void {
    this.picked = step;
    send({ type: 'stepSamples', step });
    this.element.scrollIntoView({ block: 'nearest' });
  }

  private render(): void {
    const r = this.result;
    const line = r?.samples ?? null;
    const steps = r?.steps ?? [];
    const head = el('div', { class: 'samples-head' }, el('h2', {}, line === null ? 'Sampled episodes per step' : `Sampled episodes of step ${line.step}`));
    if (steps.length > 0) {
      const select = el(
        'select',
        { attrs: { id: 'samples-step', 'aria-label': 'Training step' } },
        ...steps.map((s) => el('option', { attrs: { value: String(s), ...(s === line?.step ? { selected: '' } : {}) } }, `step ${s}`)),
      );
      select.addEventListener('change', () => this.pick(Number(select.value)));
      head.append(select);
      if (this.picked !== null)
        head.append(
          link('follow the latest', 'Show each new step’s table as it arrives', () => {
            this.picked = null;
            send({ type: 'stepSamples', step: null });
          }),
        );
    }
    head.append(el('span', { class: 'spacer' }));
    if (line !== null)
      head.append(
        link(
          'Open the GRPO groups of this step',
          'Every rollout of a task side by side, with rewards and advantages',
          () => send({ type: 'openGroup', step: line.step, taskId: null }),
          { id: 'samples-open-group' },
        ),
      );
    const body =
      line === null
        ? el(
            'p',
            { class: 'muted' },
            r === undefined
              ? 'Reading the sample tables…'
              : 'No sample table yet: a training run writes one per step to step_samples.jsonl, when the step’s metrics arrive.',
          )
        : this.table(line);
    this.element.replaceChildren(head, body);
  }

  private table(line: StepSamplesLine): HTMLElement {
    const rows = line.episodes.map((e) =>
      el(
        'tr',
        { attrs: { 'data-episode': e.episode_id } },
        el('td', { title: e.episode_id }, e.task_id),
        el('td', { class: 'num' }, e.total_reward.toFixed(2)),
        el('td', { class: e.resolved ? 'ok' : '' }, e.resolved ? 'resolved' : 'not resolved'),
        el('td', { class: 'num' }, String(e.steps)),
        el(
          'td',
          e.no_outcome === undefined ? {} : { class: 'no-outcome', title: 'No outcome: masked in the update and left out of its GRPO group.' },
          e.no_outcome === undefined ? e.termination_reason : `${e.termination_reason} · no outcome (${e.no_outcome})`,
        ),
        el(
          'td',
          {},
          link('trajectory', `Open ${e.trajectory} in the trajectory viewer`, () => send({ type: 'openSample', episodeId: e.episode_id })),
        ),
        el(
          'td',
          {},
          link('group', `The GRPO group of ${e.task_id} at step ${line.step}`, () => send({ type: 'openGroup', step: line.step, taskId: e.task_id })),
        ),
      ),
    );
    return el(
      'div',
      {},
      el(
        'p',
        { class: 'muted' },
        `${plural(line.episodes.length, 'episode')} of the ${line.total} that ended in this step (attempt ${line.attempt}), spread over their returns: the worst and the best are always in.`,
      ),
      el(
        'table',
        { class: 'samples-table', attrs: { id: 'samples-table' } },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', {}, 'task'),
            el('th', { class: 'num' }, 'reward'),
            el('th', {}, 'outcome'),
            el('th', { class: 'num' }, 'steps'),
            el('th', {}, 'termination'),
            el('th', {}, ''),
            el('th', {}, ''),
          ),
        ),
        el('tbody', {}, ...rows),
      ),
    );
  }
}
