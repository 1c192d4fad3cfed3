/**
 * The page's own styles, adopted as a constructable style sheet: the page's Content Security Policy
 * allows no inline `<style>`, and style sheets built through the CSS object model are not subject
 * to it. Colours come from VS Code's `--vscode-*` theme variables, so the page follows the theme.
 */
const css = `
body {
  color: var(--vscode-foreground);
  background: var(--vscode-editor-background);
  font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size);
  padding: 0 16px 24px;
}
h1 { font-size: 1.3em; font-weight: 600; margin: 16px 0 4px; }
h2 { font-size: 1.1em; font-weight: 600; margin: 20px 0 4px; border-bottom: 1px solid var(--vscode-panel-border, transparent); padding-bottom: 2px; }
h3 { font-size: 1em; font-weight: 600; margin: 14px 0 4px; }
code { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
table.data { width: 100%; border-collapse: collapse; table-layout: fixed; }
table.data th { text-align: left; font-weight: 600; padding: 4px 6px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); }
table.data td { padding: 3px 6px; vertical-align: top; overflow-wrap: anywhere; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
table.data tbody tr:nth-child(even) { background: var(--vscode-list-hoverBackground, transparent); }
.hint { color: var(--vscode-descriptionForeground); margin: 2px 0 8px; }
.banner { border-left: 3px solid var(--vscode-editorError-foreground); background: var(--vscode-inputValidation-errorBackground, transparent); padding: 8px 12px; margin: 12px 0; }
.banner.info { border-left-color: var(--vscode-editorInfo-foreground); background: transparent; }
.counts vscode-badge { margin-right: 6px; }
.source.default { color: var(--vscode-descriptionForeground); }
.source.invalid { color: var(--vscode-editorWarning-foreground); }
.overridden { text-decoration: line-through; }
button.link { background: none; border: none; padding: 0; color: var(--vscode-textLink-foreground); cursor: pointer; font: inherit; text-align: left; }
button.link:hover { text-decoration: underline; }
button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
.gpu-grid { display: flex; flex-direction: column; gap: 6px; margin: 8px 0; }
.node { display: flex; flex-wrap: wrap; align-items: stretch; gap: 6px; }
.node-label { width: 4.5em; align-self: center; color: var(--vscode-descriptionForeground); }
.gpu { min-width: 6.5em; padding: 4px 8px; border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, #8884)); border-radius: 3px; display: flex; flex-direction: column; }
.gpu-index { font-weight: 600; }
.gpu-roles { color: var(--vscode-descriptionForeground); font-size: 0.9em; }
.gpu.planner { border-color: var(--vscode-charts-blue); }
.gpu.cgm { border-color: var(--vscode-charts-purple); }
.gpu.shared, .gpu.trainer { border-color: var(--vscode-charts-orange); background: color-mix(in srgb, var(--vscode-charts-orange) 15%, transparent); }
.more { align-self: center; color: var(--vscode-descriptionForeground); }
.facts { margin: 4px 0; padding-left: 18px; }
.facts li { margin: 2px 0; }
.shared-note { color: var(--vscode-charts-orange); }
.ok strong { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.short, .short strong { color: var(--vscode-errorForeground); }
ul.findings { list-style: none; padding: 0; margin: 0; }
li.finding-item { margin: 0 0 6px; border-left: 3px solid transparent; }
li.finding-item.error { border-left-color: var(--vscode-editorError-foreground); }
li.finding-item.warning { border-left-color: var(--vscode-editorWarning-foreground); }
li.finding-item.info { border-left-color: var(--vscode-editorInfo-foreground); }
button.finding { display: grid; grid-template-columns: 4.5em minmax(0, 1fr); gap: 2px 8px; width: 100%; text-align: left; padding: 6px 8px; font: inherit; color: inherit; background: transparent; border: none; cursor: pointer; }
button.finding:hover { background: var(--vscode-list-hoverBackground); }
.finding .severity { font-weight: 600; }
.finding .message { overflow-wrap: anywhere; }
.finding.error .severity { color: var(--vscode-editorError-foreground); }
.finding.warning .severity { color: var(--vscode-editorWarning-foreground); }
.finding.info .severity { color: var(--vscode-editorInfo-foreground); }
.finding .where { grid-column: 2; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
/* The fixes line up under the message, beside the finding they fix. */
.fixes { display: flex; flex-wrap: wrap; gap: 4px 6px; padding: 0 8px 6px calc(4.5em + 16px); }
button.fix { font: inherit; font-size: 0.95em; text-align: left; cursor: pointer; padding: 2px 8px; border-radius: 2px;
  color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground);
  border: 1px solid var(--vscode-button-border, var(--vscode-contrastBorder, transparent)); }
button.fix:hover { background: var(--vscode-button-secondaryHoverBackground); }
button.fix.preferred { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.fix.preferred:hover { background: var(--vscode-button-hoverBackground); }
button.fix::before { content: 'Fix: '; font-weight: 600; }

/* The page: each column is a container, so the settings' layout follows the column's width. */
/* VS Code's own webview style puts code on a preformatted-text background; in high contrast that
   background is light under light text, so our code is plain text in the editor font instead. */
header .file code, h3.section-name code, .kv code { background: none; padding: 0; border-radius: 0; color: inherit; }
header .file { margin: 0 0 4px; overflow-wrap: anywhere; color: var(--vscode-descriptionForeground); }
.columns { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.column { flex: 1 1 400px; min-width: 0; max-width: 900px; container: overview / inline-size; }

/* Settings as two columns, key and value, rows aligned across a section; one column when narrow. */
h3.section-name { margin: 16px 0 2px; }
h3.section-name code { font-weight: 600; }
dl.kv, .kv-groups { display: grid; grid-template-columns: fit-content(45%) minmax(0, 1fr); column-gap: 16px; margin: 0; }
/* The sections share the key column, so every value starts at the same place down the page. */
.kv-groups > .kv-group, .kv-groups dl.kv { display: grid; grid-column: 1 / -1; grid-template-columns: subgrid; }
.kv-group > h3 { grid-column: 1 / -1; }
.kv-row { display: grid; grid-column: 1 / -1; grid-template-columns: subgrid; padding: 4px 4px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, #8883)); }
.kv-row:hover { background: var(--vscode-list-hoverBackground); }
.kv-row dt { margin: 0; text-align: left; min-width: 0; overflow-wrap: anywhere; }
.kv-row dd { margin: 0; min-width: 0; }
.kv-row button.key { color: var(--vscode-textLink-foreground); }
.kv-row span.key { color: var(--vscode-descriptionForeground); }
.kv-row .value { display: block; overflow-wrap: anywhere; }
.kv-row .meta { display: flex; flex-wrap: wrap; gap: 0 10px; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
.kv-row .maps-to { overflow-wrap: anywhere; }
.kv-row .maps-to code { font-size: 0.95em; }
.source.file { color: var(--vscode-foreground); }
.source.overridden-note { color: var(--vscode-editorWarning-foreground); }
@container overview (max-width: 360px) {
  dl.kv, .kv-groups { grid-template-columns: minmax(0, 1fr); }
  .kv-row dd { padding-left: 12px; }
}
`;

export function adoptStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
