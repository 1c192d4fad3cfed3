/**
 * A rollout's or an evaluation's report page: a summary head (resolved x of y, the rate over the
 * episodes that ran to their end, infrastructure failures counted apart), the per-task table with
 * links to each episode, the failure reasons grouped, and the episodes the infrastructure failed.
 * Every figure comes from the server (protocol/runReportView.ts defines each one); every string
 * from the report goes in as text. Messages from the extension are validated before anything is drawn.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { reportPageMessageSchema, type RunReportView } from '../../../server/src/protocol/runReportView.js';
import type { ReportWebviewMessage } from '../../../server/src/protocol/reportWebview.js';
import { el, plural } from '../dom.js';
import { vscodeApi } from '../host.js';
import { adoptReportStyles } from './reportStyles.js';
import { parseSort, type TaskSort } from './taskOrder.js';
import { link, number, seconds, taskTable } from './taskTable.js';

const send = (message: ReportWebviewMessage): void => vscodeApi.postMessage(message);

const percent = (x: number): string => `${(100 * x).toFixed(x === 0 || x === 1 ? 0 : 1)}%`;

function button(label: string, title: string, id: string, onClick: () => void, secondary = false): HTMLElement {
  const b = el('vscode-button', { title, attrs: { id, ...(secondary ? { secondary: '' } : {}) } }, label);
  b.addEventListener('click', onClick);
  return b;
}

function tile(value: string, label: string, id: string, extra = '', title?: string): HTMLElement {
  return el(
    'div',
    { class: `tile ${extra}`, attrs: { id }, ...(title === undefined ? {} : { title }) },
    el('div', { class: 'value' }, value),
    el('div', { class: 'label' }, label),
  );
}

/**
 * The pass@k tiles, with what pass@k means in each one's tooltip and, for a screen reader or a
 * keyboard, in a line under the tiles.
 */
function passAtKTiles(r: RunReportView): HTMLElement[] {
  return r.summary.passAtK.map(({ k, value, tasks }) =>
    tile(
      percent(value),
      `pass@${k}`,
      `tile-pass-${k}`,
      'pass',
      `pass@${k}: the chance that at least one of ${k === 1 ? 'one attempt' : `${k} attempts`} at a task resolves it, estimated from each task's graded attempts without bias (1 − C(n−c, ${k}) / C(n, ${k}) for c resolved of n) and averaged over the ${plural(tasks, 'task')} that ran to their end`,
    ),
  );
}

function head(r: RunReportView): HTMLElement {
  const s = r.summary;
  const what = r.command === 'eval' ? 'Evaluation' : r.command === 'rollout' ? 'Rollout' : 'Run';
  const facts = [
    `agent ${r.agent}`,
    `dataset ${r.dataset}`,
    `written ${r.createdAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}`,
    r.state === null ? '' : `run ${r.state}`,
  ].filter((f) => f !== '');
  const tiles = [
    tile(`${s.resolved} of ${s.graded}`, 'resolved (episodes that ran to their end)', 'tile-resolved'),
    tile(s.resolvedRate === null ? '—' : percent(s.resolvedRate), 'resolved rate = resolved / ran to their end', 'tile-rate'),
    ...passAtKTiles(r),
    s.infrastructure > 0 &&
      tile(String(s.infrastructure), `infrastructure ${s.infrastructure === 1 ? 'failure' : 'failures'}: no outcome, not in the rate`, 'tile-infra', 'infra'),
    s.suspectedHacks > 0 &&
      tile(
        String(s.suspectedHacks),
        `${s.suspectedHacks === 1 ? 'episode' : 'episodes'} with suspected reward hacking: look at the marked episodes before trusting the rate`,
        'tile-hacks',
        'hacks',
      ),
    s.notRun > 0 && tile(String(s.notRun), `of ${s.planned} planned did not run`, 'tile-not-run'),
    s.meanSteps !== null && tile(number(s.meanSteps), 'mean steps', 'tile-steps'),
    s.meanDurationMs !== null && tile(seconds(s.meanDurationMs), 'mean episode time', 'tile-time'),
  ].filter((t): t is HTMLElement => t instanceof HTMLElement);
  return el(
    'div',
    {},
    el(
      'header',
      { class: 'top' },
      el('div', { class: 'titles' }, el('h1', {}, `${what} report · ${r.run}`), el('p', { class: 'facts' }, facts.join(' · '))),
      el(
        'span',
        { class: 'toolbar' },
        button('Refresh', 'Read report.json again', 'refresh', () => send({ type: 'refresh' }), true),
        button('Open report.json', 'The raw report as gp wrote it', 'open-json', () => send({ type: 'openJson' }), true),
      ),
    ),
    el('div', { class: 'tiles', attrs: { id: 'summary' } }, ...tiles),
    s.passAtK.length > 0 &&
      el(
        'p',
        { class: 'hint', attrs: { id: 'pass-at-k-hint' } },
        `pass@k: the chance that at least one of k attempts at a task resolves it, estimated without bias from each task's graded attempts and averaged over the ${plural(s.passAtK[0]?.tasks ?? 0, 'task')} that ran to their end; hover a tile for the formula.`,
      ),
  );
}

