/**
 * The trajectory viewer page. It validates every message from the extension, keeps the step list
 * and a cache of full step records (asking for the selected step and its neighbours), and keeps
 * the selection, filters and search in the webview state so they survive hiding and reloading.
 * Keyboard: ↓/j and ↑/k step, Home/End (g/G) go to the first and last, r and e jump to the next
 * repair and the next step with a problem, / focuses the search, Enter and Shift+Enter in the
 * search go to the next and previous match.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import {
  episodeHostMessageSchema,
  type EpisodeHeader,
  type EpisodeHostMessage,
  type EpisodeStepRecord,
  type SearchMatchView,
  type StepKindName,
} from '../../../server/src/protocol/episodeView.js';
import type { EpisodeWebviewMessage, PatchRef } from '../../../server/src/protocol/episodeWebview.js';
import { el } from '../dom.js';
import { vscodeApi } from '../host.js';
import { TraceFilters, traceFiltersFrom } from '../traceFilters.js';
import { episodeHeaderNode } from './episodeHeader.js';
import { foreignStepDetail } from './foreignStepDetail.js';
import type { Location } from './linkedText.js';
import { adoptEpisodeStyles } from './episodeStyles.js';
import { stepDetail } from './stepDetail.js';
import { hasProblem, StepList, stepKinds } from './stepList.js';
import { StepListSplitter } from './splitter.js';
import { CodeGraphMode } from './codeGraphMode.js';
import { emptyEpisodeMessage } from './emptyEpisode.js';
import { nodeFromId, type KnownNode } from './nodeIds.js';

interface SavedState {
  selected?: number;
  hidden?: StepKindName[];
  problemsOnly?: boolean;
  query?: string;
  traceFilters?: unknown;
  /** The step list's share of the editor, once the person resized it (`stepListWidth.ts`). */
  listShare?: number;
}

/** How many steps either side of the selected one are fetched ahead. */
const prefetch = 8;

const send = (message: EpisodeWebviewMessage): void => vscodeApi.postMessage(message);
const codeGraph = new CodeGraphMode(send);
const saved = (vscodeApi.getState() ?? {}) as SavedState;

let header: EpisodeHeader | undefined;
let selected: number | undefined = saved.selected;
const hidden = new Set<StepKindName>(saved.hidden ?? []);
let problemsOnly = saved.problemsOnly === true;
let query = saved.query ?? '';
let listShare = typeof saved.listShare === 'number' ? saved.listShare : undefined;
let matches: SearchMatchView[] = [];
let firstRenderSent = false;
/** When the last step switch began, for its timing. */
let switchStarted: number | undefined;
const records = new Map<number, EpisodeStepRecord>();
const requested = new Set<number>();
/** Lines where the episode saw each node, so a node id link opens at its definition. */
const nodeLines = new Map<string, number>();
/** What the episode's observations said of each node, for the tables of node ids an action names. */
const knownNodes = new Map<string, KnownNode>();

const list = new StepList((step) => select(step));
const headerSlot = el('div', { attrs: { id: 'header-slot' } });
const detailSlot = el('div', { class: 'detail-slot', attrs: { id: 'detail', 'aria-live': 'polite' } });
const searchBox = el('input', {
  class: 'search',
  attrs: { type: 'search', placeholder: 'Search replies and observations (/)', 'aria-label': 'Search the episode', id: 'search', value: query },
});
const searchStatus = el('span', { class: 'search-status muted', attrs: { id: 'search-status' } });
const filterBar = el('div', { class: 'filters', attrs: { role: 'group', 'aria-label': 'Filter steps' } });
// Everything shown by default here: the viewer is where a step is read whole.
const traceFilters = new TraceFilters(traceFiltersFrom(saved.traceFilters, { thought: true, result: true, observation: true }), detailSlot, () => save());

function save(): void {
  const state: SavedState = {
    hidden: [...hidden],
    problemsOnly,
    query,
    traceFilters: traceFilters.value,
    ...(selected === undefined ? {} : { selected }),
    ...(listShare === undefined ? {} : { listShare }),
  };
  vscodeApi.setState(state);
}

