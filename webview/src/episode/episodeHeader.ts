/**
 * The viewer's header: the task (id, issue collapsed, backend, the Ray node of its sandbox host),
 * the agent, the outcome (resolved, termination reason, total reward, steps, duration) with the
 * final patch, and what is wrong with the file (cut short, torn, invalid lines).
 */
import type { EpisodeHeader } from '../../../server/src/protocol/episodeView.js';
import type { PatchRef } from '../../../server/src/protocol/episodeWebview.js';
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import { el, plural } from '../dom.js';
import { signed } from './stepDetail.js';

export interface HeaderActions {
  readonly openPatch: (patch: PatchRef) => void;
  readonly applyPatch: (patch: PatchRef) => void;
  readonly compare: () => void;
  readonly replay: () => void;
  readonly codeGraph: () => void;
  /** Whether the code-graph pane is shown in place of the step's detail. */
  readonly codeGraphShown: boolean;
}

export function episodeHeaderNode(header: EpisodeHeader, steps: number, actions: HeaderActions): HTMLElement {
  const o = header.outcome;
  const noOutcome = o?.noOutcome ?? null;
  const state =
    o !== null ? (noOutcome !== null ? ['running', 'No outcome'] : o.resolved ? ['resolved', 'Resolved'] : ['unresolved', 'Not resolved']) : header.cutShort ? ['running', 'Running or cut short'] : ['unresolved', 'Unknown'];
  const facts = [
    header.agent !== null && `agent ${header.agent}`,
    header.backend !== null && `${header.backend} backend${header.image === null || header.backend !== 'docker' ? '' : ` (${header.image})`}`,
    header.sandboxHost !== null && el('span', { title: `Ray node ${header.sandboxHost.node}, sandbox host ${header.sandboxHost.id}`, attrs: { id: 'episode-node' } }, `node ${shortNodeName(header.sandboxHost.node)} (host ${header.sandboxHost.id})`),
    o !== null && `ended: ${o.terminationReason}`,
    o !== null ? `total reward ${signed(o.totalReward)}` : null,
    `${plural(o?.steps ?? steps, 'step')}${header.maxSteps === null ? '' : ` of ${header.maxSteps}`}`,
    o !== null && `${(o.durationMs / 1000).toFixed(1)} s`,
  ].filter((f): f is string | HTMLElement => typeof f === 'string' || f instanceof HTMLElement);
  const buttons: HTMLElement[] = [];
  if (o !== null && o.patch !== '') {
    buttons.push(button('Final patch', 'Open the final patch in the diff editor', () => actions.openPatch({ step: null, candidate: null }), 'final-patch'));
    buttons.push(button('Apply final patch…', 'Apply the final patch to a local checkout (git apply --check first)', () => actions.applyPatch({ step: null, candidate: null }), 'apply-final', true));
  }
  buttons.push(
    actions.codeGraphShown
      ? button('Step detail', 'Show the selected step’s detail again instead of the code graph', actions.codeGraph, 'code-graph', true)
      : button('Code graph', 'Show the nodes this episode saw, read and edited on the code graph, with the gold patch’s nodes marked, stepping with the selected step', actions.codeGraph, 'code-graph', true),
  );
  buttons.push(button('Compare…', 'Compare with another episode of the same task', actions.compare, 'compare', true));
  buttons.push(button('Replay', 'Re-execute the recorded actions in a fresh sandbox and report the first step that differs (gp trajectory replay)', actions.replay, 'replay', true));
  const issue = header.issue;
  return el(
    'header',
    { class: 'episode-header' },
    el(
      'div',
      { class: 'title-row' },
      el('h1', {}, header.taskId ?? 'Unknown task', header.episodeId !== null && header.episodeId !== header.taskId ? el('span', { class: 'muted' }, ` · ${header.episodeId}`) : ''),
      el('span', { class: `state ${state[0]}`, attrs: { id: 'episode-state' } }, state[1] ?? ''),
      el('span', { class: 'toolbar' }, ...buttons),
    ),
    el('p', { class: 'facts-line', attrs: { id: 'episode-facts' } }, ...facts.flatMap((f, i) => (i === 0 ? [f] : [' · ', f]))),
    issue !== null && el('details', { class: 'issue' }, el('summary', {}, `Issue: ${issue.title}`), el('pre', { class: 'issue-body' }, issue.body)),
    header.backendFallback !== null && el('div', { class: 'banner warning', attrs: { role: 'status' } }, `Ran on the local backend because ${header.backendFallback}`),
    // An episode the infrastructure or an ungradable test run stopped is not the task's result: say so, not "failed".
    noOutcome !== null && el('div', { class: 'banner warning', attrs: { role: 'status', id: 'no-outcome' } }, `No outcome (${noOutcome}). It is not counted in any rate, and a resume runs it again.`),
    noOutcome === null && o?.error != null && el('div', { class: 'banner error', attrs: { role: 'alert' } }, `The episode failed: ${o.error}`),
    header.cutShort && el('div', { class: 'banner info', attrs: { role: 'status', id: 'cut-short' } }, 'No end line: the episode is still running (new steps appear as they are written), or its process died.'),
    header.torn && el('div', { class: 'banner warning', attrs: { role: 'status' } }, 'The last line is incomplete (a write in progress, or a crash mid-write); it is not shown.'),
    header.problems.length > 0 &&
      el('details', { class: 'banner warning' }, el('summary', {}, `${plural(header.problems.length, 'line')} of the file ${header.problems.length === 1 ? 'is' : 'are'} not valid trajectory records and ${header.problems.length === 1 ? 'is' : 'are'} left out`), el('ul', {}, ...header.problems.slice(0, 50).map((p) => el('li', {}, p)))),
  );
}

function button(label: string, title: string, onClick: () => void, id: string, secondary = false): HTMLElement {
  const b = el('vscode-button', { title, attrs: { id, ...(secondary ? { secondary: '' } : {}) } }, label);
  b.addEventListener('click', onClick);
  return b;
}
