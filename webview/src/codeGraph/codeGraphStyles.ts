/**
 * The code-graph pane's styles, adopted as constructable style sheets (the pages' Content Security
 * Policy allows no inline style), every rule under `.code-graph` so the pane can sit in the
 * trajectory viewer's page without touching its styles; the panel's page adds its own page rules.
 * Colours come from VS Code's theme variables, so light, dark and high-contrast themes all work;
 * every state also has a shape or a mark, never colour alone.
 */
const paneCss = `
.code-graph { display: flex; flex-direction: column; min-height: 0; flex: 1; }
.code-graph .muted { color: var(--vscode-descriptionForeground); }
.code-graph header.top { padding: 10px 16px 6px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.code-graph header.top h1 { font-size: 1.2em; font-weight: 600; margin: 0 0 2px; }
.code-graph header.top p { margin: 2px 0; }
.code-graph .recall { display: flex; gap: 18px; flex-wrap: wrap; }
.code-graph .recall b { font-variant-numeric: tabular-nums; }
.code-graph .banner { border-left: 3px solid var(--vscode-editorInfo-foreground); padding: 4px 10px; margin: 6px 0 2px; }
.code-graph .banner.warning { border-left-color: var(--vscode-editorWarning-foreground); }
.code-graph .stepper { padding: 6px 16px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.code-graph .stepper .row { display: flex; align-items: center; gap: 8px; }
.code-graph .stepper .row + .row { margin-top: 4px; flex-wrap: wrap; }
.code-graph .stepper input[type=range] { flex: 1; min-width: 160px; accent-color: var(--vscode-button-background); }
.code-graph .stepper .now { flex: 1; min-width: 12em; overflow-wrap: anywhere; }
.code-graph .stepper .zoom { display: inline-flex; gap: 4px; }
.code-graph .stepper .distance { font-weight: 600; font-variant-numeric: tabular-nums; }
.code-graph .distance.unknown { color: var(--vscode-descriptionForeground); font-style: italic; font-weight: 400; }
.code-graph button.plain { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); border-radius: 2px; padding: 1px 8px; cursor: pointer; }
.code-graph button.plain:hover { background: var(--vscode-button-secondaryHoverBackground); }
.code-graph button.plain:focus-visible, .code-graph g.node:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
.code-graph .legend { display: flex; gap: 14px; flex-wrap: wrap; align-items: center; padding: 4px 16px; color: var(--vscode-descriptionForeground); font-size: 0.92em; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.code-graph .legend .mark { font-weight: 700; color: var(--vscode-foreground); margin-right: 3px; }
.code-graph .legend .swatch { display: inline-block; width: 22px; height: 11px; vertical-align: middle; margin-right: 4px; border: 1.5px solid var(--vscode-foreground); border-radius: 2px; }
.code-graph .legend .swatch.unseen { border-style: dashed; opacity: 0.55; }
.code-graph .legend .swatch.read { border-color: var(--vscode-charts-blue); border-width: 2.5px; }
.code-graph .legend .swatch.edited { border-color: var(--vscode-charts-orange); border-width: 2.5px; background: color-mix(in srgb, var(--vscode-charts-orange) 22%, transparent); }
.code-graph .legend .swatch.gold { border-color: var(--vscode-charts-yellow); border-width: 3px; border-style: double; }
.code-graph .info { padding: 3px 16px; min-height: 1.4em; color: var(--vscode-descriptionForeground); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
.code-graph .canvas { flex: 1; overflow: auto; min-height: 0; }
.code-graph svg.graph { display: block; }
.code-graph svg.graph text { font-family: var(--vscode-font-family); font-size: 12px; fill: var(--vscode-foreground); dominant-baseline: central; }
.code-graph svg.graph text.kind { font-size: 10px; font-weight: 700; fill: var(--vscode-editor-background); }
.code-graph svg.graph circle.kind { fill: var(--vscode-descriptionForeground); }
.code-graph svg.graph text.marks { font-weight: 700; }
.code-graph svg.graph tspan.hidden-count { fill: var(--vscode-descriptionForeground); font-style: italic; }
.code-graph g.node { cursor: pointer; }
.code-graph g.node rect.box { fill: var(--vscode-editor-background); stroke: var(--vscode-foreground); stroke-width: 1.2; }
.code-graph g.node.unseen { opacity: 0.45; }
.code-graph g.node.unseen rect.box { stroke-dasharray: 4 3; }
.code-graph g.node.new rect.box { fill: var(--vscode-list-inactiveSelectionBackground, var(--vscode-list-hoverBackground)); }
.code-graph g.node.read rect.box { stroke: var(--vscode-charts-blue); stroke-width: 2.5; }
.code-graph g.node.edited rect.box { stroke: var(--vscode-charts-orange); stroke-width: 2.5; fill: color-mix(in srgb, var(--vscode-charts-orange) 18%, var(--vscode-editor-background)); }
.code-graph g.node rect.gold { fill: none; stroke: var(--vscode-charts-yellow); stroke-width: 3; }
.code-graph g.node.context text.label { font-style: italic; }
.code-graph g.node:hover rect.box { fill: var(--vscode-list-hoverBackground); }
.code-graph path.edge { fill: none; stroke: var(--vscode-descriptionForeground); stroke-width: 1.1; opacity: 0.75; }
.code-graph path.edge.walked { stroke-dasharray: 5 3; stroke: var(--vscode-charts-purple); opacity: 0.5; }
.code-graph path.edge.walked:hover { opacity: 1; stroke-width: 2; }
.code-graph path.edge.unseen { opacity: 0.25; }
.code-graph .empty { padding: 24px 16px; color: var(--vscode-descriptionForeground); }
`;

/** The panel's page: the pane fills it. */
const pageCss = `
html, body { height: 100%; }
body { margin: 0; padding: 0; color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
#root { display: flex; flex-direction: column; height: 100vh; }
`;

function adopt(css: string): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** The pane's rules, for any page that shows one. */
export function adoptCodeGraphPaneStyles(): void {
  adopt(paneCss);
}

/** The panel's page: its own rules and the pane's. */
export function adoptCodeGraphStyles(): void {
  adopt(pageCss);
  adopt(paneCss);
}
