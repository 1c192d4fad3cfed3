/**
 * The group page: every rollout of one task side by side, a GRPO group of a training step or any
 * set of episodes of one task. One column per rollout, its reward and advantage in the column's
 * header; one row per aligned step, with the row numbers in a column that stays put while the
 * columns scroll sideways, cells that did something other than the first rollout tinted, and the
 * first row where the rollouts diverge marked. A cell opens its episode in the trajectory viewer
 * at that step. Every message from the extension is validated before anything is drawn.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { groupHostMessageSchema, type EpisodeGroupResult, type GroupCell, type GroupColumn } from '../../../server/src/protocol/episodeGroup.js';
import type { GroupWebviewMessage } from '../../../server/src/protocol/groupWebview.js';
import { episodeName } from '../../../server/src/protocol/episodeName.js';
import { el, plural } from '../dom.js';
import { adoptEpisodeStyles } from '../episode/episodeStyles.js';
import { signed } from '../episode/stepDetail.js';
import { vscodeApi } from '../host.js';
import { adoptStepTextStyles, stepTextNodes } from '../stepTextsView.js';
import { TraceFilters, traceFiltersFrom } from '../traceFilters.js';
import { adoptGroupStyles } from './groupStyles.js';

type Group = Extract<EpisodeGroupResult, { ok: true }>;

const send = (message: GroupWebviewMessage): void => vscodeApi.postMessage(message);
const root = document.getElementById('root') ?? document.body;
// Sixteen columns of whole observations would be a wall: the view opens on thoughts and results,
// and keeps whatever the person chooses.
const filters = new TraceFilters(
  traceFiltersFrom((vscodeApi.getState() as { traceFilters?: unknown } | undefined)?.traceFilters, { thought: true, result: true, observation: false }),
  root,
  (value) => vscodeApi.setState({ traceFilters: value }),
);

const fixed = (n: number | null, digits = 2): string => (n === null ? '–' : n.toFixed(digits));
const stateLabel: Record<GroupColumn['state'], string> = {
  running: 'running',
  resolved: 'resolved',
  unresolved: 'not resolved',
  error: 'error',
  interrupted: 'interrupted',
};

function selectors(g: Group): HTMLElement {
  const parts: HTMLElement[] = [];
  if (g.step !== null && g.steps.length > 0) {
    const at = g.steps.indexOf(g.step);
    const go = (step: number | undefined): void => {
      if (step !== undefined) send({ type: 'selectStep', step, taskId: g.taskId, groupId: null });
    };
    const prev = el(
      'vscode-button',
      { attrs: { secondary: '', id: 'prev-step', ...(at <= 0 ? { disabled: '' } : {}) }, title: 'The same task’s group one training step earlier' },
      '‹',
    );
    const next = el(
      'vscode-button',
      {
        attrs: { secondary: '', id: 'next-step', ...(at < 0 || at >= g.steps.length - 1 ? { disabled: '' } : {}) },
        title: 'The same task’s group one training step later',
      },
      '›',
    );
    prev.addEventListener('click', () => go(g.steps[at - 1]));
    next.addEventListener('click', () => go(g.steps[at + 1]));
    const steps = el(
      'select',
      { attrs: { id: 'step-select', 'aria-label': 'Training step' } },
      ...g.steps.map((s) => el('option', { attrs: { value: String(s), ...(s === g.step ? { selected: '' } : {}) } }, `step ${s}`)),
    );
    steps.addEventListener('change', () => go(Number(steps.value)));
    parts.push(el('span', { class: 'label' }, 'Training step'), prev, steps, next);
  }
  if (g.choices.length > 1) {
    const current = g.choices.findIndex((c) => c.groupId === g.groupId && c.taskId === g.taskId);
    const choice = el(
      'select',
      { attrs: { id: 'group-select', 'aria-label': g.step === null ? 'Task' : 'Group of this step' } },
      ...g.choices.map((c, i) =>
        el(
          'option',
          { attrs: { value: String(i), ...(i === current ? { selected: '' } : {}) } },
          `${c.taskId} · ${plural(c.size, 'rollout')} · mean reward ${fixed(c.meanReward)}`,
        ),
      ),
    );
    choice.addEventListener('change', () => {
      const c = g.choices[Number(choice.value)];
      if (c === undefined) return;
      if (g.step !== null) send({ type: 'selectStep', step: g.step, taskId: c.taskId, groupId: c.groupId });
      else send({ type: 'selectTask', taskId: c.taskId });
    });
    parts.push(el('span', { class: 'label' }, g.step === null ? 'Task' : 'Group'), choice);
  }
  return el('div', { class: 'selectors' }, ...parts);
}

function summary(g: Group): HTMLElement {
  const a = g.advantage;
  // Verl's epsilon is 1e-6; written as such rather than as 0.000001.
  const epsilon = a.epsilon < 1e-3 ? a.epsilon.toExponential().replace('e-', 'e−') : String(a.epsilon);
  const formula = a.normByStd ? `(r − mean) / (std + ${epsilon})` : 'r − mean';
  const divergence =
    g.divergence === null
      ? el('span', {}, 'the rollouts never diverge')
      : (() => {
          const b = el(
            'a',
            { class: 'ref', attrs: { href: '#', id: 'goto-divergence' }, title: 'Scroll to the first row where the rollouts differ' },
            `first divergence on row ${g.divergence + 1}`,
          );
          b.addEventListener('click', (e) => {
            e.preventDefault();
            document.getElementById('divergence')?.scrollIntoView({ block: 'center', inline: 'nearest' });
          });
          return b;
        })();
  return el(
    'p',
    { class: 'group-summary', attrs: { id: 'group-summary' } },
    `${plural(g.columns.length + g.leftOut, 'rollout')} · reward mean ${fixed(a.mean)}, std ${fixed(a.std)}${over(g)} · advantage ${formula}, ${estimatorLabel(a)} · aligned on rollout ${columnName(g.columns[g.reference], g.reference, g.taskId)} · `,
    divergence,
  );
}

/** Whose rewards the mean and standard deviation are over, when not every rollout's. */
function over(g: Group): string {
  const counted = g.columns.filter((c) => c.counted).length;
  if (counted === g.columns.length || g.leftOut > 0) return '';
  return counted === 0 ? ' (no rollout counts)' : ` over the ${plural(counted, 'outcome')}`;
}

