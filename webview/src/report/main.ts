/**
 * A rollout's or an evaluation's report page: a summary head (resolved x of y, the rate over the
 * episodes that ran to their end, infrastructure failures counted apart), the per-task table with
 * links to each episode, the failure reasons grouped, and the episodes the infrastructure failed.
 * Every figure comes from the server (protocol/runReportView.ts defines each one); every string
 * from the report goes in as text. Messages from the extension are validated before anything is drawn.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { reportPageMessageSchema, type ReportTask, type RunReportView } from '../../../server/src/protocol/runReportView.js';
import type { ReportWebviewMessage } from '../../../server/src/protocol/reportWebview.js';
import { el, plural } from '../dom.js';
import { vscodeApi } from '../host.js';
import { adoptReportStyles } from './reportStyles.js';

const send = (message: ReportWebviewMessage): void => vscodeApi.postMessage(message);

const outcomeWords: Record<ReportTask['outcome'], string> = { resolved: 'resolved', unresolved: 'not resolved', mixed: 'partly resolved', 'no-outcome': 'no outcome' };

const percent = (x: number): string => `${(100 * x).toFixed(x === 0 || x === 1 ? 0 : 1)}%`;
const seconds = (ms: number): string => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);
const number = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));

function button(label: string, title: string, id: string, onClick: () => void, secondary = false): HTMLElement {
  const b = el('vscode-button', { title, attrs: { id, ...(secondary ? { secondary: '' } : {}) } }, label);
  b.addEventListener('click', onClick);
  return b;
}

function link(label: string, title: string, onClick: () => void, attrs: Record<string, string>): HTMLElement {
  const a = el('a', { class: 'episode', title, attrs: { href: '#', role: 'link', ...attrs } }, label);
  a.addEventListener('click', (event) => {
    event.preventDefault();
    onClick();
  });
  return a;
}

/** The mark of an episode whose submit looked like reward hacking; its words say so to a screen reader too. */
function suspectBadge(episodeId: string, signals: number): HTMLElement {
  const words = `suspected reward hacking: ${plural(signals, 'signal')}; open the episode to see the evidence`;
  return el('span', { class: 'suspect', title: words, attrs: { role: 'img', 'aria-label': `${episodeId}: ${words}`, 'data-suspect': episodeId } }, '⚠ suspect');
}

function tile(value: string, label: string, id: string, extra = ''): HTMLElement {
  return el('div', { class: `tile ${extra}`, attrs: { id } }, el('div', { class: 'value' }, value), el('div', { class: 'label' }, label));
}

function head(r: RunReportView): HTMLElement {
  const s = r.summary;
  const what = r.command === 'eval' ? 'Evaluation' : r.command === 'rollout' ? 'Rollout' : 'Run';
  const facts = [`agent ${r.agent}`, `dataset ${r.dataset}`, `written ${r.createdAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}`, r.state === null ? '' : `run ${r.state}`].filter((f) => f !== '');
  const tiles = [
    tile(`${s.resolved} of ${s.graded}`, 'resolved (episodes that ran to their end)', 'tile-resolved'),
    tile(s.resolvedRate === null ? '—' : percent(s.resolvedRate), 'resolved rate = resolved / ran to their end', 'tile-rate'),
    s.infrastructure > 0 && tile(String(s.infrastructure), `infrastructure ${s.infrastructure === 1 ? 'failure' : 'failures'}: no outcome, not in the rate`, 'tile-infra', 'infra'),
    s.suspectedHacks > 0 && tile(String(s.suspectedHacks), `${s.suspectedHacks === 1 ? 'episode' : 'episodes'} with suspected reward hacking: look at the marked episodes before trusting the rate`, 'tile-hacks', 'hacks'),
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
      el('span', { class: 'toolbar' }, button('Refresh', 'Read report.json again', 'refresh', () => send({ type: 'refresh' }), true), button('Open report.json', 'The raw report as gp wrote it', 'open-json', () => send({ type: 'openJson' }), true)),
    ),
    el('div', { class: 'tiles', attrs: { id: 'summary' } }, ...tiles),
  );
}

function taskTable(r: RunReportView): HTMLElement {
  if (r.tasks.length === 0) return el('p', { class: 'hint' }, 'No task ran to its end.');
  const rows = r.tasks.map((t) =>
    el(
      'tr',
      { attrs: { 'data-task': t.taskId, 'data-outcome': t.outcome } },
      el('td', { class: 'task' }, el('code', {}, t.taskId)),
      el('td', { class: 'num', title: `${t.graded} ran to their end, ${t.attempts - t.graded} had no outcome` }, String(t.attempts)),
      el('td', {}, el('span', { class: `outcome ${t.outcome}` }, t.outcome === 'mixed' ? `${t.resolved} of ${t.graded} resolved` : outcomeWords[t.outcome])),
      el('td', { class: 'num' }, t.reward === null ? '—' : number(t.reward)),
      el('td', { class: 'num' }, t.steps === null ? '—' : number(t.steps)),
      el('td', { class: 'num' }, t.durationMs === null ? '—' : seconds(t.durationMs)),
      el('td', { class: 'reason' }, t.failureReason ?? ''),
      el(
        'td',
        { class: 'episodes' },
        ...t.episodes.flatMap((e, i) => {
          const open = link(t.episodes.length === 1 ? 'Open episode' : `#${i + 1}`, `Open ${e.episodeId} (${outcomeWords[e.outcome === 'no-outcome' ? 'no-outcome' : e.outcome]}) in the trajectory viewer`, () => send({ type: 'openEpisode', taskId: t.taskId, index: i }), {
            'data-episode': e.episodeId,
          });
          return e.suspectedHacks === 0 ? [open] : [open, suspectBadge(e.episodeId, e.suspectedHacks)];
        }),
      ),
    ),
  );
  const th = (label: string, num = false, title?: string) => el('th', { class: num ? 'num' : '', ...(title === undefined ? {} : { title }) }, label);
  const table = el(
    'table',
    { class: 'tasks', attrs: { id: 'task-table' } },
    el('thead', {}, el('tr', {}, th('task'), th('attempts', true), th('outcome'), th('reward', true, 'Mean total reward of the episodes that ran to their end'), th('steps', true, 'Mean steps'), th('time', true, 'Total time of the episodes that ran to their end'), th('failure reason'), th('episodes'))),
    el('tbody', {}, ...rows),
  );
  return el('div', { class: 'table-scroll' }, table);
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
    el('p', { class: 'hint' }, 'The machinery under these episodes failed, so they say nothing about the task or the agent: they are not in the rate, and a resume runs them again.'),
    el(
      'ul',
      { class: 'infra', attrs: { id: 'infra-failures' } },
      ...r.infrastructure.map((f, i) => el('li', {}, el('code', {}, f.taskId), ` ${f.code}: ${f.cause} `, link('Open episode', `Open ${f.episodeId} in the trajectory viewer`, () => send({ type: 'openFailed', index: i }), { 'data-episode': f.episodeId }))),
    ),
  ];
}

function render(r: RunReportView): void {
  const root = document.getElementById('root');
  if (root === null) return;
  root.replaceChildren(head(r), el('h2', {}, `Tasks (${r.tasks.length})`), taskTable(r), ...failureGroups(r), ...infrastructure(r));
}

function renderProblem(message: string): void {
  const root = document.getElementById('root');
  if (root === null) return;
  root.replaceChildren(
    el('div', { class: 'banner error', attrs: { role: 'alert', id: 'report-problem' } }, message),
    el('span', {}, button('Refresh', 'Read report.json again', 'refresh', () => send({ type: 'refresh' }), true)),
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
