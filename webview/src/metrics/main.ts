/**
 * A training run's metrics page: the curves a person watches while GRPO trains (reward, resolved
 * rate, response length, KL, step time), against step or wall time, smoothed as TensorBoard
 * smooths, updating as the extension hands over new lines. Every message from the extension is
 * validated before anything is drawn.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { MetricsLine } from '../../../server/src/protocol/metrics.js';
import { metricsFigureNames } from '../../../server/src/protocol/metricsFigures.js';
import { metricsPageMessageSchema } from '../../../server/src/protocol/metricsView.js';
import type { MetricsWebviewMessage } from '../../../server/src/protocol/metricsWebview.js';
import { el, plural } from '../dom.js';
import { vscodeApi } from '../host.js';
import { lineChart, type ChartSeries } from './chart.js';
import { adoptMetricsStyles } from './metricsStyles.js';
import { localisationSection } from './localisationChart.js';
import {
  noOutcomeSeries,
  parseFailureSeries,
  resolvedRateSeries,
  runnerTamperedSeries,
  suspectedHacksSeries,
  totalsOf,
  verlSeries,
  type Point,
} from './series.js';
import { StepSamplesSection } from './stepSamples.js';

const send = (message: MetricsWebviewMessage): void => vscodeApi.postMessage(message);

type Axis = 'step' | 'time';
interface ViewState {
  axis: Axis;
  smoothing: number;
}

const saved = vscodeApi.getState() as Partial<ViewState> | undefined;
const view: ViewState = { axis: saved?.axis === 'time' ? 'time' : 'step', smoothing: typeof saved?.smoothing === 'number' ? saved.smoothing : 0.6 };
let lines: MetricsLine[] = [];
let run = '';
let state = 'unknown';
let problems: string[] = [];
const samples = new StepSamplesSection();

/** What each chart draws: Verl's keys (the first that has points is the headline) or a derived series. */
const charts: readonly {
  id: string;
  title: string;
  yTitle: string;
  keys?: readonly [string, string][];
  derived?: 'resolved' | 'parse-failures' | 'suspected-hacks' | 'no-outcome';
  percent?: boolean;
  unit?: string;
  empty?: string;
  /** Shown only when the run logged one of its keys (the canary's charts, on a canary run). */
  onlyWhenLogged?: boolean;
  /** Drawn without smoothing whatever the slider says: a few points that are not a time series. */
  raw?: boolean;
  /** A sentence on how to read the chart, from the run's lines. */
  note?: (lines: readonly MetricsLine[]) => string | undefined;
}[] = [
  {
    // gp train --canary (server/src/trainer/canary.ts): the trained run and its control side by side.
    id: 'canary',
    title: 'Canary: return per step, trained against control',
    yTitle: 'mean return',
    keys: [
      ['canary/trained/train_return', 'trained'],
      ['canary/control/train_return', 'control (update off)'],
    ],
    onlyWhenLogged: true,
    note: (all) => canarySeedsNote(all),
  },
  {
    id: 'canary-held-out',
    title: 'Canary: held-out return after each seed',
    yTitle: 'mean return',
    keys: [
      ['canary/trained/held_out', 'trained'],
      ['canary/control/held_out', 'control (update off)'],
    ],
    onlyWhenLogged: true,
    raw: true,
    note: () => 'The held-out tasks are scored once per seed, after its last step; the points are not smoothed.',
  },
  { id: 'reward', title: 'Reward (mean episode return)', yTitle: 'mean return', keys: [['critic/score/mean', 'mean']] },
  { id: 'resolved', title: 'Resolved rate per step', yTitle: 'resolved / ended', derived: 'resolved', percent: true },
  { id: 'parse', title: 'Replies that failed to parse', yTitle: 'share of replies', derived: 'parse-failures', percent: true },
  {
    id: 'hacks',
    title: 'Suspected reward hacks per step',
    yTitle: 'episodes flagged',
    derived: 'suspected-hacks',
    empty: 'This run did not count suspected reward hacks (it predates the count).',
  },
  {
    id: 'no-outcome',
    title: 'Episodes without an outcome per step',
    yTitle: 'episodes left out',
    derived: 'no-outcome',
    empty: 'This run did not count episodes without an outcome (it predates the count).',
  },
  {
    id: 'length',
    title: 'Response length (tokens)',
    yTitle: 'tokens',
    keys: [
      ['response_length/mean', 'mean'],
      ['response_length/max', 'max'],
    ],
  },
  {
    id: 'kl',
    title: 'KL to the rollout policy',
    yTitle: 'KL',
    keys: [
      ['actor/ppo_kl', 'PPO KL'],
      ['actor/kl_loss', 'KL loss'],
    ],
  },
  {
    id: 'timing',
    title: 'Step time',
    yTitle: 'seconds',
    keys: [
      ['timing_s/step', 'step'],
      ['timing_s/gen', 'rollout'],
      ['timing_s/update_actor', 'update'],
    ],
    unit: 's',
  },
];