function layout(): void {
  const root = document.getElementById('root');
  if (root === null) return;
  const prev = el('button', { class: 'icon', title: 'Previous match (Shift+Enter)', attrs: { 'aria-label': 'Previous match' } }, '↑');
  const next = el('button', { class: 'icon', title: 'Next match (Enter)', attrs: { 'aria-label': 'Next match' } }, '↓');
  prev.addEventListener('click', () => gotoMatch(-1));
  next.addEventListener('click', () => gotoMatch(1));
  const side = el(
    'div',
    { class: 'side' },
    filterBar,
    traceFilters.element,
    el('div', { class: 'search-row' }, searchBox, prev, next),
    searchStatus,
    list.element,
  );
  const body = el('div', { class: 'body' });
  const splitter = new StepListSplitter(body, listShare, (share) => {
    listShare = share;
    save();
  });
  body.append(side, splitter.element, detailSlot);
  root.replaceChildren(headerSlot, body);
  renderFilters();
  let timer: number | undefined;
  searchBox.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => runSearch(searchBox.value), 150);
  });
  searchBox.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      if (searchBox.value !== query) runSearch(searchBox.value);
      else gotoMatch(event.shiftKey ? -1 : 1);
    } else if (event.key === 'Escape') searchBox.blur();
  });
}

function renderFilters(): void {
  const chip = (label: string, pressed: boolean, title: string, toggle: () => void): HTMLElement => {
    const b = el('button', { class: 'chip', title, attrs: { 'aria-pressed': String(pressed), 'data-filter': label } }, label);
    b.addEventListener('click', () => {
      toggle();
      renderFilters();
      list.applyFilters({ hidden, problemsOnly });
      save();
    });
    return b;
  };
  const present = new Set(list.all.map((r) => r.kind));
  filterBar.replaceChildren(
    ...stepKinds
      .filter((k) => present.has(k) || hidden.has(k))
      .map((k) => chip(k, !hidden.has(k), `Show or hide ${k} steps`, () => (hidden.has(k) ? hidden.delete(k) : hidden.add(k)))),
    chip('problems only', problemsOnly, 'Show only steps with a protocol error, fallback, error or timeout', () => (problemsOnly = !problemsOnly)),
  );
}

function runSearch(text: string): void {
  query = text;
  save();
  if (text === '') {
    matches = [];
    list.markMatches(new Set());
    searchStatus.textContent = '';
    renderDetail();
    return;
  }
  searchStatus.textContent = 'Searching…';
  send({ type: 'search', query: text, caseSensitive: false });
}

function gotoMatch(direction: 1 | -1): void {
  const steps = [...new Set(matches.map((m) => m.step))].sort((a, b) => a - b);
  if (steps.length === 0) return;
  const current = selected ?? 0;
  const target = direction === 1 ? (steps.find((s) => s > current) ?? steps[0]) : ([...steps].reverse().find((s) => s < current) ?? steps.at(-1));
  if (target !== undefined) select(target);
}

function select(step: number): void {
  switchStarted = performance.now();
  selected = step;
  list.select(step);
  // An open code-graph view of this episode follows the selection.
  send({ type: 'selected', step });
  save();
  fetchAround(step);
  renderDetail();
}

function fetchAround(step: number): void {
  const all = list.all;
  const index = all.findIndex((r) => r.step === step);
  const wanted = all
    .slice(Math.max(0, index - prefetch), index + prefetch + 1)
    .map((r) => r.step)
    .filter((s) => !records.has(s) && !requested.has(s));
  if (wanted.length === 0) return;
  wanted.forEach((s) => requested.add(s));
  send({ type: 'needSteps', steps: wanted });
}

