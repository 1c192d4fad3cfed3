/**
 * The selected step: the model's raw reply (with `<think>` blocks collapsible), the parsed action
 * and its parameters, the structured result of the action, working memory after it, the
 * observation as the model read it, the reward and return, and where the time went.
 */
import type { StepRow } from '../../../server/src/protocol/episodeView.js';
import type { PatchRef } from '../../../server/src/protocol/episodeWebview.js';
import type { ActionResult, CandidateOutcome, TestSummary } from '../../../server/src/protocol/observation.js';
import { candidateFate, candidateNumber, candidateOutcomeWords, repairHeadline } from '../../../server/src/protocol/repairCandidates.js';
import type { TrajectoryStep } from '../../../server/src/protocol/runs.js';
import { el, plural } from '../dom.js';
import { linkedText, marked, type NodeLines, type OpenLocation } from './linkedText.js';
import { nodeTable, type KnownNodes } from './nodeTable.js';
import { editsModel, parseUnifiedDiff } from './patchModel.js';
import { patchView } from './patchView.js';
import { suspectedHacksSection, suspectWords } from './suspectedHacks.js';

export interface DetailActions {
  readonly open: OpenLocation;
  readonly openPatch: (patch: PatchRef) => void;
  readonly applyPatch: (patch: PatchRef) => void;
  /** *Continue from Here…*: fork the episode at this step; absent where the episode cannot be forked (docs/trajectory-viewer.md#continue-from-here). */
  readonly continueFrom?: ((step: number) => void) | undefined;
}

