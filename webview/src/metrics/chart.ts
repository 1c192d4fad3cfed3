/**
 * A line chart as SVG: each series drawn raw (faint) and smoothed, with a light grid, a few ticks
 * and a title on each axis, the bold line's last value in the head with the latest step's recorded
 * value beside it (`headline.ts`, protocol/metricsFigures.ts), and a readout under the chart that
 * follows the pointer: the nearest point's step, time and value of each series, raw and smoothed.
 * Text goes in as text nodes; colours are classes of the page's style sheet (the Content Security
 * Policy allows no inline style).
 */
import { metricsFigureNames } from '../../../server/src/protocol/metricsFigures.js';
import { el } from '../dom.js';
import { smoothEma } from './ema.js';
import { chartHeadline, type Headline } from './headline.js';
import { ticks } from './ticks.js';

const svgNs = 'http://www.w3.org/2000/svg';
const height = 220;
const pad = { left: 70, right: 16, top: 12, bottom: 46 };

export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  /** The training step and the time (epoch ms) the point was logged, for the readout, when known. */
  readonly step?: number;
  readonly time?: number;
}

export interface ChartSeries {
  readonly label: string;
  readonly points: readonly ChartPoint[];
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly ChartSeries[];
  readonly smoothing: number;
  readonly formatX: (x: number) => string;
  readonly formatY: (y: number) => string;
  /** The headline value's format (more digits than the ticks need). */
  readonly formatLatest: (y: number) => string;
  /** What to say when no series has a point yet. */
  readonly empty: string;
  /** The drawing's width in CSS pixels, so its text is drawn at its real size. */
  readonly width: number;
  /** Called with the x of the point nearest a click, when clicking picks a point (a training step). */
  readonly onPick?: (x: number) => void;
  /** A fixed range of the y axis (a fraction's 0 to 1); by default the data's own, with a margin. */
  readonly yRange?: readonly [number, number];
  /** The axes' titles: `training step`, `mean return`. */
  readonly xTitle: string;
  readonly yTitle: string;
  /** A sentence under the legend on how to read the chart (the canary's seeds), when it needs one. */
  readonly note?: string;
}

/** `step 12 · 14:03:21`: where a point is, as the readout says it. */
function whereOf(point: ChartPoint, formatX: (x: number) => string): string {
  const parts = [point.step !== undefined ? `step ${point.step}` : formatX(point.x)];
  if (point.time !== undefined && Number.isFinite(point.time)) parts.push(new Date(point.time).toLocaleTimeString());
  return parts.join(' · ');
}

/**
 * `smoothed 62.5%` over `at step 3 50%`: the bold line's last value first and larger, then under
 * it the latest step's value as recorded; a line drawn unsmoothed shows only the latter, as the headline.
 */
