/**
 * The trajectory viewer's styles, adopted as a constructable style sheet (the page's Content
 * Security Policy allows no inline style). Colours come from VS Code's theme variables.
 */
const css = `
html, body { height: 100%; }
body {
  margin: 0; padding: 0;
  color: var(--vscode-foreground);
  background: var(--vscode-editor-background);
  font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size);
}
#root { display: flex; flex-direction: column; height: 100vh; }
.muted, .hint { color: var(--vscode-descriptionForeground); }
.hint { margin: 4px 0; }
code, pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
mark { background: var(--vscode-editor-findMatchHighlightBackground); color: inherit; outline: 1px solid var(--vscode-editor-findMatchBorder, transparent); }
a.ref { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
a.ref:hover { text-decoration: underline; }
a.ref:focus-visible, button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
.episode-header { padding: 10px 16px 8px; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
.title-row { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
.title-row h1 { font-size: 1.25em; font-weight: 600; margin: 0; }
.toolbar { margin-left: auto; display: flex; gap: 6px; flex-wrap: wrap; }
.state { padding: 1px 8px; border-radius: 10px; font-size: 0.9em; border: 1px solid currentColor; }
.state.resolved { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.state.unresolved { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.state.running { color: var(--vscode-charts-blue); }
.state.format { color: var(--vscode-descriptionForeground); }
/* What another tool's format does not record: information about the file, said quietly. */
.format-note { margin: 4px 0; color: var(--vscode-descriptionForeground); font-size: 0.95em; }
.format-note summary { cursor: pointer; }
.format-note ul { margin: 4px 0 2px; padding-left: 20px; }
.facts-line { margin: 4px 0; color: var(--vscode-descriptionForeground); }
.sample-row { display: flex; align-items: center; gap: 8px; margin: 6px 0 2px; }
.sample-row select { min-width: 16em; max-width: 100%; padding: 3px 6px; font: inherit; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, var(--vscode-contrastBorder, transparent)); border-radius: 2px; }
.sample-row select:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
details.issue summary { cursor: pointer; }
.issue-body { padding: 6px 10px; border-left: 2px solid var(--vscode-panel-border, var(--vscode-descriptionForeground)); }
.banner { border-left: 3px solid var(--vscode-editorInfo-foreground); padding: 6px 10px; margin: 6px 0; }
.banner.error { border-left-color: var(--vscode-editorError-foreground); background: var(--vscode-inputValidation-errorBackground, transparent); }
.banner.warning { border-left-color: var(--vscode-editorWarning-foreground); background: var(--vscode-inputValidation-warningBackground, transparent); }
.body { flex: 1; display: grid; grid-template-columns: minmax(240px, 42%) 5px minmax(0, 1fr); min-height: 0; }
.side { display: flex; flex-direction: column; min-height: 0; min-width: 0; }
/* The handle between the list and the detail (splitter.ts): a line that thickens into VS Code's sash colour under the pointer or the keyboard. */
.splitter { cursor: col-resize; touch-action: none; background: linear-gradient(to right, transparent 2px, var(--vscode-panel-border, #8884) 2px, var(--vscode-panel-border, #8884) 3px, transparent 3px); outline: none; }
.splitter:hover, .splitter.dragging, .splitter:focus-visible { background: var(--vscode-sash-hoverBorder, var(--vscode-focusBorder)); }
.filters { display: flex; flex-wrap: wrap; gap: 4px; padding: 8px 10px 4px; }
.chip { font: inherit; font-size: 0.9em; padding: 1px 8px; border-radius: 10px; cursor: pointer; border: 1px solid var(--vscode-button-border, var(--vscode-panel-border, #8884)); background: transparent; color: var(--vscode-descriptionForeground); }
.chip[aria-pressed="true"] { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
.search-row { display: flex; gap: 4px; padding: 4px 10px; }
input.search { flex: 1; min-width: 0; font: inherit; padding: 3px 6px; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
input.search:focus { outline: 1px solid var(--vscode-focusBorder); }
button.icon { font: inherit; background: transparent; color: var(--vscode-foreground); border: 1px solid transparent; cursor: pointer; padding: 0 6px; }
button.icon:hover { background: var(--vscode-toolbar-hoverBackground); }
.search-status { padding: 0 10px 4px; min-height: 1.2em; font-size: 0.9em; }
.step-list { flex: 1; overflow-y: auto; outline: none; }
.step { display: grid; grid-template-columns: 2.6em 1.2em minmax(0, 1fr) 3.8em 4em; gap: 4px; align-items: baseline; padding: 3px 10px; cursor: pointer; border-left: 2px solid transparent; }
.step[hidden] { display: none; }
.step:hover { background: var(--vscode-list-hoverBackground); }
.step.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
.step.match { border-left-color: var(--vscode-editor-findMatchBorder, var(--vscode-charts-yellow)); }
.step .num { text-align: right; color: var(--vscode-descriptionForeground); font-variant-numeric: tabular-nums; }
.step.selected .num { color: inherit; }
.step .summary { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.step .summary-cell { display: flex; align-items: baseline; min-width: 0; }
.step .summary-cell .summary { flex: 0 1 auto; min-width: 0; }
.step .summary-cell .marker { flex: none; }
.step .reward, .step .duration { text-align: right; font-variant-numeric: tabular-nums; }
.step .duration { color: var(--vscode-descriptionForeground); }
.step.selected .duration { color: inherit; }
.kind-find .glyph, .kind-expand .glyph, .kind-read .glyph { color: var(--vscode-charts-blue); }
.kind-memory .glyph { color: var(--vscode-charts-purple); }
.kind-repair .glyph { color: var(--vscode-charts-orange); }
.kind-submit .glyph { color: var(--vscode-charts-green); }
.kind-invalid .glyph { color: var(--vscode-errorForeground); }
.reward.pos { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.reward.neg { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.reward.none { color: var(--vscode-descriptionForeground); }
.detail .origin { font-size: 0.8em; font-weight: normal; }
.tool-call, .result { margin: 6px 0 10px; }
.call-head { margin-bottom: 2px; }
code.call-name { font-weight: 600; }
ul.media { margin: 4px 0; padding-left: 20px; }
details.extra { margin: 16px 0 4px; }
details.extra summary { cursor: pointer; color: var(--vscode-descriptionForeground); }
.kind-agent .glyph { color: var(--vscode-charts-blue); }
.kind-system .glyph, .kind-user .glyph { color: var(--vscode-descriptionForeground); }
.marker { margin-left: 6px; font-size: 0.8em; padding: 0 5px; border-radius: 8px; border: 1px solid currentColor; }
.marker.error { color: var(--vscode-errorForeground); }
.marker.warning { color: var(--vscode-editorWarning-foreground); }
.marker.replayed { color: var(--vscode-descriptionForeground); }
.marker.suspect { color: var(--vscode-editorWarning-foreground); font-weight: 600; white-space: nowrap; }
.suspected-hacks { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 4px 0 4px 10px; margin: 10px 0; }
.suspected-hacks h3 { margin: 0 0 4px; font-size: 1em; color: var(--vscode-editorWarning-foreground); }
.suspected-hacks td.where { white-space: nowrap; }
.suspected-hacks td.evidence code { overflow-wrap: anywhere; white-space: pre-wrap; }
.suspected-hacks .hack-kind { white-space: nowrap; }
.suspected-hacks table.nodes.hacks td.evidence { white-space: normal; overflow-wrap: anywhere; width: 100%; }
.detail-slot { overflow-y: auto; padding: 0 18px 24px; min-width: 0; }
.detail h2 { font-size: 1.15em; margin: 12px 0 2px; }
.step-title-row { margin-top: 12px; }
.step-title-row h2 { margin: 0; }
.detail h3 { font-size: 1em; font-weight: 600; margin: 16px 0 4px; padding-bottom: 2px; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
.thought { font-style: italic; margin: 4px 0; }
table.params, table.nodes, table.candidates { border-collapse: collapse; width: 100%; }
table.params th { text-align: left; width: 8em; vertical-align: top; padding: 2px 8px 2px 0; color: var(--vscode-descriptionForeground); font-weight: normal; }
table.params td { padding: 2px 0; overflow-wrap: anywhere; }
table.nodes th, table.candidates th { text-align: left; font-weight: 600; padding: 3px 6px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); }
table.nodes td, table.candidates td { padding: 3px 6px; vertical-align: top; overflow-wrap: anywhere; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
table.nodes td:nth-child(2), table.nodes td:nth-child(3) { white-space: nowrap; overflow-wrap: normal; }
table.nodes td:first-child code { overflow-wrap: anywhere; }
tr.kept td { background: color-mix(in srgb, var(--vscode-charts-green) 12%, transparent); }
td.buttons { white-space: nowrap; text-align: right; }
td.buttons vscode-button { margin-left: 4px; }
.ok { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.bad { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.snippet { margin: 6px 0 10px; }
.snippet-head { margin-bottom: 2px; }
pre.code, pre.observation, pre.reply { background: var(--vscode-textCodeBlock-background, transparent); padding: 6px 8px; border-radius: 3px; }
.ln { color: var(--vscode-editorLineNumber-foreground); user-select: none; }
details.think summary { cursor: pointer; color: var(--vscode-descriptionForeground); }
ul.memory-nodes, ul.notes, ul.failing { margin: 4px 0; padding-left: 20px; }
/* A patch drawn as a diff, in the colours of VS Code's diff editor (high-contrast themes draw borders instead of fills). */
.candidate-patch { margin: 2px 0 10px; }
.candidate-title { margin: 2px 0 4px; font-weight: 600; }
details.candidate-diff { margin: 6px 0; }
details.candidate-diff summary { cursor: pointer; }
.patch-file { margin: 4px 0 8px; border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, #8884)); border-radius: 3px; overflow: hidden; }
.patch-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; padding: 4px 8px; background: var(--vscode-editorGroupHeader-tabsBackground, var(--vscode-sideBar-background, transparent)); border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, #8884)); }
.patch-path { font-family: var(--vscode-editor-font-family); font-weight: 600; overflow-wrap: anywhere; }
.patch-status { color: var(--vscode-descriptionForeground); font-size: 0.9em; font-variant-numeric: tabular-nums; }
.patch-body { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); overflow-x: auto; background: var(--vscode-editor-background); }
.patch-row { display: grid; grid-template-columns: 3.2em 3.2em 1.4em minmax(0, 1fr); line-height: 1.45; }
.patch-row > span { padding: 0 4px; }
.patch-row .ln-old, .patch-row .ln-new { text-align: right; color: var(--vscode-editorLineNumber-foreground); user-select: none; font-variant-numeric: tabular-nums; }
.patch-row .sign { text-align: center; user-select: none; }
.patch-row .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.patch-row.hunk { color: var(--vscode-descriptionForeground); background: var(--vscode-diffEditor-unchangedRegionBackground, var(--vscode-textCodeBlock-background, transparent)); }
.patch-row.add { background: var(--vscode-diffEditor-insertedLineBackground, var(--vscode-diffEditor-insertedTextBackground)); }
.patch-row.add .sign, .patch-row.add .ln-new { background: var(--vscode-diffEditorGutter-insertedLineBackground, transparent); color: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-foreground)); }
.patch-row.del { background: var(--vscode-diffEditor-removedLineBackground, var(--vscode-diffEditor-removedTextBackground)); }
.patch-row.del .sign, .patch-row.del .ln-old { background: var(--vscode-diffEditorGutter-removedLineBackground, transparent); color: var(--vscode-gitDecoration-deletedResourceForeground, var(--vscode-foreground)); }
.patch-row.note { color: var(--vscode-descriptionForeground); font-style: italic; }
body.vscode-high-contrast .patch-row.add .text { outline: 1px dashed var(--vscode-diffEditor-insertedTextBorder, var(--vscode-contrastActiveBorder)); outline-offset: -1px; }
body.vscode-high-contrast .patch-row.del .text { outline: 1px dashed var(--vscode-diffEditor-removedTextBorder, var(--vscode-contrastBorder)); outline-offset: -1px; }
table.node-list { width: auto; min-width: 60%; }
/* Kind and place never break inside a word; a long qualified name wraps instead. */
table.node-list td:first-child, table.node-list th { white-space: nowrap; }
table.nodes.node-list td:nth-child(2) { white-space: normal; overflow-wrap: anywhere; }
ul.anchors { margin: 2px 0; padding-left: 18px; }
.empty-episode { margin: 16px 0; }
.empty-episode p { margin: 4px 0; }
.empty-episode .empty-title { font-weight: 600; }
/* A narrow editor (a side bar open beside it) stacks the list above the step instead of squeezing both. */
@media (max-width: 820px) {
  .body { grid-template-columns: 1fr; grid-template-rows: minmax(140px, 38%) 1fr; }
  .side { border-bottom: 1px solid var(--vscode-panel-border, #8884); }
  .splitter { display: none; }
}
`;

export function adoptEpisodeStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