function failureGroups(r: RunReportView): HTMLElement[] {
  if (r.failureGroups.length === 0) return [];
  return [
    el('h2', {}, 'Why tasks were not resolved'),
    el(
      'div',
      { class: 'groups', attrs: { id: 'failure-groups' } },
      ...r.failureGroups.map((g, i) =>
        el(
          'details',
          { class: 'group', attrs: { ...(i < 3 ? { open: '' } : {}), 'data-group': g.group } },
          el('summary', {}, g.group, el('span', { class: 'count' }, ` · ${plural(g.count, 'episode')}`)),
          el('ul', {}, ...g.reasons.map((reason) => el('li', {}, reason.reason, el('span', { class: 'tasks' }, ` — ${reason.tasks.join(', ')}`)))),
        ),
      ),
    ),
  ];
}

function infrastructure(r: RunReportView): HTMLElement[] {
  if (r.infrastructure.length === 0) return [];
  return [
    el('h2', {}, 'Infrastructure failures (no outcome)'),
    el(
      'p',
      { class: 'hint' },
      'The machinery under these episodes failed, so they say nothing about the task or the agent: they are not in the rate, and a resume runs them again.',
    ),
    el(
      'ul',
      { class: 'infra', attrs: { id: 'infra-failures' } },
      ...r.infrastructure.map((f, i) =>
        el(
          'li',
          {},
          el('code', {}, f.taskId),
          ` ${f.code}: ${f.cause} `,
          link('Open episode', `Open ${f.episodeId} in the trajectory viewer`, () => send({ type: 'openFailed', index: i }), { 'data-episode': f.episodeId }),
        ),
      ),
    ),
  ];
}

/** The table's sort, kept in the page's state so a reload (a theme change, a hidden panel shown again) keeps it. */
function keepSort(sort: TaskSort): void {
  vscodeApi.setState({ sort });
}

function render(r: RunReportView): void {
  const root = document.getElementById('root');
  if (root === null) return;
  root.replaceChildren(
    head(r),
    el('h2', {}, `Tasks (${r.tasks.length})`),
    taskTable(r, send, parseSort((vscodeApi.getState() as { sort?: unknown } | undefined)?.sort), keepSort),
    ...failureGroups(r),
    ...infrastructure(r),
  );
}

function renderProblem(message: string): void {
  const root = document.getElementById('root');
  if (root === null) return;
  root.replaceChildren(
    el('div', { class: 'banner error', attrs: { role: 'alert', id: 'report-problem' } }, message),
    el(
      'span',
      {},
      button('Refresh', 'Read report.json again', 'refresh', () => send({ type: 'refresh' }), true),
    ),
  );
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = reportPageMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Graph Planner report page: ignored an invalid message', parsed.error.issues.slice(0, 3));
    return;
  }
  const { result } = parsed.data;
  if (result.ok) render(result.report);
  else renderProblem(result.message);
});

adoptReportStyles();
send({ type: 'ready' });