/** The estimator as the run's trainer ran it (docs/training.md#failed-members). */
function estimatorLabel(a: Group['advantage']): string {
  if (a.failedMembers !== null) return `as GRPO over real outcomes (failed members: ${a.failedMembers.replace('_', ' ')})`;
  return a.estimator === 'grpo' ? 'as Verl’s GRPO' : 'as Verl’s GRPO (not this run’s estimator)';
}

/**
 * A rollout's name in its column: an attempt's is the episode's one name (`sample-calc-add#3`,
 * protocol/episodeName.ts), as the Runs view and the viewer's tab show it; a training group's
 * member is its number in the group, its episode's long name being in the column's tooltip.
 */
function columnName(c: GroupColumn | undefined, index: number, taskId: string): string {
  if (c === undefined) return `#${index + 1}`;
  return c.groupMember === null ? episodeName({ episodeId: c.episodeId, taskId }) : `#${c.groupMember}`;
}

function columnHead(c: GroupColumn, index: number, reference: number, taskId: string): HTMLElement {
  const adv = c.advantage;
  const head = el(
    'th',
    {
      class: `col${index === reference ? ' reference' : ''}`,
      title: `${episodeName({ episodeId: c.episodeId, taskId })}${c.terminationReason === null ? '' : ` · ${c.terminationReason}`}${c.problem === null ? '' : `\n${c.problem}`}\nClick to open it in the trajectory viewer.`,
      attrs: { scope: 'col', tabindex: '0', role: 'button', 'data-column': String(index) },
    },
    el(
      'div',
      { class: 'col-title' },
      el('strong', {}, columnName(c, index, taskId)),
      index === reference ? el('span', { class: 'muted' }, ' reference') : '',
      el('span', { class: `state ${c.state === 'resolved' ? 'resolved' : c.state === 'running' ? 'running' : 'unresolved'}` }, stateLabel[c.state]),
    ),
    el(
      'div',
      { class: 'col-figures' },
      el('span', { class: 'figure' }, 'reward ', el('b', {}, c.totalReward === null ? '–' : signed(c.totalReward))),
      el(
        'span',
        {
          class: `figure adv ${adv === null ? '' : adv > 0 ? 'pos' : adv < 0 ? 'neg' : ''}`,
          ...(c.counted ? {} : { title: 'Not counted in the group’s mean and standard deviation; its advantage is 0.' }),
        },
        'adv ',
        el('b', {}, adv === null ? '–' : signed(adv)),
        c.counted || adv === null ? '' : el('span', { class: 'muted' }, ' left out'),
      ),
    ),
    el('div', { class: 'col-meta muted' }, `${plural(c.steps, 'step')}${c.terminationReason === null ? '' : ` · ${c.terminationReason}`}`),
    c.noOutcome === null
      ? null
      : el(
          'div',
          { class: 'col-no-outcome', title: 'It reached no outcome: its sample was masked in the update and given reward 0.' },
          `no outcome: ${c.noOutcome}`,
        ),
    c.problem === null ? null : el('div', { class: 'col-problem' }, `⚠ ${c.problem}`),
  );
  activate(head, () => send({ type: 'openStep', column: index, step: null }));
  return head;
}

