/**
 * The viewer's header: the task (id, issue collapsed, backend, the Ray node of its sandbox host),
 * the agent, the outcome (resolved, termination reason, total reward, steps, duration) with the
 * final patch, and what is wrong with the file (cut short, torn, invalid lines).
 */
import { formatLabel, type EpisodeFormat, type EpisodeHeader } from '../../../server/src/protocol/episodeView.js';
import type { PatchRef } from '../../../server/src/protocol/episodeWebview.js';
import { episodeAttempt, episodeName } from '../../../server/src/protocol/episodeName.js';
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import { el, plural } from '../dom.js';
import { signed } from './stepDetail.js';

export interface HeaderActions {
  readonly openPatch: (patch: PatchRef) => void;
  readonly applyPatch: (patch: PatchRef) => void;
  readonly compare: () => void;
  readonly replay: () => void;
  readonly codeGraph: () => void;
  /** Show another episode of a file of many (an Inspect log's sample). */
  readonly chooseSample: (key: string) => void;
  /** Whether the code-graph pane is shown in place of the step's detail. */
  readonly codeGraphShown: boolean;
}

export function episodeHeaderNode(header: EpisodeHeader, steps: number, actions: HeaderActions): HTMLElement {
  const o = header.outcome;
  const noOutcome = o?.noOutcome ?? null;
  const format = header.format;
  // Another tool's trajectory has no outcome in our sense; its badge names its format instead of "Unknown".
  const foreign = format !== undefined && o === null;
  const state = foreign
    ? ['format', formatLabel(format)]
    : o !== null
      ? noOutcome !== null
        ? ['running', 'No outcome']
        : o.resolved
          ? ['resolved', 'Resolved']
          : ['unresolved', 'Not resolved']
      : header.cutShort
        ? ['running', 'Running or cut short']
        : ['unresolved', 'Unknown'];
  const facts = [
    header.agent !== null && `agent ${header.agent}`,
    header.backend !== null && `${header.backend} backend${header.image === null || header.backend !== 'docker' ? '' : ` (${header.image})`}`,
    header.sandboxHost !== null &&
      el(
        'span',
        { title: `Ray node ${header.sandboxHost.node}, sandbox host ${header.sandboxHost.id}`, attrs: { id: 'episode-node' } },
        `node ${shortNodeName(header.sandboxHost.node)} (host ${header.sandboxHost.id})`,
      ),
    header.fork !== undefined &&
      el(
        'span',
        {
          title: `Steps 1–${header.fork.step - 1} were replayed from ${header.fork.trajectory} and checked against it; the agent went on live from step ${header.fork.step}`,
          attrs: { id: 'episode-fork' },
        },
        `fork of ${episodeName({ episodeId: header.fork.episodeId, taskId: header.taskId ?? '' })} from step ${header.fork.step}`,
      ),
    o !== null && `ended: ${o.terminationReason}`,
    o !== null ? `total reward ${signed(o.totalReward)}` : null,
    `${plural(o?.steps ?? steps, 'step')}${header.maxSteps === null ? '' : ` of ${header.maxSteps}`}`,
    o !== null && `${(o.durationMs / 1000).toFixed(1)} s`,
    ...(format?.facts ?? []),
  ].filter((f): f is string | HTMLElement => typeof f === 'string' || f instanceof HTMLElement);
  const buttons: HTMLElement[] = [];
  if (o !== null && o.patch !== '') {
    buttons.push(button('Final patch', 'Open the final patch in the diff editor', () => actions.openPatch({ step: null, candidate: null }), 'final-patch'));
    buttons.push(
      button(
        'Apply final patch…',
        'Apply the final patch to a local checkout (git apply --check first)',
        () => actions.applyPatch({ step: null, candidate: null }),
        'apply-final',
        true,
      ),
    );
  }
  // Comparing, replaying and the code graph read our own run folders; a file in another format has none of them.
  if (format === undefined) {
    buttons.push(
      actions.codeGraphShown
        ? button('Step detail', 'Show the selected step’s detail again instead of the code graph', actions.codeGraph, 'code-graph', true)
        : button(
            'Code graph',
            'Show the nodes this episode saw, read and edited on the code graph, with the gold patch’s nodes marked, stepping with the selected step',
            actions.codeGraph,
            'code-graph',
            true,
          ),
    );
    buttons.push(button('Compare…', 'Compare with another episode of the same task', actions.compare, 'compare', true));
    buttons.push(
      button(
        'Replay',
        'Re-execute the recorded actions in a fresh sandbox and report the first step that differs (gp trajectory replay)',
        actions.replay,
        'replay',
        true,
      ),
    );
  }
  const issue = header.issue;
  // Our episode goes by its one name (protocol/episodeName.ts), as its tab and the Runs view name
  // it; the task follows a name that does not say it. Another tool's file goes by its task.
  const ours = header.format === undefined || header.format.name === 'graph-planner';
  const name = ours && header.episodeId !== null && header.taskId !== null ? episodeName({ episodeId: header.episodeId, taskId: header.taskId }) : null;
  const title = name ?? header.taskId ?? header.episodeId ?? header.file.split(/[\\/]/).pop() ?? 'Unknown task';
  const subtitle =
    name !== null
      ? episodeAttempt({ episodeId: header.episodeId ?? '', taskId: header.taskId ?? '' }) === null
        ? `task ${header.taskId ?? ''}`
        : null
      : header.episodeId !== null && header.episodeId !== title
        ? header.episodeId
        : null;
  return el(
    'header',
    { class: 'episode-header' },
    el(
      'div',
      { class: 'title-row' },
      el('h1', {}, title, subtitle === null ? '' : el('span', { class: 'muted' }, ` · ${subtitle}`)),
      el('span', { class: `state ${state[0]}`, attrs: { id: 'episode-state' } }, state[1] ?? ''),
      el('span', { class: 'toolbar' }, ...buttons),
    ),
    (format?.samples?.length ?? 0) > 1 && format !== undefined && samplePicker(format, actions.chooseSample),
    el('p', { class: 'facts-line', attrs: { id: 'episode-facts' } }, ...facts.flatMap((f, i) => (i === 0 ? [f] : [' · ', f]))),
    format !== undefined && formatNote(format),
    issue !== null &&
      el(
        'details',
        { class: 'issue' },
        el('summary', {}, `${format === undefined || !foreign ? 'Issue' : 'Task'}: ${issue.title}`),
        el('pre', { class: 'issue-body' }, issue.body),
      ),
    format?.submission != null &&
      format.submission !== '' &&
      el(
        'details',
        { class: 'issue', attrs: { id: 'submission' } },
        el('summary', {}, 'Submission (the patch the agent submitted)'),
        el('pre', { class: 'issue-body' }, format.submission),
      ),
    header.backendFallback !== null &&
      el('div', { class: 'banner warning', attrs: { role: 'status' } }, `Ran on the local backend because ${header.backendFallback}`),
    // An episode the infrastructure or an ungradable test run stopped is not the task's result: say so, not "failed".
    noOutcome !== null &&
      el(
        'div',
        { class: 'banner warning', attrs: { role: 'status', id: 'no-outcome' } },
        `No outcome (${noOutcome}). It is not counted in any rate, and a resume runs it again.`,
      ),
    noOutcome === null && o?.error != null && el('div', { class: 'banner error', attrs: { role: 'alert' } }, `The episode failed: ${o.error}`),
    header.cutShort &&
      el(
        'div',
        { class: 'banner info', attrs: { role: 'status', id: 'cut-short' } },
        'No end line: the episode is still running (new steps appear as they are written), or its process died.',
      ),
    header.torn &&
      el(
        'div',
        { class: 'banner warning', attrs: { role: 'status' } },
        'The last line is incomplete (a write in progress, or a crash mid-write); it is not shown.',
      ),
    header.problems.length > 0 &&
      el(
        'details',
        { class: 'banner warning', attrs: { id: 'file-problems' } },
        el('summary', {}, problemsTitle(header)),
        el('ul', {}, ...header.problems.slice(0, 50).map((p) => el('li', {}, p))),
        header.problems.length > 50 ? el('p', { class: 'hint' }, `and ${header.problems.length - 50} more`) : '',
      ),
  );
}