function renderDetail(): void {
  if (codeGraph.active) {
    detailSlot.replaceChildren(codeGraph.element(selected ?? 0));
    return;
  }
  if (selected === undefined) {
    detailSlot.replaceChildren(list.all.length === 0 ? emptyNode() : el('p', { class: 'hint' }, 'Select a step.'));
    return;
  }
  const row = list.row(selected);
  const record = records.get(selected);
  if (row === undefined) return;
  if (record === undefined) {
    detailSlot.replaceChildren(el('p', { class: 'hint' }, `Loading step ${selected}…`));
    return;
  }
  detailSlot.replaceChildren(
    record.type === 'foreign'
      ? foreignStepDetail(row, record, query)
      : stepDetail(row, record, { open, openPatch, applyPatch, continueFrom: forkable() ? continueFrom : undefined }, nodeLines, knownNodes, query),
  );
  if (switchStarted !== undefined) {
    // Read by the benchmark: how long this step took from the key press to its rendered detail.
    detailSlot.dataset['renderMs'] = (performance.now() - switchStarted).toFixed(2);
    switchStarted = undefined;
  }
}

/** An episode with no step: still running, or ended before its first step, and how. */
function emptyNode(): HTMLElement {
  if (header === undefined) return el('p', { class: 'hint' }, 'Loading the episode…');
  const message = emptyEpisodeMessage(header);
  if (message.kind === 'live')
    return el(
      'div',
      { class: 'empty-episode', attrs: { id: 'empty-episode', 'data-kind': 'live' } },
      el('p', { class: 'hint' }, message.title),
      ...message.lines.map((l) => el('p', { class: 'hint' }, l)),
    );
  return el(
    'div',
    { class: `empty-episode banner ${message.kind === 'ended' ? 'error' : 'info'}`, attrs: { id: 'empty-episode', role: 'status', 'data-kind': message.kind } },
    el('p', { class: 'empty-title' }, message.title),
    ...message.lines.map((l) => el('p', {}, l)),
  );
}

const open = (location: Location): void => send({ type: 'openLocation', file: location.file, line: location.line });
const openPatch = (patch: PatchRef): void => send({ type: 'openPatch', patch });
const applyPatch = (patch: PatchRef): void => send({ type: 'applyPatch', patch });
const continueFrom = (step: number): void => send({ type: 'continueFrom', step });

/**
 * Whether the episode's steps can be continued from: one of our own trajectories (another tool's
 * file has no run folder, config or task to run again) with its start line. The server checks the
 * step itself when it plans the fork, and refuses with why.
 */
function forkable(): boolean {
  return header !== undefined && header.format === undefined && header.episodeId !== null && header.taskId !== null && header.startedAt !== null;
}

function renderHeader(): void {
  if (header === undefined) return;
  headerSlot.replaceChildren(
    episodeHeaderNode(header, list.all.length, {
      openPatch,
      applyPatch,
      compare: () => send({ type: 'compare' }),
      replay: () => send({ type: 'replay' }),
      codeGraph: () => {
        codeGraph.toggle();
        renderHeader();
        renderDetail();
      },
      chooseSample: (key) => {
        // Another sample is another episode: its steps are read afresh, from the first.
        selected = undefined;
        send({ type: 'chooseSample', key });
      },
      codeGraphShown: codeGraph.active,
    }),
  );
}

function onEpisode(message: Extract<EpisodeHostMessage, { type: 'episode' }>): void {
  if (!firstRenderSent) performance.mark('gp-episode-received');
  const wasAtEnd = selected !== undefined && selected === list.all.at(-1)?.step;
  header = message.header;
  if (message.appended) list.append(message.rows);
  else {
    records.clear();
    requested.clear();
    list.reset(message.rows);
  }
  renderHeader();
  // The pane shows the graph of what the file holds now; a grown episode is built again.
  if (codeGraph.active) codeGraph.refresh();
  renderFilters();
  list.applyFilters({ hidden, problemsOnly });
  const last = list.all.at(-1)?.step;
  // Following a running episode: whoever watches its last step keeps watching the newest one.
  if (wasAtEnd && message.appended && last !== undefined && last !== selected) select(last);
  else if (selected === undefined || list.row(selected) === undefined) {
    if (list.all[0] !== undefined) select(list.all[0].step);
    else renderDetail();
  } else {
    list.select(selected);
    fetchAround(selected);
    renderDetail();
  }
  if (!message.appended && query !== '') runSearch(query);
  if (!firstRenderSent) {
    firstRenderSent = true;
    send({ type: 'timing', what: 'firstRender', ms: performance.now() });
  }
}