function formatNumber(v: number): string {
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e5)) return v.toExponential(1);
  return Number.isInteger(v) ? String(v) : v.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 3);
}

function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Two columns of charts on a wide page, one on a narrow one; each chart's drawing fills its column. */
function chartWidth(root: HTMLElement): number {
  const inner = root.clientWidth - 40;
  const columns = inner >= 900 ? 2 : 1;
  return (inner - 16 * (columns - 1)) / columns - 26;
}

function formatTick(v: number): string {
  return String(Number(v.toPrecision(6)));
}

function render(): void {
  const root = document.getElementById('root');
  if (root === null) return;
  const width = chartWidth(root);
  const totals = totalsOf(lines);
  const start = totals.firstTime ?? 0;
  const toXY = (points: readonly Point[]) => points.map((p) => ({ x: view.axis === 'step' ? p.step : p.time - start, y: p.value, step: p.step, time: p.time }));
  // The whole run's rate, named so, beside the per-step chart whose head is its latest step's (protocol/metricsFigures.ts).
  const rate =
    totals.resolvedRate === undefined
      ? ''
      : el(
          'span',
          { attrs: { id: 'run-resolved-rate' }, title: metricsFigureNames.runResolvedRate.definition },
          ` · ${metricsFigureNames.runResolvedRate.label} ${(100 * totals.resolvedRate).toFixed(0)}%`,
        );
  const header = el(
    'header',
    { class: 'top' },
    el('h1', {}, run || 'Training run'),
    el(
      'p',
      { class: 'summary' },
      el('span', { class: `state ${state}`, attrs: { id: 'run-state' } }, state),
      ` · ${plural(totals.steps, 'step')} · ${plural(totals.episodes, 'episode')} ended, ${totals.resolved} resolved`,
      rate,
      totals.meanTotalReward === undefined ? '' : ` · mean return ${formatNumber(totals.meanTotalReward)}`,
      totals.noOutcome === 0
        ? ''
        : el(
            'span',
            {
              attrs: { id: 'run-no-outcome' },
              title:
                'Episodes the infrastructure failed (a lost sandbox host, a test run that could not be graded, an interrupted episode): masked in the update, left out of their GRPO group and of the resolved rate.',
            },
            ` · ${plural(totals.noOutcome, 'episode')} without an outcome`,
          ),
      totals.suspectedHacks === 0
        ? ''
        : el(
            'span',
            {
              class: 'suspect',
              attrs: { id: 'run-suspected-hacks' },
              title:
                'Episodes whose submitted patch touched what the grader reads or reached for the test runner, git, the network or the environment: a flag to look at, not a verdict; the reward is unchanged.',
            },
            ` · ⚠ ${plural(totals.suspectedHacks, 'episode')} with suspected reward hacking`,
          ),
    ),
  );
  const axisButtons = (['step', 'time'] as const).map((axis) => {
    const b = el('vscode-button', { attrs: { ...(view.axis === axis ? {} : { secondary: '' }), 'data-axis': axis } }, axis === 'step' ? 'Step' : 'Wall time');
    b.addEventListener('click', () => {
      view.axis = axis;
      vscodeApi.setState(view);
      render();
    });
    return b;
  });
  const slider = el('input', {
    attrs: { type: 'range', min: '0', max: '0.99', step: '0.01', value: String(view.smoothing), id: 'smoothing', 'aria-label': 'Smoothing' },
  });
  slider.addEventListener('input', () => {
    view.smoothing = Number(slider.value);
    vscodeApi.setState(view);
    render();
    document.getElementById('smoothing')?.focus();
  });
  const log = el('vscode-button', { attrs: { secondary: '' }, title: 'The trainer’s output (run.log)' }, 'Show Log');
  log.addEventListener('click', () => send({ type: 'showLog' }));
  const controls = el(
    'div',
    { class: 'controls' },
    el('span', { class: 'label' }, 'X axis'),
    el('span', { class: 'segmented' }, ...axisButtons),
    el('label', { class: 'label', attrs: { for: 'smoothing' } }, 'Smoothing'),
    slider,
    el('span', { class: 'value' }, view.smoothing.toFixed(2)),
    el('span', { class: 'spacer' }),
    log,
  );
  const banner =
    problems.length === 0
      ? null
      : el(
          'div',
          { class: 'banner' },
          `${plural(problems.length, 'line')} of metrics.jsonl could not be read and are left out: ${problems.slice(0, 3).join('; ')}`,
        );
  const grid = el(
    'div',
    { class: 'charts' },
    ...charts
      .filter((c) => c.onlyWhenLogged !== true || (c.keys ?? []).some(([key]) => verlSeries(lines, key).length > 0))
      .map((c) => {
        const series: ChartSeries[] =
          c.derived === 'resolved'
            ? [{ label: 'resolved', points: toXY(resolvedRateSeries(lines)) }]
            : c.derived === 'parse-failures'
              ? [{ label: 'failed to parse', points: toXY(parseFailureSeries(lines)) }]
              : c.derived === 'suspected-hacks'
                ? [
                    { label: 'episodes flagged', points: toXY(suspectedHacksSeries(lines)) },
                    { label: 'runner tampered (masked)', points: toXY(runnerTamperedSeries(lines)) },
                  ]
                : c.derived === 'no-outcome'
                  ? [{ label: 'masked, left out of their group', points: toXY(noOutcomeSeries(lines)) }]
                  : (c.keys ?? []).map(([key, label]) => ({ label, points: toXY(verlSeries(lines, key)) }));
        return lineChart({
          id: c.id,
          title: c.title,
          series,
          smoothing: c.raw === true ? 0 : view.smoothing,
          ...(c.note?.(lines) === undefined ? {} : { note: c.note(lines) }),
          formatX: view.axis === 'step' ? (x) => (Number.isInteger(x) ? String(x) : '') : formatDuration,
          formatY: c.percent === true ? (y) => `${(100 * y).toFixed(0)}%` : (y) => `${formatTick(y)}${c.unit ?? ''}`,
          formatLatest: c.percent === true ? (y) => `${(100 * y).toFixed(0)}%` : (y) => `${formatNumber(y)}${c.unit ?? ''}`,
          width,
          xTitle: view.axis === 'step' ? 'training step' : 'wall time since the first line (h:mm:ss)',
          yTitle: c.yTitle,
          empty: totals.steps === 0 ? 'Waiting for the first training step…' : (c.empty ?? 'Verl did not log this in this run.'),
          // Clicking a step shows its sampled episodes below.
          ...(view.axis === 'step' ? { onPick: (x: number) => samples.pick(Math.round(x)) } : {}),
        });
      }),
  );
  root.replaceChildren(header, controls, ...(banner === null ? [] : [banner]), grid, samples.element, localisationSection(width));
  samples.placed();
}

