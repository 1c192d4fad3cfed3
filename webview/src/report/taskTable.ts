/**
 * The report's per-task table: one row per task with its attempts, outcome, means, first failure
 * and links to its episodes. A column's header is a button that sorts by it (Enter and Space as
 * well as a click; the header carries `aria-sort`), and task ids wrap only at their boundaries,
 * whole in the cell's tooltip.
 */
import type { ReportTask, RunReportView } from '../../../server/src/protocol/runReportView.js';
import type { ReportWebviewMessage } from '../../../server/src/protocol/reportWebview.js';
import { el, plural } from '../dom.js';
import { idPieces, nextSort, sortTasks, type SortKey, type TaskSort } from './taskOrder.js';

export const outcomeWords: Record<ReportTask['outcome'], string> = {
  resolved: 'resolved',
  unresolved: 'not resolved',
  mixed: 'partly resolved',
  'no-outcome': 'no outcome',
};
export const seconds = (ms: number): string =>
  ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
export const number = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));

export function link(label: string, title: string, onClick: () => void, attrs: Record<string, string>): HTMLElement {
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

/** An id with a break opportunity at each boundary (`<wbr>`), so it wraps there and never mid-word. */
function breakableId(id: string): HTMLElement {
  const code = el('code', { title: id });
  idPieces(id).forEach((piece, i) => {
    if (i > 0) code.append(el('wbr'));
    code.append(piece);
  });
  return code;
}

interface Column {
  readonly key: SortKey | null;
  readonly label: string;
  readonly num?: boolean;
  readonly title?: string;
}

const columns: readonly Column[] = [
  { key: 'task', label: 'task' },
  { key: 'attempts', label: 'attempts', num: true, title: 'Episodes of the task, those with no outcome included' },
  { key: 'outcome', label: 'outcome', title: 'Sorted by the share of graded attempts that resolved the task' },
  { key: 'reward', label: 'reward', num: true, title: 'Mean total reward of the episodes that ran to their end' },
  { key: 'steps', label: 'steps', num: true, title: 'Mean steps' },
  { key: 'time', label: 'time', num: true, title: 'Total time of the episodes that ran to their end' },
  { key: 'reason', label: 'failure reason' },
  { key: null, label: 'episodes' },
];

function row(t: ReportTask, send: (message: ReportWebviewMessage) => void): HTMLElement {
  return el(
    'tr',
    { attrs: { 'data-task': t.taskId, 'data-outcome': t.outcome } },
    el('td', { class: 'task' }, breakableId(t.taskId)),
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
        const open = link(
          t.episodes.length === 1 ? 'Open episode' : `#${i + 1}`,
          `Open ${e.episodeId} (${outcomeWords[e.outcome]}) in the trajectory viewer`,
          () => send({ type: 'openEpisode', taskId: t.taskId, index: i }),
          {
            'data-episode': e.episodeId,
          },
        );
        return e.suspectedHacks === 0 ? [open] : [open, suspectBadge(e.episodeId, e.suspectedHacks)];
      }),
    ),
  );
}

/** The table, sorted as `sort` says (the report's order when null); a header's click redraws it sorted by that column. */
export function taskTable(
  r: RunReportView,
  send: (message: ReportWebviewMessage) => void,
  sort: TaskSort | null,
  onSort: (sort: TaskSort) => void,
): HTMLElement {
  if (r.tasks.length === 0) return el('p', { class: 'hint' }, 'No task ran to its end.');
  const holder = el('div', { class: 'table-scroll' });
  const header = (c: Column): HTMLElement => {
    const cls = c.num === true ? 'num' : '';
    if (c.key === null) return el('th', { class: cls, attrs: { scope: 'col' } }, c.label);
    const key = c.key;
    const sorted = sort?.key === key ? sort.direction : null;
    const th = el('th', { class: `${cls} sortable`, attrs: { scope: 'col', 'aria-sort': sorted ?? 'none', 'data-sort': key } });
    const next = nextSort(sort, key);
    const hint = `Sort by ${c.label}, ${next.direction}`;
    const button = el(
      'button',
      { class: 'sort', title: c.title === undefined ? hint : `${c.title}. ${hint}.` },
      c.label,
      el('span', { class: 'arrow', attrs: { 'aria-hidden': 'true' } }, sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : '↕'),
    );
    button.addEventListener('click', () => {
      onSort(next);
      const table = taskTable(r, send, next, onSort);
      holder.replaceWith(table);
      table.querySelector<HTMLButtonElement>(`th[data-sort="${key}"] button`)?.focus();
    });
    th.append(button);
    return th;
  };
  const tasks = sort === null ? r.tasks : sortTasks(r.tasks, sort);
  holder.append(
    el(
      'table',
      { class: 'tasks', attrs: { id: 'task-table' } },
      el('thead', {}, el('tr', {}, ...columns.map(header))),
      el('tbody', {}, ...tasks.map((t) => row(t, send))),
    ),
  );
  return holder;
}
