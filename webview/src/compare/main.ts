/**
 * The comparison page: two episodes of one task side by side, one row per aligned step pair, rows
 * where the two did different things highlighted, a gap where only one episode took a step, and
 * the outcomes above. Every message from the extension is validated before it is rendered.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { compareHostMessageSchema, type AlignedRowView, type EpisodeHeader, type StepRow } from '../../../server/src/protocol/episodeView.js';
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
tr.replayed td { color: var(--vscode-descriptionForeground); }
tr.replayed td.cell { background: none; }
tr.align-at td { border-top: 2px solid var(--vscode-focusBorder); }
tr.align-at td { background: color-mix(in srgb, var(--vscode-focusBorder) 12%, transparent); }
tr.divider td { padding: 6px 6px 2px; font-size: 0.9em; color: var(--vscode-descriptionForeground); border-bottom: none; }
tr.divider.live td { color: var(--vscode-foreground); font-weight: 600; }
.fork-note { margin: 8px 0; }
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

/** Whether the page has scrolled to the fork's step once; a comparison sent again leaves the scroll to the person. */
let aligned = false;

/**
 * The aligned rows, each a step pair; with `alignAt` (B is a fork of A from that step), the rows
 * whose B step comes before it read as replayed from A, under a line that says so, and the row of
 * the step itself is marked where B went on live.
 */
function alignedRows(rows: readonly AlignedRowView[], alignAt: number | null): HTMLElement[] {
  const out: HTMLElement[] = [];
  const divider = (text: string, live: boolean): HTMLElement =>
    el('tr', { class: `divider${live ? ' live' : ''}` }, el('td', { attrs: { colspan: '6' } }, text));
  if (alignAt !== null && alignAt > 1) out.push(divider(`Steps 1–${alignAt - 1}: B replayed A's recorded actions`, false));
  let marked = false;
  for (const r of rows) {
    const step = r.right?.step ?? null;
    const replayed = alignAt !== null && step !== null && step < alignAt;
    const at = alignAt !== null && !marked && step !== null && step >= alignAt;
    if (at) {
      marked = true;
      out.push(divider(`From step ${alignAt}: B went on live`, true));
    }
    const classes = [r.same ? 'same' : 'differs', replayed ? 'replayed' : '', at ? 'align-at' : ''].filter((c) => c !== '').join(' ');
    out.push(
      el(
        'tr',
        { class: classes, attrs: at ? { id: 'align-row', 'data-step': String(alignAt) } : {} },
        ...cells(r.left, r.leftTexts),
        ...cells(r.right, r.rightTexts),
      ),
    );
  }
  return out;
}

function onMessage(event: MessageEvent<unknown>): void {
  const parsed = compareHostMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Graph Planner comparison: ignored an invalid message', parsed.error.issues.slice(0, 3));
    return;
  }
  const c = parsed.data.comparison;
  const alignAt = parsed.data.alignAt ?? null;
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
    alignAt !== null &&
      el(
        'p',
        { class: 'banner info fork-note', attrs: { role: 'status', id: 'fork-note' } },
        `B continues A from step ${alignAt}: ${alignAt > 1 ? `steps 1–${alignAt - 1} are A's, replayed and checked; ` : ''}from step ${alignAt} on, B acted on its own.`,
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
      el('tbody', {}, ...alignedRows(c.rows, alignAt)),
    ),
  ];
  root.replaceChildren(...parts.filter((p): p is Exclude<typeof p, false> => p !== false));
  const row = document.getElementById('align-row');
  if (!aligned && row !== null) {
    aligned = true;
    row.scrollIntoView({ block: 'center' });
  }
}

adoptEpisodeStyles();
adoptCompareStyles();
adoptStepTextStyles();
window.addEventListener('message', onMessage);
send({ type: 'ready' });
