/**
 * The comparison page: two episodes of one task side by side, one row per aligned step pair, rows
 * where the two did different things highlighted, a gap where only one episode took a step, and
 * the outcomes above. Every message from the extension is validated before it is rendered.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { compareHostMessageSchema, type EpisodeHeader, type StepRow } from '../../../server/src/protocol/episodeView.js';
import type { StepTexts } from '../../../server/src/protocol/stepTexts.js';
import type { CompareWebviewMessage } from '../../../server/src/protocol/episodeWebview.js';
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import { el, plural } from '../dom.js';
import { adoptEpisodeStyles } from '../episode/episodeStyles.js';
import { signed } from '../episode/stepDetail.js';
import { vscodeApi } from '../host.js';
import { adoptStepTextStyles, stepTextNodes } from '../stepTextsView.js';
import { TraceFilters, traceFiltersFrom } from '../traceFilters.js';

const send = (message: CompareWebviewMessage): void => vscodeApi.postMessage(message);

const css = `
#root { height: auto; min-height: 100vh; padding: 0 16px 24px; box-sizing: border-box; }
.outcomes { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin: 12px 0; }
.outcome { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 8px 12px; }
.outcome h2 { font-size: 1.05em; margin: 0 0 4px; }
.summary-line { margin: 8px 0; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
table.aligned { width: 100%; border-collapse: collapse; table-layout: fixed; }
table.aligned th { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); }
table.aligned td { padding: 3px 6px; vertical-align: top; border-bottom: 1px solid var(--vscode-panel-border, transparent); overflow: hidden; }
table.aligned td .summary { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.aligned th.n, table.aligned td.n { width: 3em; text-align: right; color: var(--vscode-descriptionForeground); }
table.aligned td.r, table.aligned th.r { width: 4.5em; text-align: right; }
tr.differs td.cell { background: color-mix(in srgb, var(--vscode-charts-orange) 14%, transparent); }
td.gap { color: var(--vscode-descriptionForeground); font-style: italic; }
`;

function adoptCompareStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** The run folder of `<run>/trajectories/<episode>.jsonl`. */
function runOf(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.at(-3) ?? file;
}

function outcomeBox(side: 'left' | 'right', header: EpisodeHeader): HTMLElement {
  const o = header.outcome;
  const state = o === null ? 'not ended' : o.resolved ? 'resolved' : 'not resolved';
  const open = el('vscode-button', { attrs: { secondary: '', 'data-side': side }, title: 'Open in the trajectory viewer' }, 'Open');
  open.addEventListener('click', () => send({ type: 'openEpisode', side }));
  return el(
    'section',
    { class: 'outcome', attrs: { id: `outcome-${side}` } },
    el('h2', {}, `${side === 'left' ? 'A' : 'B'}: ${header.episodeId ?? header.taskId ?? '?'}`),
    el(
      'p',
      { class: 'muted', title: header.file },
      `run ${runOf(header.file)}${header.sandboxHost === null ? '' : ` · node ${shortNodeName(header.sandboxHost.node)}`}`,
    ),
    el(
      'p',
      {},
      el('span', { class: `state ${o === null ? 'running' : o.resolved ? 'resolved' : 'unresolved'}` }, state),
      ` · agent ${header.agent ?? '?'}`,
      o === null ? '' : ` · ${o.terminationReason} · reward ${signed(o.totalReward)} · ${plural(o.steps, 'step')} · ${(o.durationMs / 1000).toFixed(1)} s`,
    ),
    open,
  );
}

function cells(row: StepRow | null, texts: StepTexts | null | undefined): HTMLElement[] {
  if (row === null) return [el('td', { class: 'n' }), el('td', { class: 'cell gap' }, '(no step)'), el('td', { class: 'r' })];
  return [
    el('td', { class: 'n' }, String(row.step)),
    el('td', { class: 'cell' }, el('div', { class: 'summary', title: row.summary }, row.summary), ...stepTextNodes(texts)),
    el('td', { class: 'r' }, signed(row.reward)),
  ];
}

// The comparison is read row by row: thoughts and results are shown, the long observations hidden
// until asked for. The choice is kept in the page's state.
const root = document.getElementById('root') ?? document.body;
const filters = new TraceFilters(
  traceFiltersFrom((vscodeApi.getState() as { traceFilters?: unknown } | undefined)?.traceFilters, { thought: true, result: true, observation: false }),
  root,
  (value) => vscodeApi.setState({ traceFilters: value }),
);

function onMessage(event: MessageEvent<unknown>): void {
  const parsed = compareHostMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Graph Planner comparison: ignored an invalid message', parsed.error.issues.slice(0, 3));
    return;
  }
  const c = parsed.data.comparison;
  if (!c.ok) {
    root.replaceChildren(el('div', { class: 'banner error', attrs: { role: 'alert' } }, c.message));
    return;
  }
  const differing = c.rows.length - c.sameSteps;
  const diff = el('vscode-button', { attrs: { id: 'diff-patches' }, title: 'Open the two final patches in the diff editor' }, 'Diff final patches');
  diff.addEventListener('click', () => send({ type: 'diffPatches' }));
  const parts = [
    el('h1', {}, `Comparing two episodes of ${c.left.taskId ?? '?'}`),
    c.left.taskId !== c.right.taskId &&
      el(
        'div',
        { class: 'banner warning', attrs: { role: 'status' } },
        `These are episodes of different tasks (${c.left.taskId ?? '?'} and ${c.right.taskId ?? '?'}); the alignment still pairs identical actions.`,
      ),
    el('div', { class: 'outcomes' }, outcomeBox('left', c.left), outcomeBox('right', c.right)),
    el(
      'p',
      { class: 'summary-line', attrs: { id: 'compare-summary' } },
      `${plural(c.sameSteps, 'step')} the same, ${plural(differing, 'row')} differing · final patches ${c.samePatch === null ? 'not both there yet (an episode has not ended)' : c.samePatch ? 'identical' : 'differ'}`,
      diff,
    ),
    filters.element,
    el(
      'table',
      { class: 'aligned', attrs: { id: 'aligned' } },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { class: 'n' }, 'A'),
          el('th', {}, 'A did'),
          el('th', { class: 'r' }, 'reward'),
          el('th', { class: 'n' }, 'B'),
          el('th', {}, 'B did'),
          el('th', { class: 'r' }, 'reward'),
        ),
      ),
      el('tbody', {}, ...c.rows.map((r) => el('tr', { class: r.same ? 'same' : 'differs' }, ...cells(r.left, r.leftTexts), ...cells(r.right, r.rightTexts)))),
    ),
  ];
  root.replaceChildren(...parts.filter((p): p is Exclude<typeof p, false> => p !== false));
}

adoptEpisodeStyles();
adoptCompareStyles();
adoptStepTextStyles();
window.addEventListener('message', onMessage);
send({ type: 'ready' });
