/**
 * A line chart as SVG: each series drawn raw (faint) and smoothed, with a light grid, a few ticks
 * on each axis and the latest smoothed value in the title. Text goes in as text nodes; colours are
 * classes of the page's style sheet (the Content Security Policy allows no inline style).
 */
import { el } from '../dom.js';
import { smoothEma } from './ema.js';
import { ticks } from './ticks.js';

const svgNs = 'http://www.w3.org/2000/svg';
const height = 220;
const pad = { left: 56, right: 16, top: 12, bottom: 30 };

export interface ChartSeries {
  readonly label: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
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
  const smoothed = drawn.map((s) => smoothEma(s.points.map((p) => p.y), spec.smoothing));
  const first = smoothed[0];
  const latest = first === undefined ? undefined : first[first.length - 1];
  const head = el('div', { class: 'chart-head' }, el('h3', {}, spec.title), latest === undefined ? null : el('span', { class: 'latest', title: 'Latest smoothed value' }, spec.formatLatest(latest)));
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
  drawn.forEach((series, i) => {
    const raw = series.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    const smooth = series.points.map((p, j) => `${px(p.x).toFixed(1)},${py(smoothed[i]?.[j] ?? p.y).toFixed(1)}`).join(' ');
    chart.append(svg('polyline', { class: `raw s${i % 4}`, points: raw }));
    chart.append(svg('polyline', { class: `smooth s${i % 4}`, points: smooth }));
    // A lone point has no line to show; a dot marks it.
    if (series.points.length === 1 && series.points[0] !== undefined) chart.append(svg('circle', { class: `dot s${i % 4}`, cx: px(series.points[0].x), cy: py(smoothed[i]?.[0] ?? series.points[0].y), r: 3.5 }));
  });
  const pick = spec.onPick;
  if (pick !== undefined) {
    chart.classList.add('pickable');
    chart.addEventListener('click', (event) => {
      const rect = chart.getBoundingClientRect();
      const x = xLo + (((event.clientX - rect.left) * (width / rect.width) - pad.left) / (width - pad.left - pad.right)) * (xHi - xLo);
      const nearest = xs.reduce((best, p) => (Math.abs(p - x) < Math.abs(best - x) ? p : best), xs[0] ?? x);
      pick(nearest);
    });
  }
  box.append(chart);
  if (drawn.length > 1) box.append(el('div', { class: 'legend' }, ...drawn.map((s, i) => el('span', { class: `key s${i % 4}` }, s.label))));
  return box;
}