/** A file of many episodes (an Inspect log's samples): which one is shown, and the others to choose from. */
function samplePicker(format: EpisodeFormat, choose: (key: string) => void): HTMLElement {
  const samples = format.samples ?? [];
  const shown = Math.max(
    0,
    samples.findIndex((s) => s.key === format.sample),
  );
  const select = el(
    'select',
    { attrs: { id: 'sample-picker', 'aria-label': 'Sample of the log to show' } },
    ...samples.map((s, i) => {
      const option = el('option', { attrs: { value: s.key } }, s.label);
      if (i === shown) option.setAttribute('selected', '');
      return option;
    }),
  ) as HTMLSelectElement;
  select.addEventListener('change', () => choose(select.value));
  return el(
    'div',
    { class: 'sample-row' },
    el('label', { attrs: { for: 'sample-picker' } }, 'Sample'),
    select,
    el('span', { class: 'muted' }, `${shown + 1} of ${samples.length}`),
  );
}

/**
 * What the format does not record, said once and quietly: a muted line naming the missing things,
 * which opens to the full sentences. It is information about the file, not a warning.
 */
function formatNote(format: EpisodeFormat): HTMLElement {
  if (format.lacks.length === 0) return el('p', { class: 'format-note', attrs: { id: 'format-lacks' } }, `Read from ${formatLabel(format)}, read-only.`);
  const short = format.lacks.map((l) => (l.split(':', 1)[0] ?? l).replace(/^No /, '').trim());
  return el(
    'details',
    { class: 'format-note', attrs: { id: 'format-lacks' } },
    el('summary', { title: format.lacks.join('\n') }, `Read-only, from ${formatLabel(format)}. Not recorded: ${short.join(' · ')}`),
    el('ul', {}, ...format.lacks.map((l) => el('li', {}, l))),
  );
}

function problemsTitle(header: EpisodeHeader): string {
  const n = header.problems.length;
  if (header.format === undefined)
    return `${plural(n, 'line')} of the file ${n === 1 ? 'is' : 'are'} not valid trajectory records and ${n === 1 ? 'is' : 'are'} left out`;
  return `${plural(n, 'place')} in the file ${n === 1 ? 'breaks' : 'break'} the ${formatLabel(header.format)} rules; what could be read is shown`;
}

function button(label: string, title: string, onClick: () => void, id: string, secondary = false): HTMLElement {
  const b = el('vscode-button', { title, attrs: { id, ...(secondary ? { secondary: '' } : {}) } }, label);
  b.addEventListener('click', onClick);
  return b;
}