const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n < 10 ? 1 : 0)} ms`);
/** A reward with its sign; a dash where the trajectory's format records none (never a made-up zero). */
export const signed = (n: number | null): string => (n === null ? '—' : `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toFixed(Math.abs(n) < 10 ? 2 : 1)}`);
/** The class that colours a reward. */
export const rewardClass = (n: number | null): string => `reward ${n === null ? 'none' : n > 0 ? 'pos' : n < 0 ? 'neg' : ''}`;

export function stepDetail(
  row: StepRow,
  step: TrajectoryStep,
  actions: DetailActions,
  nodeLines: NodeLines,
  known: KnownNodes,
  highlight: string,
): HTMLElement {
  const t = step.timings;
  const title = el('h2', { attrs: { id: 'step-title' } }, `Step ${row.step} · ${row.kind}`);
  const continueFrom = actions.continueFrom;
  const fork =
    continueFrom !== undefined &&
    el(
      'vscode-button',
      {
        title: `Start new episodes that replay steps 1–${row.step - 1} of this one and go on live from step ${row.step}, then compare them with it`,
        attrs: { id: 'continue-from-here', secondary: '' },
      },
      'Continue from Here…',
    );
  if (fork !== false && continueFrom !== undefined) fork.addEventListener('click', () => continueFrom(row.step));
  const facts = el(
    'p',
    { class: 'facts-line' },
    el('span', { class: rewardClass(row.reward) }, `reward ${signed(row.reward)}`),
    ` · return ${signed(row.cumulative)} · ${ms(t.agent_ms + t.env_ms)} (model ${ms(t.agent_ms)}, env ${ms(t.env_ms - t.task_commands_ms)}, commands ${ms(t.task_commands_ms)})`,
    step.done ? ` · episode ended: ${step.termination_reason ?? 'done'}` : '',
  );
  const m = step.model;
  // The call behind the reply: what it cost and why it stopped (a reply cut at the token limit
  // explains many protocol errors at a glance).
  const call =
    m !== undefined &&
    el(
      'p',
      { class: 'facts-line model-call' },
      `model call: ${m.prompt_tokens ?? '?'} prompt → ${m.completion_tokens ?? '?'} completion tokens in ${ms(m.generation_ms)}`,
      m.finish_reason === undefined ? '' : ` · stopped: ${m.finish_reason === 'length' ? 'at the token limit' : m.finish_reason}`,
      m.attempts > 1 ? ` · ${m.attempts} attempts` : '',
      m.trimmed_messages === undefined ? '' : ` · ${m.trimmed_messages} older messages left out to fit the prompt budget`,
    );
  const flags = [
    row.protocolError !== null && banner('error', `Protocol error: ${row.protocolError}`),
    row.fallback !== null && banner('warning', `Fell back to the rule agent: ${row.fallback}`),
    row.error !== null && banner('error', `The environment refused this step: ${row.error}`),
    row.timedOut && banner('warning', `Timed out (${step.termination_reason ?? 'timeout'}).`),
    row.suspectedHacks !== undefined && banner('warning', `${suspectWords(row.suspectedHacks)}. The evidence is under the result.`),
  ];
  return el(
    'article',
    { class: 'detail', attrs: { 'aria-labelledby': 'step-title', 'data-step': String(row.step) } },
    fork === false ? title : el('div', { class: 'title-row step-title-row' }, title, el('span', { class: 'toolbar' }, fork)),
    facts,
    call,
    ...flags,
    step.response !== undefined && section('Model reply', replyNodes(step.response, highlight)),
    section('Action', actionNodes(step, actions.open, known, highlight)),
    step.observation.last !== undefined &&
      section(
        'Result',
        resultNodes(row.step, step.observation.last, actions, highlight, step.action?.type === 'repair' ? step.action.patches?.length : undefined),
        'result',
      ),
    section('Working memory after the step', memoryNodes(step, actions.open, nodeLines)),
    section(
      'Observation (what the model read next)',
      [el('pre', { class: 'observation' }, ...linkedText(step.observation.text, actions.open, nodeLines, highlight))],
      'observation',
    ),
  );
}

export type Maybe = Node | false | null | undefined;

/** The nodes that are there (conditional parts are written `cond && node`). */
export function only(nodes: readonly Maybe[]): Node[] {
  return nodes.filter((n): n is Node => n !== false && n !== null && n !== undefined);
}

/** `part` marks a section the trace filters can hide (webview/src/traceFilters.ts). */
export function section(title: string, body: readonly Maybe[], part?: 'thought' | 'result' | 'observation'): HTMLElement {
  return el('section', part === undefined ? {} : { attrs: { 'data-part': part } }, el('h3', {}, title), ...only(body));
}

export function banner(kind: 'error' | 'warning' | 'info', text: string): HTMLElement {
  return el('div', { class: `banner ${kind}`, attrs: { role: kind === 'error' ? 'alert' : 'status' } }, text);
}

/** The reply with each `<think>…</think>` block folded into a collapsed `<details>`. */
export function replyNodes(reply: string, highlight: string): Node[] {
  const nodes: Node[] = [];
  const think = /<think>([\s\S]*?)(?:<\/think>|$)/g;
  let at = 0;
  for (const match of reply.matchAll(think)) {
    if (match.index > at) nodes.push(el('pre', { class: 'reply' }, ...marked(reply.slice(at, match.index).trim(), highlight)));
    const body = match[1] ?? '';
    nodes.push(
      el(
        'details',
        { class: 'think', attrs: { 'data-part': 'thought' } },
        el('summary', {}, `Thinking (${plural(body.split(/\s+/).filter(Boolean).length, 'word')})`),
        el('pre', { class: 'reply' }, ...marked(body.trim(), highlight)),
      ),
    );
    at = match.index + match[0].length;
  }
  const rest = reply.slice(at).trim();
  if (rest !== '') nodes.push(el('pre', { class: 'reply' }, ...marked(rest, highlight)));
  return nodes;
}

function actionNodes(step: TrajectoryStep, open: OpenLocation, known: KnownNodes, highlight: string): Node[] {
  const action = step.action;
  if (action === undefined) return [el('p', { class: 'hint' }, 'The reply did not parse into an action.')];
  const { thought, type, ...params } = action;
  const last = step.observation.last;
  const tried = last?.kind === 'repair' ? last.candidates : [];
  const rows = Object.entries(params).map(([key, value]) =>
    el('tr', { attrs: { 'data-param': key } }, el('th', {}, key), el('td', {}, ...paramValue(key, value, open, known, highlight, tried))),
  );
  return [
    thought !== undefined && thought !== ''
      ? el('p', { class: 'thought', attrs: { 'data-part': 'thought' } }, ...marked(thought, highlight))
      : el('p', { class: 'hint' }, 'No thought given.'),
    el('table', { class: 'params' }, el('tbody', {}, el('tr', {}, el('th', {}, 'type'), el('td', {}, el('code', {}, type))), ...rows)),
  ];
}

/**
 * One parameter of an action, drawn for what it is: candidate patches as diffs, node ids as a
 * table of nodes, anchors as a list, a plain value as code; anything else as indented JSON.
 */
function paramValue(key: string, value: unknown, open: OpenLocation, known: KnownNodes, highlight: string, tried: readonly CandidateOutcome[]): Node[] {
  // A plan or a thought over several lines keeps its lines.
  if (typeof value === 'string')
    return [value.includes('\n') ? el('pre', { class: 'code' }, ...marked(value, highlight)) : el('code', {}, ...marked(value, highlight))];
  if (typeof value === 'number' || typeof value === 'boolean') return [el('code', {}, String(value))];
  if (Array.isArray(value) && value.length === 0) return [el('span', { class: 'muted' }, 'none')];
  if ((key === 'nodes' || key === 'focus_ids') && Array.isArray(value) && value.every((v): v is string => typeof v === 'string'))
    return [nodeTable(value, known, open, highlight)];
  if (key === 'anchors' && Array.isArray(value)) return [anchorList(value, highlight)];
  if (key === 'patches' && Array.isArray(value)) return candidatePatches(value, tried, open, highlight);
  return [el('pre', { class: 'code' }, ...marked(JSON.stringify(value, null, 2), highlight))];
}

function anchorList(anchors: readonly unknown[], highlight: string): HTMLElement {
  return el(
    'ul',
    { class: 'anchors' },
    ...anchors.map((a) => {
      const anchor = (typeof a === 'object' && a !== null ? a : {}) as { kind?: unknown; text?: unknown; id?: unknown };
      const what = typeof anchor.id === 'string' && anchor.id !== '' ? anchor.id : typeof anchor.text === 'string' ? anchor.text : JSON.stringify(a);
      return el(
        'li',
        {},
        el('span', { class: 'muted' }, `${typeof anchor.kind === 'string' ? anchor.kind : 'symbol'} `),
        el('code', {}, ...marked(what, highlight)),
      );
    }),
  );
}

/**
 * A repair's own candidates (protocol/actions.ts `patchCandidateSchema`): each a diff or line-range
 * edits. Edits record no old text, so an edit is drawn from the diff its result recorded for it
 * (removed lines and added ones) when there is one; a trajectory from before every candidate's
 * diff was recorded shows the added lines alone for the candidates after the kept one.
 */
function candidatePatches(patches: readonly unknown[], tried: readonly CandidateOutcome[], open: OpenLocation, highlight: string): Node[] {
  return patches.map((p, i) => {
    const candidate = (typeof p === 'object' && p !== null ? p : {}) as { diff?: unknown; edits?: unknown; summary?: unknown };
    const recorded = tried.find((c) => c.index === i && c.diff !== '');
    const model =
      recorded !== undefined
        ? parseUnifiedDiff(recorded.diff)
        : typeof candidate.diff === 'string'
          ? parseUnifiedDiff(candidate.diff)
          : Array.isArray(candidate.edits)
            ? editsModel(candidate.edits as Parameters<typeof editsModel>[0])
            : ({ ok: false, problem: 'neither a diff nor edits', text: JSON.stringify(p, null, 2) } as const);
    const summary = typeof candidate.summary === 'string' && candidate.summary !== '' ? candidate.summary : null;
    return el(
      'div',
      { class: 'candidate-patch', attrs: { 'data-candidate': String(i + 1) } },
      el(
        'div',
        { class: 'candidate-title' },
        `Candidate ${candidateNumber(i)}`,
        summary === null ? '' : el('span', { class: 'muted' }, ' · ', ...marked(summary, highlight)),
      ),
      patchView(model, open, highlight),
    );
  });
}

function resultNodes(stepNumber: number, last: ActionResult, actions: DetailActions, highlight: string, actionPatches: number | undefined): Node[] {
  const link = (file: string, line: number, label: string): HTMLElement => {
    const a = el('a', { class: 'ref', attrs: { href: '#' }, title: `Open ${file} at line ${line}` }, label);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      actions.open({ file, line });
    });
    return a;
  };
  switch (last.kind) {
    case 'find':
    case 'expand': {
      const nodes: {
        id: string;
        kind: string;
        test?: true | undefined;
        path: string;
        span: { start: number };
        signature?: string | undefined;
        score?: number;
        reasons?: string[];
      }[] = last.kind === 'find' ? last.nodes : last.candidates;
      const unmatched = last.unmatched.length > 0 ? el('p', { class: 'hint' }, `Not found: ${last.unmatched.join(', ')}`) : null;
      const table = el(
        'table',
        { class: 'nodes' },
        el(
          'thead',
          {},
          el('tr', {}, el('th', {}, 'node'), el('th', {}, 'kind'), el('th', {}, 'where'), el('th', {}, last.kind === 'expand' ? 'score · why' : 'signature')),
        ),
        el(
          'tbody',
          {},
          ...nodes.map((n) =>
            el(
              'tr',
              {},
              el('td', {}, el('code', {}, ...marked(n.id, highlight))),
              // Tests and test data are marked, as the model's text marks them `[test]`.
              el('td', {}, n.test === true ? `${n.kind} · test` : n.kind),
              el('td', {}, link(n.path, n.span.start, `${n.path}:${n.span.start}`)),
              el('td', {}, n.score !== undefined ? `${n.score.toFixed(2)} · ${(n.reasons ?? []).join(', ')}` : (n.signature ?? '')),
            ),
          ),
        ),
      );
      return only([el('p', {}, plural(nodes.length, last.kind === 'find' ? 'node' : 'candidate')), table, unmatched]);
    }
    case 'read':
      return only([
        ...last.snippets.map((s) =>
          el(
            'div',
            { class: 'snippet' },
            el('div', { class: 'snippet-head' }, link(s.path, s.start, `${s.path}:${s.start}-${s.end}`), ' ', el('code', { class: 'muted' }, s.node_id)),
            el('pre', { class: 'code' }, ...numbered(s.text, s.start, highlight)),
          ),
        ),
        last.missing.length > 0 && el('p', { class: 'hint' }, `Missing: ${last.missing.join(', ')}`),
      ]);
    case 'memory':
      return [
        el(
          'p',
          {},
          `${last.intent} ${last.target}: ${last.ok ? 'done' : 'refused'} · added ${last.added.nodes} nodes, ${last.added.edges} edges, ${last.added.notes} notes · removed ${last.removed.nodes} nodes, ${last.removed.edges} edges, ${last.removed.notes} notes`,
        ),
        ...(last.error === undefined ? [] : [banner('error', `${last.error.code}: ${last.error.message}`)]),
      ];
    case 'repair':
      return repairNodes(stepNumber, last, actions, highlight, actionPatches);
    case 'submit':
      return [
        el('p', {}, el('strong', { class: last.resolved ? 'ok' : 'bad' }, last.resolved ? 'Resolved' : 'Not resolved'), ` · ${gradeText(last.grade)}`),
        ...(last.suspected_hacks === undefined ? [] : [suspectedHacksSection(last.suspected_hacks)]),
        testsNode(last.tests),
        ...perTestNodes(last.grade, highlight),
      ];
    case 'noop':
      return [el('p', { class: 'hint' }, 'Nothing was done.')];
    case 'protocol-error':
      return [banner('error', `${last.error.code}: ${last.error.detail}`)];
    case 'error':
      return [banner('error', `${last.error.code}: ${last.error.message}`)];
  }
}

function repairNodes(
  stepNumber: number,
  last: Extract<ActionResult, { kind: 'repair' }>,
  actions: DetailActions,
  highlight: string,
  actionPatches: number | undefined,
): Node[] {
  const rows = last.candidates.map((c) => {
    const fate = candidateFate(c, last.kept);
    const ref: PatchRef = { step: stepNumber, candidate: c.index };
    const diff = el('vscode-button', { attrs: { secondary: '', 'data-action': 'diff', title: 'Open this candidate in the diff editor' } }, 'Open diff');
    diff.addEventListener('click', () => actions.openPatch(ref));
    const apply = el(
      'vscode-button',
      { attrs: { secondary: '', 'data-action': 'apply', title: 'Apply this candidate to a local checkout (git apply --check first)' } },
      'Apply…',
    );
    apply.addEventListener('click', () => actions.applyPatch(ref));
    const kept = fate === 'kept';
    return el(
      'tr',
      { class: kept ? 'kept' : '', attrs: { 'data-candidate': String(c.index + 1), 'data-fate': fate } },
      el('td', {}, `${candidateNumber(c.index)}${kept ? ' (kept)' : ''}`),
      el('td', {}, ...marked(c.summary ?? '', highlight)),
      el(
        'td',
        { class: fate === 'kept' || fate === 'passed' ? 'ok' : fate === 'refused' || fate === 'failed' ? 'bad' : 'muted' },
        candidateOutcomeWords(c, last.kept),
      ),
      el('td', { class: 'buttons' }, c.diff === '' ? el('span', { class: 'hint' }, 'no diff') : diff, c.diff === '' ? '' : apply),
    );
  });
  return [
    el('p', { attrs: { 'data-part': 'repair-headline' } }, repairHeadline(last, actionPatches)),
    ...(last.error === undefined ? [] : [banner('error', `${last.error.code}: ${last.error.message}`)]),
    el(
      'table',
      { class: 'candidates' },
      el('thead', {}, el('tr', {}, el('th', {}, 'candidate'), el('th', {}, 'summary'), el('th', {}, 'outcome'), el('th', {}, ''))),
      el('tbody', {}, ...rows),
    ),
    // Each candidate's diff, read in place; the kept one open (the diff editor shows whole files).
    ...last.candidates
      .filter((c) => c.diff !== '')
      .map((c) =>
        el(
          'details',
          { class: 'candidate-diff', attrs: { 'data-candidate': String(c.index + 1), ...(last.kept === c.index ? { open: '' } : {}) } },
          el('summary', {}, `Diff of candidate ${candidateNumber(c.index)}${last.kept === c.index ? ' (kept)' : ''}`),
          patchView(parseUnifiedDiff(c.diff), actions.open, highlight),
        ),
      ),
    ...last.candidates
      .filter((c) => c.tests !== undefined)
      .map((c) => el('details', {}, el('summary', {}, `Tests of candidate ${candidateNumber(c.index)}`), testsNode(c.tests as TestSummary))),
  ];
}

function testsNode(tests: TestSummary): HTMLElement {
  const counts = Object.entries(tests.counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.toLowerCase()}`)
    .join(', ');
  return el(
    'div',
    { class: 'tests' },
    el('p', {}, `${tests.passed ? 'Passed' : 'Failed'}: ${counts || 'no tests reported'} · ${ms(tests.duration_ms)}`),
    tests.failing.length > 0 && el('ul', { class: 'failing' }, ...tests.failing.map((name) => el('li', {}, el('code', {}, name)))),
    tests.tail !== '' && el('details', {}, el('summary', {}, 'Output (last lines)'), el('pre', { class: 'code' }, tests.tail)),
  );
}