function headlineNode(h: Headline, label: string, format: (y: number) => string): HTMLElement {
  const recorded = metricsFigureNames.latest;
  const where = h.step !== undefined ? `${recorded.label} ${h.step} ` : 'latest ';
  if (!h.smoothed)
    return el(
      'span',
      { class: 'latest', title: `${label}: ${recorded.definition}` },
      el('span', { class: 'latest-where' }, where),
      el('span', { class: 'latest-value' }, format(h.raw)),
    );
  const smoothed = metricsFigureNames.smoothedLatest;
  return el(
    'span',
    { class: 'latest', title: `${label}: ${smoothed.definition} Beside it: ${recorded.definition}` },
    el('span', { class: 'latest-where' }, `${smoothed.label} `),
    el('span', { class: 'latest-value' }, format(h.value)),
    el('span', { class: 'latest-raw' }, `${where}${format(h.raw)}`),
  );
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function lineChart(spec: ChartSpec): HTMLElement {
  const width = Math.max(280, Math.round(spec.width));
  const drawn = spec.series.filter((s) => s.points.length > 0);
  const smoothed = drawn.map((s) =>
    smoothEma(
      s.points.map((p) => p.y),
      spec.smoothing,
    ),
  );
  const headline = chartHeadline(drawn[0]?.points ?? [], spec.smoothing);
  const head = el(
    'div',
    { class: 'chart-head' },
    el('h3', {}, spec.title),
    headline === undefined ? null : headlineNode(headline, drawn[0]?.label ?? '', spec.formatLatest),
  );
  const box = el('section', { class: 'chart', attrs: { id: `chart-${spec.id}`, 'data-points': String(drawn.reduce((n, s) => n + s.points.length, 0)) } }, head);
  if (drawn.length === 0) {
    box.append(el('p', { class: 'empty' }, spec.empty));
    return box;
  }
  const xs = drawn.flatMap((s) => s.points.map((p) => p.x));
  const ys = [...drawn.flatMap((s) => s.points.map((p) => p.y)), ...smoothed.flat()].filter((y) => Number.isFinite(y));
  let [xLo, xHi] = [Math.min(...xs), Math.max(...xs)];
  let [yLo, yHi] = [Math.min(...ys), Math.max(...ys)];
  if (xLo === xHi) [xLo, xHi] = [xLo - 1, xHi + 1];
  if (yLo === yHi) [yLo, yHi] = [yLo - (Math.abs(yLo) || 1) * 0.5, yHi + (Math.abs(yHi) || 1) * 0.5];
  const margin = (yHi - yLo) * 0.06;
  yLo -= margin;
  yHi += margin;
  if (spec.yRange !== undefined) [yLo, yHi] = spec.yRange;
  const px = (x: number) => pad.left + ((x - xLo) / (xHi - xLo)) * (width - pad.left - pad.right);
  const py = (y: number) => height - pad.bottom - ((y - yLo) / (yHi - yLo)) * (height - pad.top - pad.bottom);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': spec.title });
  for (const y of ticks(yLo, yHi)) {
    chart.append(svg('line', { class: 'grid', x1: pad.left, x2: width - pad.right, y1: py(y), y2: py(y) }));
    chart.append(svg('text', { class: 'tick', x: pad.left - 6, y: py(y) + 4, 'text-anchor': 'end' }, spec.formatY(y)));
  }
  for (const x of ticks(xLo, xHi, 5)) {
    chart.append(svg('text', { class: 'tick', x: px(x), y: height - pad.bottom + 16, 'text-anchor': 'middle' }, spec.formatX(x)));
  }
  chart.append(svg('line', { class: 'axis', x1: pad.left, x2: width - pad.right, y1: height - pad.bottom, y2: height - pad.bottom }));
  chart.append(svg('text', { class: 'axis-title', x: pad.left + (width - pad.left - pad.right) / 2, y: height - 8, 'text-anchor': 'middle' }, spec.xTitle));
  const yMid = pad.top + (height - pad.top - pad.bottom) / 2;
  chart.append(svg('text', { class: 'axis-title', x: 14, y: yMid, 'text-anchor': 'middle', transform: `rotate(-90 14 ${yMid})` }, spec.yTitle));
  drawn.forEach((series, i) => {
    const raw = series.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    const smooth = series.points.map((p, j) => `${px(p.x).toFixed(1)},${py(smoothed[i]?.[j] ?? p.y).toFixed(1)}`).join(' ');
    chart.append(svg('polyline', { class: `raw s${i % 4}`, points: raw }));
    chart.append(svg('polyline', { class: `smooth s${i % 4}`, points: smooth }));
    // A lone point has no line to show; a dot marks it.
    if (series.points.length === 1 && series.points[0] !== undefined)
      chart.append(svg('circle', { class: `dot s${i % 4}`, cx: px(series.points[0].x), cy: py(smoothed[i]?.[0] ?? series.points[0].y), r: 3.5 }));
  });
  const readout = el('div', { class: 'readout', attrs: { 'aria-live': 'polite', id: `readout-${spec.id}` } });
  const idle = () =>
    readout.replaceChildren(
      el(
        'span',
        { class: 'hint' },
        spec.onPick === undefined ? 'Point at the chart for the values.' : 'Point at the chart for the values; click a step for its episodes.',
      ),
    );
  idle();
  const guide = svg('line', { class: 'guide', x1: 0, x2: 0, y1: pad.top, y2: height - pad.bottom, visibility: 'hidden' });
  const marks = drawn.map((_, i) => svg('circle', { class: `mark s${i % 4}`, cx: 0, cy: 0, r: 3.5, visibility: 'hidden' }));
  chart.append(guide, ...marks);
  const xOfEvent = (event: MouseEvent): number => {
    const rect = chart.getBoundingClientRect();
    return xLo + (((event.clientX - rect.left) * (width / rect.width) - pad.left) / (width - pad.left - pad.right)) * (xHi - xLo);
  };
  chart.addEventListener('mousemove', (event) => {
    const x = xOfEvent(event);
    const nearest = xs.reduce((best, p) => (Math.abs(p - x) < Math.abs(best - x) ? p : best), xs[0] ?? x);
    guide.setAttribute('x1', String(px(nearest)));
    guide.setAttribute('x2', String(px(nearest)));
    guide.setAttribute('visibility', 'visible');
    const parts: Node[] = [];
    drawn.forEach((series, i) => {
      const j = series.points.findIndex((p) => p.x === nearest);
      const point = series.points[j];
      const mark = marks[i];
      if (point === undefined || mark === undefined) {
        mark?.setAttribute('visibility', 'hidden');
        return;
      }
      const smooth = smoothed[i]?.[j] ?? point.y;
      mark.setAttribute('cx', String(px(point.x)));
      mark.setAttribute('cy', String(py(point.y)));
      mark.setAttribute('visibility', 'visible');
      if (parts.length === 0) parts.push(el('span', { class: 'where' }, whereOf(point, spec.formatX)));
      parts.push(
        el(
          'span',
          { class: `key s${i % 4}` },
          `${series.label} ${spec.formatLatest(point.y)}`,
          spec.smoothing > 0 ? el('span', { class: 'muted' }, ` (smoothed ${spec.formatLatest(smooth)})`) : '',
        ),
      );
    });
    readout.replaceChildren(...parts);
  });
  chart.addEventListener('mouseleave', () => {
    guide.setAttribute('visibility', 'hidden');
    marks.forEach((m) => m.setAttribute('visibility', 'hidden'));
    idle();
  });
  const pick = spec.onPick;
  if (pick !== undefined) {
    chart.classList.add('pickable');
    chart.addEventListener('click', (event) => {
      const x = xOfEvent(event);
      const nearest = xs.reduce((best, p) => (Math.abs(p - x) < Math.abs(best - x) ? p : best), xs[0] ?? x);
      pick(nearest);
    });
  }
  box.append(chart);
  if (drawn.length > 1) box.append(el('div', { class: 'legend' }, ...drawn.map((s, i) => el('span', { class: `key s${i % 4}` }, s.label))));
  if (spec.note !== undefined) box.append(el('p', { class: 'chart-note', attrs: { id: `note-${spec.id}` } }, spec.note));
  box.append(readout);
  return box;
}
