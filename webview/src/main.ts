/**
 * The experiment overview webview: validates every message from the extension, renders the
 * overview it carries (or says why there is none), asks the extension to reveal a range when a
 * finding or a key is clicked, and to apply a quick fix when a finding's fix button is. It tells the extension when it is ready, so an overview posted
 * before the page listened is sent again.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { ExperimentOverview, OverviewRange } from '../../server/src/protocol/overview.js';
import { hostMessageSchema, type HostMessage } from '../../server/src/protocol/webview.js';
import { el } from './dom.js';
import { findingsSection, type FindingActions } from './findingsSection.js';
import { gpuSection } from './gpuSection.js';
import { send } from './host.js';
import { adoptStyles } from './styles.js';
import { verlSection } from './verlSection.js';

const actions: FindingActions = {
  reveal: (range: OverviewRange): void => send({ type: 'reveal', range }),
  applyFix: (finding, fix): void => send({ type: 'applyFix', code: finding.code, range: finding.range, title: fix.title }),
};

function header(file: string): HTMLElement[] {
  return [el('h1', {}, 'Experiment overview'), el('p', { class: 'file' }, el('code', {}, file))];
}

function render(message: HostMessage): Node[] {
  if (message.type === 'unavailable') {
    return [...header(message.file), el('div', { class: 'banner info', attrs: { role: 'status' } }, message.reason)];
  }
  return overviewNodes(message.file, message.overview);
}

function overviewNodes(file: string, overview: ExperimentOverview): Node[] {
  const count = (s: string) => overview.findings.filter((f) => f.severity === s).length;
  const badge = (n: number, noun: string): (Node | string)[] => [
    el('vscode-badge', { attrs: { variant: 'counter' } }, String(n)),
    ` ${noun}${n === 1 ? '' : 's'} `,
  ];
  const counts = el('p', { class: 'counts' }, ...badge(count('error'), 'error'), ...badge(count('warning'), 'warning'), ...badge(count('info'), 'note'));
  const top = el('header', {}, ...header(file), el('p', { class: 'hint' }, 'What a launch of this file would get; it follows your edits.'), counts);
  if (!overview.parsed) {
    const reason = overview.reason ?? 'The document does not parse.';
    return [
      top,
      el('div', { class: 'banner', attrs: { role: 'alert', id: 'not-parsed' } }, `${file} does not parse. ${reason}`),
      findingsSection(overview.findings, actions),
    ];
  }
  // Two columns side by side when the panel is wide, one after the other when it is not (styles.ts):
  // what to fix and where the GPUs go first, then the long list of settings.
  return [
    top,
    el(
      'div',
      { class: 'columns' },
      el('div', { class: 'column' }, findingsSection(overview.findings, actions), overview.gpus !== null && gpuSection(overview.gpus)),
      el('div', { class: 'column' }, verlSection(overview.settings, overview.overrides, actions.reveal)),
    ),
  ];
}

function onMessage(event: MessageEvent<unknown>): void {
  const parsed = hostMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    // A message we do not understand is dropped; the page keeps showing the last good overview.
    console.warn('Graph Planner overview: ignored an invalid message', parsed.error.issues);
    return;
  }
  const root = document.getElementById('root');
  if (root === null) return;
  root.replaceChildren(...render(parsed.data));
}

adoptStyles();
window.addEventListener('message', onMessage);
send({ type: 'ready' });
