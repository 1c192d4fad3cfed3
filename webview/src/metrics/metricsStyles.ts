/** The metrics page's styles, adopted as a constructable style sheet (see ../styles.ts for why). */
import { adoptStyles } from '../styles.js';

const css = `
#root { padding: 0 20px 24px; max-width: 1500px; }
header.top h1 { margin: 16px 0 2px; }
.summary { color: var(--vscode-descriptionForeground); margin: 0 0 10px; }
.state { font-weight: 600; text-transform: capitalize; }
.state.running { color: var(--vscode-charts-blue); }
.state.finished { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.state.failed { color: var(--vscode-testing-iconFailed, var(--vscode-charts-red)); }
.state.interrupted { color: var(--vscode-charts-yellow); }
.summary .suspect { color: var(--vscode-editorWarning-foreground); }
.controls { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; padding: 8px 0 12px; border-bottom: 1px solid var(--vscode-panel-border, #8884); margin-bottom: 14px; }
.controls .label { color: var(--vscode-descriptionForeground); }
.controls .segmented { display: inline-flex; gap: 4px; }
.controls .spacer { flex: 1; }
.controls .value { font-variant-numeric: tabular-nums; min-width: 2.5em; }
.controls input[type=range] { width: 160px; accent-color: var(--vscode-button-background); }
.charts { display: grid; grid-template-columns: 1fr; gap: 16px; }
@media (min-width: 940px) { .charts { grid-template-columns: 1fr 1fr; } }
.chart { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 8px 12px 6px; background: var(--vscode-editorWidget-background, transparent); }
.chart-head { display: flex; align-items: baseline; justify-content: space-between; gap: 8px; }
.chart h3 { margin: 2px 0 4px; font-size: 1em; }
.chart .latest { font-size: 1.25em; font-weight: 600; font-variant-numeric: tabular-nums; }
.chart svg { display: block; max-width: 100%; }
.chart .empty { color: var(--vscode-descriptionForeground); font-style: italic; margin: 40px 0; text-align: center; }
.chart line.grid { stroke: var(--vscode-panel-border, #8883); stroke-width: 1; }
.chart line.axis { stroke: var(--vscode-descriptionForeground); stroke-width: 1; }
.chart text.tick { fill: var(--vscode-descriptionForeground); font-size: 11px; font-family: var(--vscode-font-family); }
.chart polyline { fill: none; stroke-linejoin: round; stroke-linecap: round; }
/* The recorded values stay readable beside the smoothed line in every theme: a thinner line at half strength, stronger where the theme asks for contrast. */
.chart polyline.raw { stroke-width: 1.4; opacity: 0.6; }
body.vscode-high-contrast .chart polyline.raw, body.vscode-high-contrast-light .chart polyline.raw { opacity: 0.85; stroke-dasharray: 4 2; }
.chart polyline.smooth { stroke-width: 2.2; }
.chart .s0 { stroke: var(--vscode-charts-blue); fill: var(--vscode-charts-blue); color: var(--vscode-charts-blue); }
.chart .s1 { stroke: var(--vscode-charts-orange); fill: var(--vscode-charts-orange); color: var(--vscode-charts-orange); }
.chart .s2 { stroke: var(--vscode-charts-green); fill: var(--vscode-charts-green); color: var(--vscode-charts-green); }
.chart .s3 { stroke: var(--vscode-charts-purple); fill: var(--vscode-charts-purple); color: var(--vscode-charts-purple); }
.chart polyline.s0, .chart polyline.s1, .chart polyline.s2, .chart polyline.s3 { fill: none; }
.chart text.axis-title { fill: var(--vscode-descriptionForeground); font-size: 11px; font-family: var(--vscode-font-family); font-style: italic; }
.chart line.guide { stroke: var(--vscode-editorCursor-foreground, var(--vscode-foreground)); stroke-width: 1; stroke-dasharray: 3 3; opacity: 0.7; }
.chart circle.mark { stroke: var(--vscode-editor-background); stroke-width: 1.5; }
.chart .latest { text-align: right; white-space: nowrap; }
.chart .latest-raw { display: block; font-size: 0.72em; font-weight: normal; color: var(--vscode-descriptionForeground); }
.chart .latest-where { font-size: 0.7em; font-weight: normal; color: var(--vscode-descriptionForeground); margin-right: 4px; }
.readout { display: flex; flex-wrap: wrap; gap: 4px 14px; min-height: 1.5em; font-size: 0.9em; padding: 2px 0 2px 70px; font-variant-numeric: tabular-nums; }
.readout .where { font-weight: 600; }
.readout .hint, .readout .muted { color: var(--vscode-descriptionForeground); }
.readout .key::before { content: ''; display: inline-block; width: 10px; height: 3px; margin-right: 5px; vertical-align: middle; background: currentColor; }
.readout .key { color: var(--vscode-foreground); }
.readout .key.s0::before { background: var(--vscode-charts-blue); }
.readout .key.s1::before { background: var(--vscode-charts-orange); }
.readout .key.s2::before { background: var(--vscode-charts-green); }
.readout .key.s3::before { background: var(--vscode-charts-purple); }
.chart-note { margin: 0 0 4px 70px; font-size: 0.9em; color: var(--vscode-descriptionForeground); }
.legend { display: flex; gap: 14px; font-size: 0.9em; color: var(--vscode-descriptionForeground); padding: 2px 0 4px 70px; }
.legend .key::before { content: ''; display: inline-block; width: 14px; height: 3px; margin-right: 5px; vertical-align: middle; background: currentColor; }
.legend .key { color: var(--vscode-descriptionForeground); }
.legend .key.s0::before { background: var(--vscode-charts-blue); }
.legend .key.s1::before { background: var(--vscode-charts-orange); }
.legend .key.s2::before { background: var(--vscode-charts-green); }
.legend .key.s3::before { background: var(--vscode-charts-purple); }
`;

export function adoptMetricsStyles(): void {
  adoptStyles();
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