/**
 * `Each seed trains a fresh model: steps 1–20 are seed 1, 21–40 seed 2.`: the canary numbers its
 * seeds' steps on, so a drop where a seed starts is the fresh model, not a collapse.
 */
function canarySeedsNote(all: readonly MetricsLine[]): string | undefined {
  const ranges = new Map<number, [number, number]>();
  for (const line of all) {
    if (line.source !== 'verl') continue;
    const seed = line.data['canary/seed'];
    if (typeof seed !== 'number') continue;
    const range = ranges.get(seed);
    ranges.set(seed, range === undefined ? [line.step, line.step] : [Math.min(range[0], line.step), Math.max(range[1], line.step)]);
  }
  if (ranges.size < 2) return undefined;
  const parts = [...ranges.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([seed, [from, to]], i) => `${i === 0 ? 'steps ' : ''}${from}–${to} ${i === 0 ? 'are ' : ''}seed ${seed + 1}`);
  return `Each seed trains a fresh model from the start: ${parts.join(', ')}.`;
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = metricsPageMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  lines = message.reset ? [...message.lines] : [...lines, ...message.lines];
  run = message.run;
  state = message.state;
  problems = message.reset ? [...message.problems] : [...problems, ...message.problems];
  render();
  if (message.lines.some((l) => l.source === 'verl')) samples.metricsArrived();
});

let resizing: number | undefined;
window.addEventListener('resize', () => {
  window.clearTimeout(resizing);
  resizing = window.setTimeout(render, 120);
});

adoptMetricsStyles();
send({ type: 'ready' });