/** Click and Enter/Space both act, so the table works from the keyboard. */
function activate(node: HTMLElement, action: () => void): void {
  node.addEventListener('click', action);
  node.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      action();
    }
  });
}

function cell(c: GroupCell | null, column: number): HTMLElement {
  if (c === null) return el('td', { class: 'gap', attrs: { 'aria-label': 'no step' } }, '—');
  const r = c.row;
  const problem = r.protocolError ?? r.error ?? r.fallback;
  const td = el(
    'td',
    {
      class: `cell kind-${r.kind}${c.differs ? ' differs' : ''}${problem !== null ? ' problem' : ''}`,
      title: `Step ${r.step}: ${r.summary}${problem === null ? '' : `\n${problem}`}\nClick to open it in the trajectory viewer.`,
      attrs: { tabindex: '0', role: 'button', 'data-step': String(r.step) },
    },
    el(
      'div',
      { class: 'cell-head' },
      el('span', { class: 'kind' }, r.kind),
      el('span', { class: 'muted' }, ` s${r.step}`),
      r.reward === null || r.reward === 0 ? null : el('span', { class: `rw ${r.reward > 0 ? 'pos' : 'neg'}` }, signed(r.reward)),
    ),
    el('div', { class: 'summary' }, r.summary),
    ...stepTextNodes(c.texts),
  );
  activate(td, () => send({ type: 'openStep', column, step: r.step }));
  return td;
}

function table(g: Group): HTMLElement {
  const head = el(
    'tr',
    {},
    el('th', { class: 'rowhead corner', attrs: { scope: 'col' } }, 'row'),
    ...g.columns.map((c, i) => columnHead(c, i, g.reference, g.taskId)),
  );
  const body = g.rows.map((row, i) => {
    const diverges = i === g.divergence;
    return el(
      'tr',
      { class: `${row.same ? 'same' : 'differs'}${diverges ? ' divergence' : ''}`, attrs: diverges ? { id: 'divergence' } : {} },
      el(
        'th',
        {
          class: 'rowhead',
          attrs: { scope: 'row' },
          title: diverges ? 'The rollouts first do different things on this row' : row.same ? 'Every rollout did the same here' : 'The rollouts differ here',
        },
        String(i + 1),
        diverges ? el('div', { class: 'diverge-mark' }, 'diverges') : null,
      ),
      ...row.cells.map((c, column) => cell(c, column)),
    );
  });
  return el(
    'div',
    { class: 'scroller', attrs: { id: 'group-scroller' } },
    el('table', { class: `group cols-${Math.min(g.columns.length, 32)}`, attrs: { id: 'group-table' } }, el('thead', {}, head), el('tbody', {}, ...body)),
  );
}

function render(g: EpisodeGroupResult): void {
  if (!g.ok) {
    root.replaceChildren(el('div', { class: 'banner error', attrs: { role: 'alert', id: 'group-error' } }, g.message));
    return;
  }
  const title = g.step === null ? `Episodes of ${g.taskId}` : `GRPO group of ${g.taskId}, training step ${g.step}`;
  root.replaceChildren(
    el(
      'header',
      { class: 'group-header' },
      el('h1', {}, title),
      el(
        'p',
        { class: 'muted' },
        `run ${g.run.name}${g.groupId === null ? '' : ` · group ${g.groupId.length > 12 ? `${g.groupId.slice(0, 8)}…` : g.groupId}`}`,
      ),
      selectors(g),
      summary(g),
      g.advantage.note === null ? null : el('div', { class: 'banner warning', attrs: { role: 'status', id: 'advantage-note' } }, g.advantage.note),
      g.leftOut === 0
        ? null
        : el(
            'div',
            { class: 'banner', attrs: { role: 'status' } },
            `${plural(g.leftOut, 'more rollout')} of this group ${g.leftOut === 1 ? 'is' : 'are'} not shown; ${g.leftOut === 1 ? 'its reward counts' : 'their rewards count'} in the advantage.`,
          ),
      filters.element,
    ),
    table(g),
  );
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = groupHostMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Graph Planner group view: ignored an invalid message', parsed.error.issues.slice(0, 3));
    return;
  }
  render(parsed.data.group);
});

adoptEpisodeStyles();
adoptStepTextStyles();
adoptGroupStyles();
send({ type: 'ready' });
