/**
 * The code-graph page's styles, adopted as a constructable style sheet (the page's Content Security
 * Policy allows no inline style). Colours come from VS Code's theme variables, so light, dark and
 * high-contrast themes all work; every state also has a shape or a mark, never colour alone.
 */
const css = `
html, body { height: 100%; }
body { margin: 0; padding: 0; color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
#root { display: flex; flex-direction: column; height: 100vh; }
.muted { color: var(--vscode-descriptionForeground); }
header.top { padding: 10px 16px 6px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
header.top h1 { font-size: 1.2em; font-weight: 600; margin: 0 0 2px; }
header.top p { margin: 2px 0; }
.recall { display: flex; gap: 18px; flex-wrap: wrap; }
.recall b { font-variant-numeric: tabular-nums; }
.banner { border-left: 3px solid var(--vscode-editorInfo-foreground); padding: 4px 10px; margin: 6px 0 2px; }
.banner.warning { border-left-color: var(--vscode-editorWarning-foreground); }
.stepper { padding: 6px 16px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.stepper .row { display: flex; align-items: center; gap: 8px; }
.stepper .row + .row { margin-top: 4px; flex-wrap: wrap; }
.stepper input[type=range] { flex: 1; min-width: 160px; accent-color: var(--vscode-button-background); }
.stepper .now { flex: 1; min-width: 12em; overflow-wrap: anywhere; }
.stepper .zoom { display: inline-flex; gap: 4px; }
.stepper .distance { font-weight: 600; font-variant-numeric: tabular-nums; }
.distance.unknown { color: var(--vscode-descriptionForeground); font-style: italic; font-weight: 400; }
button.plain { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); border-radius: 2px; padding: 1px 8px; cursor: pointer; }
button.plain:hover { background: var(--vscode-button-secondaryHoverBackground); }
button.plain:focus-visible, g.node:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; align-items: center; padding: 4px 16px; color: var(--vscode-descriptionForeground); font-size: 0.92em; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.legend .mark { font-weight: 700; color: var(--vscode-foreground); margin-right: 3px; }
.legend .swatch { display: inline-block; width: 22px; height: 11px; vertical-align: middle; margin-right: 4px; border: 1.5px solid var(--vscode-foreground); border-radius: 2px; }
.legend .swatch.unseen { border-style: dashed; opacity: 0.55; }
.legend .swatch.read { border-color: var(--vscode-charts-blue); border-width: 2.5px; }
.legend .swatch.edited { border-color: var(--vscode-charts-orange); border-width: 2.5px; background: color-mix(in srgb, var(--vscode-charts-orange) 22%, transparent); }
.legend .swatch.gold { border-color: var(--vscode-charts-yellow); border-width: 3px; border-style: double; }
.info { padding: 3px 16px; min-height: 1.4em; color: var(--vscode-descriptionForeground); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.canvas { flex: 1; overflow: auto; min-height: 0; }
svg.graph { display: block; }
svg.graph text { font-family: var(--vscode-font-family); font-size: 12px; fill: var(--vscode-foreground); dominant-baseline: central; }
svg.graph text.kind { font-size: 10px; font-weight: 700; fill: var(--vscode-editor-background); }
svg.graph circle.kind { fill: var(--vscode-descriptionForeground); }
svg.graph text.marks { font-weight: 700; }
svg.graph tspan.hidden-count { fill: var(--vscode-descriptionForeground); font-style: italic; }
g.node { cursor: pointer; }
g.node rect.box { fill: var(--vscode-editor-background); stroke: var(--vscode-foreground); stroke-width: 1.2; }
g.node.unseen { opacity: 0.45; }
g.node.unseen rect.box { stroke-dasharray: 4 3; }
g.node.new rect.box { fill: var(--vscode-list-inactiveSelectionBackground, var(--vscode-list-hoverBackground)); }
g.node.read rect.box { stroke: var(--vscode-charts-blue); stroke-width: 2.5; }
g.node.edited rect.box { stroke: var(--vscode-charts-orange); stroke-width: 2.5; fill: color-mix(in srgb, var(--vscode-charts-orange) 18%, var(--vscode-editor-background)); }
g.node rect.gold { fill: none; stroke: var(--vscode-charts-yellow); stroke-width: 3; }
g.node.context text.label { font-style: italic; }
g.node:hover rect.box { fill: var(--vscode-list-hoverBackground); }
path.edge { fill: none; stroke: var(--vscode-descriptionForeground); stroke-width: 1.1; opacity: 0.75; }
path.edge.walked { stroke-dasharray: 5 3; stroke: var(--vscode-charts-purple); opacity: 0.5; }
path.edge.walked:hover { opacity: 1; stroke-width: 2; }
path.edge.unseen { opacity: 0.25; }
.empty { padding: 24px 16px; color: var(--vscode-descriptionForeground); }
`;

export function adoptCodeGraphStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