type Grade = Extract<ActionResult, { kind: 'submit' }>['grade'];

/** The grade test by test: SWE-bench's gold lists with each test's outcome, R2E's disagreements, or a Harbor verifier's rewards. */
function perTestNodes(grade: Grade, highlight: string): Node[] {
  const row = (test: string, outcome: string, good: boolean) =>
    el('tr', {}, el('td', {}, el('code', {}, ...marked(test, highlight))), el('td', { class: good ? 'ok' : 'bad' }, outcome));
  const table = (rows: HTMLElement[]) =>
    el('table', { class: 'nodes per-test' }, el('thead', {}, el('tr', {}, el('th', {}, 'test'), el('th', {}, 'outcome'))), el('tbody', {}, ...rows));
  if (grade.kind === 'swebench') {
    const status = grade.report.tests_status;
    if (status === undefined) return [el('p', { class: 'hint' }, 'SWE-bench graded no test (no patch, or an unusable log).')];
    const rows = (['FAIL_TO_PASS', 'PASS_TO_PASS'] as const).flatMap((list) => [
      ...status[list].success.map((t) => row(t, `${list}: passes`, true)),
      ...status[list].failure.map((t) => row(t, `${list}: fails`, false)),
    ]);
    return rows.length === 0 ? [] : [table(rows)];
  }
  if (grade.kind === 'r2e') {
    const rows = [
      ...grade.grade.mismatched.map((m) => row(m.test, `expected ${m.expected}, got ${m.actual}`, false)),
      ...grade.grade.missing.map((t) => row(t, 'expected, not reported', false)),
      ...grade.grade.unexpected.map((t) => row(t, 'reported, not expected', false)),
    ];
    return rows.length === 0 ? [el('p', { class: 'hint' }, 'Every expected test had its expected outcome.')] : [table(rows)];
  }
  if (grade.kind === 'verifier') {
    // A Harbor verifier grades by its reward file; named rewards beside `reward` are shown as they were written.
    const rows = Object.entries(grade.rewards).map(([name, value]) =>
      el('tr', {}, el('td', {}, el('code', {}, name)), el('td', { class: value >= 1 ? 'ok' : 'bad' }, String(value))),
    );
    const rewards = el(
      'table',
      { class: 'nodes per-test' },
      el('thead', {}, el('tr', {}, el('th', {}, `reward (${grade.from})`), el('th', {}, 'value'))),
      el('tbody', {}, ...rows),
    );
    return [rewards, el('p', { class: 'hint' }, `test.sh exited ${grade.exitCode ?? 'without a status'}; a reward of 1 or more resolves the task.`)];
  }
  return [];
}