function onSteps(steps: readonly EpisodeStepRecord[]): void {
  for (const step of steps) {
    records.set(step.step, step);
    requested.delete(step.step);
    if (step.type === 'foreign') continue;
    const last = step.observation.last;
    if (last?.kind === 'read') for (const s of last.snippets) nodeLines.set(s.node_id, s.start);
    const seen = [...(last?.kind === 'find' ? last.nodes : last?.kind === 'expand' ? last.candidates : []), ...step.observation.memory.nodes];
    for (const n of seen) {
      nodeLines.set(n.id, n.span.start);
      // Working memory's nodes carry no name; the id says it.
      const name = 'name' in n && typeof n.name === 'string' ? n.name : (nodeFromId(n.id)?.name ?? n.id);
      knownNodes.set(n.id, { kind: n.kind, name, path: n.path, line: n.span.start, ...('test' in n && n.test === true ? { test: true } : {}) });
    }
  }
  if (selected !== undefined && steps.some((s) => s.step === selected)) renderDetail();
}

function onMessage(event: MessageEvent<unknown>): void {
  const parsed = episodeHostMessageSchema.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Graph Planner trajectory viewer: ignored an invalid message', parsed.error.issues.slice(0, 3));
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'episode':
      onEpisode(message);
      return;
    case 'steps':
      onSteps(message.steps);
      return;
    case 'searchResult': {
      if (message.query !== query) return;
      matches = message.matches;
      const steps = new Set(matches.map((m) => m.step));
      list.markMatches(steps);
      searchStatus.textContent =
        matches.length === 0
          ? 'No match'
          : `${matches.length}${message.truncated ? '+' : ''} match${matches.length === 1 ? '' : 'es'} in ${steps.size} step${steps.size === 1 ? '' : 's'}`;
      if (matches.length > 0 && (selected === undefined || !steps.has(selected))) gotoMatch(1);
      else renderDetail();
      return;
    }
    case 'selectStep':
      if (list.row(message.step) !== undefined) select(message.step);
      return;
    case 'unavailable':
      headerSlot.replaceChildren(el('div', { class: 'banner error', attrs: { role: 'alert', id: 'unavailable' } }, message.reason));
      return;
  }
}

/** The step `direction` rows away among the visible ones, or the next one satisfying `accept`. */
function move(direction: 1 | -1, accept?: (step: number) => boolean): void {
  const visible = list.visibleSteps();
  if (visible.length === 0) return;
  const index = selected === undefined ? -1 : visible.indexOf(selected);
  for (let i = index + direction; i >= 0 && i < visible.length; i += direction) {
    const step = visible[i];
    if (step !== undefined && (accept === undefined || accept(step))) {
      select(step);
      return;
    }
  }
}

function onKey(event: KeyboardEvent): void {
  const target = event.target as HTMLElement | null;
  if (target?.tagName === 'INPUT' || target?.tagName === 'TEXTAREA' || event.ctrlKey || event.metaKey || event.altKey) return;
  const visible = list.visibleSteps();
  const handled = ((): boolean => {
    switch (event.key) {
      case 'ArrowDown':
      case 'j':
        move(1);
        return true;
      case 'ArrowUp':
      case 'k':
        move(-1);
        return true;
      case 'Home':
      case 'g':
        if (visible[0] !== undefined) select(visible[0]);
        return true;
      case 'End':
      case 'G':
        if (visible.at(-1) !== undefined) select(visible.at(-1) as number);
        return true;
      case 'r':
        move(1, (s) => list.row(s)?.kind === 'repair');
        return true;
      case 'e':
        move(1, (s) => {
          const row = list.row(s);
          return row !== undefined && hasProblem(row);
        });
        return true;
      case '/':
        searchBox.focus();
        searchBox.select();
        return true;
      default:
        return false;
    }
  })();
  if (handled) event.preventDefault();
}

// Marks the benchmark reads to split the first render into loading the script and waiting for the episode.
performance.mark('gp-script-start');
adoptEpisodeStyles();
layout();
window.addEventListener('message', onMessage);
document.addEventListener('keydown', onKey);
send({ type: 'ready' });
