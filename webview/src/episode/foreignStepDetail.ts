/**
 * A step of another tool's trajectory (ATIF, SWE-agent, mini-swe-agent): who spoke, the message
 * (with `<think>` blocks folded), the reasoning, each tool call with its arguments, what came back,
 * the media it names (named, never loaded), the figures the format records, the agent's state and
 * the format's extras. What the format does not record is left out, not shown as zero.
 */
import type { ForeignStep, StepRow } from '../../../server/src/protocol/episodeView.js';
import { el } from '../dom.js';
import { marked } from './linkedText.js';
import { banner, only, replyNodes, rewardClass, section, signed } from './stepDetail.js';

const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n < 10 ? 1 : 0)} ms`);

export function foreignStepDetail(row: StepRow, step: ForeignStep, highlight: string): HTMLElement {
  const title = el(
    'h2',
    { attrs: { id: 'step-title' } },
    `Step ${row.step} · ${step.source}`,
    el('span', { class: 'muted origin', title: 'Where the step is in the file' }, ` ${step.origin}`),
  );
  const facts = [
    step.timestamp,
    step.model !== null && `model ${step.model}`,
    step.reward !== null && el('span', { class: rewardClass(step.reward) }, `reward ${signed(step.reward)}`),
    step.durationMs !== null && `took ${ms(step.durationMs)}`,
    ...metricFacts(step.metrics),
  ].filter((f): f is string | HTMLElement => typeof f === 'string' || f instanceof HTMLElement);
  return el(
    'article',
    { class: 'detail foreign', attrs: { 'aria-labelledby': 'step-title', 'data-step': String(row.step) } },
    title,
    facts.length > 0 && el('p', { class: 'facts-line' }, ...facts.flatMap((f, i) => (i === 0 ? [f] : [' · ', f]))),
    step.problems.length > 0 &&
      el(
        'div',
        { class: 'banner warning', attrs: { role: 'status' } },
        el('p', {}, 'This step breaks its format’s rules; it is shown as far as it can be read:'),
        el('ul', {}, ...step.problems.map((p) => el('li', {}, p))),
      ),
    step.copiedContext &&
      banner('info', 'Copied context: this step was copied from an earlier trajectory (after a summary, say), not taken by this agent here.'),
    section('Message', step.message.trim() === '' ? [el('p', { class: 'hint' }, 'Empty.')] : replyNodes(step.message, highlight)),
    step.reasoning !== null && section('Reasoning', [el('pre', { class: 'reply thought' }, ...marked(step.reasoning, highlight))], 'thought'),
    step.toolCalls.length > 0 &&
      section(
        step.toolCalls.length === 1 ? 'Tool call' : `Tool calls (${step.toolCalls.length})`,
        step.toolCalls.map((c) => toolCall(c, highlight)),
      ),
    // What the tools returned: the trace filters' tool results (the format has no separate observation).
    step.results.length > 0 &&
      section(
        step.results.length === 1 ? 'Observation' : `Observations (${step.results.length})`,
        step.results.map((r) => result(r, highlight)),
        'result',
      ),
    step.media.length > 0 &&
      section('Media', [
        el(
          'ul',
          { class: 'media' },
          ...step.media.map((m) =>
            el('li', {}, `${m.kind} `, el('code', {}, m.path), el('span', { class: 'muted' }, ` (${m.mediaType}, named by the file, not loaded)`)),
          ),
        ),
      ]),
    Object.keys(step.state).length > 0 &&
      section('State after the step', [
        el(
          'table',
          { class: 'params' },
          el('tbody', {}, ...Object.entries(step.state).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, el('code', {}, v))))),
        ),
      ]),
    step.extra !== null &&
      el(
        'details',
        { class: 'extra' },
        el('summary', {}, 'Extras the file records for this step'),
        el('pre', { class: 'code' }, JSON.stringify(step.extra, null, 2)),
      ),
  );
}

function metricFacts(m: ForeignStep['metrics']): string[] {
  const tokens = [
    m.promptTokens !== null && `${m.promptTokens} prompt`,
    m.completionTokens !== null && `${m.completionTokens} completion`,
    m.cachedTokens !== null && `${m.cachedTokens} cached`,
  ].filter((t): t is string => typeof t === 'string');
  const ids = [m.promptTokenIds !== null && `${m.promptTokenIds} prompt`, m.completionTokenIds !== null && `${m.completionTokenIds} completion`].filter(
    (t): t is string => typeof t === 'string',
  );
  return [
    tokens.length > 0 ? `tokens: ${tokens.join(', ')}` : '',
    m.costUsd !== null ? `$${m.costUsd.toFixed(4)}` : '',
    ids.length > 0 ? `token ids: ${ids.join(', ')}` : '',
    m.logprobs !== null ? `${m.logprobs} log-${m.logprobs === 1 ? 'probability' : 'probabilities'}` : '',
  ].filter((f) => f !== '');
}

function toolCall(call: ForeignStep['toolCalls'][number], highlight: string): HTMLElement {
  const args = call.arguments;
  const body =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? el(
          'table',
          { class: 'params' },
          el(
            'tbody',
            {},
            ...Object.entries(args).map(([key, value]) =>
              el(
                'tr',
                {},
                el('th', {}, key),
                el('td', {}, el('pre', { class: 'code' }, ...marked(typeof value === 'string' ? value : JSON.stringify(value, null, 1), highlight))),
              ),
            ),
          ),
        )
      : args === undefined || args === ''
        ? null
        : el('pre', { class: 'code' }, ...marked(typeof args === 'string' ? args : JSON.stringify(args, null, 1), highlight));
  return el(
    'div',
    { class: 'tool-call' },
    el('div', { class: 'call-head' }, el('code', { class: 'call-name' }, call.name), call.id === null ? '' : el('span', { class: 'muted' }, ` ${call.id}`)),
    body,
  );
}

function result(r: ForeignStep['results'][number], highlight: string): HTMLElement {
  return el(
    'div',
    { class: 'result' },
    r.callId !== null && el('div', { class: 'muted call-head' }, `from ${r.callId}`),
    r.content !== ''
      ? el('pre', { class: 'observation' }, ...marked(r.content, highlight))
      : r.subagents.length === 0
        ? el('p', { class: 'hint' }, 'No content.')
        : null,
    ...only([r.subagents.length > 0 && el('p', {}, `Subagent trajectory: `, ...r.subagents.flatMap((s, i) => [i === 0 ? '' : ', ', el('code', {}, s)]))]),
  );
}