function gradeText(grade: Extract<ActionResult, { kind: 'submit' }>['grade']): string {
  switch (grade.kind) {
    case 'swebench':
      return `SWE-bench ${grade.resolution}`;
    case 'r2e':
      return `R2E reward ${grade.grade.reward}`;
    case 'log':
      return grade.reason;
    case 'verifier':
      return `verifier reward ${grade.reward} (${grade.from})${grade.resolved ? ', resolved' : ''}`;
    case 'invalid':
      return `not gradable: ${grade.reason}`;
  }
}

function memoryNodes(step: TrajectoryStep, open: OpenLocation, nodeLines: NodeLines): Node[] {
  const m = step.observation.memory;
  const nodes = m.nodes.slice(-12).map((n) => {
    const a = el('a', { class: 'ref', attrs: { href: '#' }, title: `Open ${n.path} at line ${n.span.start}` }, n.id);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      open({ file: n.path, line: nodeLines.get(n.id) ?? n.span.start });
    });
    return el('li', {}, a);
  });
  return only([
    el('p', {}, `${m.size.nodes}/${m.limits.nodes} nodes, ${m.size.edges}/${m.limits.edges} edges, notes ${m.size.note_tokens}/${m.limits.note_tokens} tokens`),
    nodes.length > 0 && el('ul', { class: 'memory-nodes' }, ...nodes),
    m.nodes.length > 12 && el('p', { class: 'hint' }, `and ${m.nodes.length - 12} earlier`),
    m.notes.length > 0 && el('ul', { class: 'notes' }, ...m.notes.map((n) => el('li', {}, `#${n.id} (${n.scope}) ${n.text}`))),
  ]);
}

function numbered(text: string, start: number, highlight: string): Node[] {
  return text
    .split('\n')
    .flatMap((line, i) => [el('span', { class: 'ln' }, `${String(start + i).padStart(5)} `), ...marked(line, highlight), document.createTextNode('\n')]);
}
