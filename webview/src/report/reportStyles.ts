/** The report page's styles, adopted as a constructable style sheet (see ../styles.ts for why). */
const css = `
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); margin: 0; }
#root { padding: 0 20px 24px; max-width: 1400px; }
code { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
header.top { display: flex; align-items: flex-start; gap: 12px; flex-wrap: wrap; padding: 14px 0 10px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
header.top .titles { flex: 1; min-width: 260px; }
header.top h1 { font-size: 1.3em; font-weight: 600; margin: 0 0 4px; }
header.top .toolbar { display: flex; gap: 6px; flex-wrap: wrap; }
.facts { color: var(--vscode-descriptionForeground); margin: 2px 0; overflow-wrap: anywhere; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0 6px; }
.tile { min-width: 150px; cursor: default; padding: 8px 14px; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; background: var(--vscode-editorWidget-background, transparent); }
.tile .value { font-size: 1.5em; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile .label { color: var(--vscode-descriptionForeground); font-size: 0.92em; }
.tile.infra .value { color: var(--vscode-editorWarning-foreground); }
.tile.hacks { border-color: var(--vscode-editorWarning-foreground); }
.tile.hacks .value { color: var(--vscode-editorWarning-foreground); }
.suspect { white-space: nowrap; margin-right: 8px; padding: 0 6px; border-radius: 9px; border: 1px solid var(--vscode-editorWarning-foreground); color: var(--vscode-editorWarning-foreground); font-size: 0.9em; }
h2 { font-size: 1.1em; font-weight: 600; margin: 22px 0 6px; padding-bottom: 3px; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
.hint { color: var(--vscode-descriptionForeground); margin: 4px 0 8px; }
/* A narrow editor scrolls the table sideways rather than breaking task ids letter by letter. */
.table-scroll { overflow-x: auto; }
table.tasks { width: 100%; min-width: 600px; border-collapse: collapse; }
table.tasks th { text-align: left; font-weight: 600; padding: 4px 8px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); white-space: nowrap; }
table.tasks th.num, table.tasks td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.tasks td { padding: 4px 8px; vertical-align: top; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
table.tasks td.reason { overflow-wrap: anywhere; color: var(--vscode-descriptionForeground); }
/* Ids wrap at the <wbr> the page puts at their boundaries; a piece longer than the column breaks only as a last resort. */
table.tasks td.task { min-width: 12em; }
table.tasks td.task code { overflow-wrap: break-word; }
table.tasks th.sortable { padding: 0; }
table.tasks th button.sort { all: unset; box-sizing: border-box; display: flex; gap: 4px; align-items: baseline; width: 100%; padding: 4px 8px; cursor: pointer; font-weight: 600; }
table.tasks th.num button.sort { justify-content: flex-end; }
table.tasks th button.sort:hover { background: var(--vscode-list-hoverBackground); }
table.tasks th button.sort:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
table.tasks th button.sort .arrow { font-size: 0.8em; color: var(--vscode-descriptionForeground); }
table.tasks th[aria-sort='ascending'] button.sort .arrow, table.tasks th[aria-sort='descending'] button.sort .arrow { color: var(--vscode-foreground); }
table.tasks td.num, table.tasks td.episodes { white-space: nowrap; }
table.tasks td.reason { min-width: 10em; }
table.tasks tbody tr:hover { background: var(--vscode-list-hoverBackground); }
.outcome { white-space: nowrap; padding: 0 7px; border-radius: 9px; border: 1px solid currentColor; font-size: 0.9em; }
.outcome.resolved { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.outcome.unresolved { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.outcome.mixed { color: var(--vscode-charts-yellow, var(--vscode-editorWarning-foreground)); }
.outcome.no-outcome { color: var(--vscode-editorWarning-foreground); border-style: dashed; }
a.episode { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; margin-right: 8px; white-space: nowrap; }
a.episode:hover { text-decoration: underline; }
a.episode:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
.groups { display: grid; gap: 10px; }
details.group { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 6px 10px; }
details.group summary { cursor: pointer; font-weight: 600; }
details.group .count { color: var(--vscode-descriptionForeground); font-weight: normal; }
details.group ul { margin: 6px 0 2px; padding-left: 20px; }
details.group li { margin: 3px 0; overflow-wrap: anywhere; }
details.group li .tasks { color: var(--vscode-descriptionForeground); }
.banner { border-left: 3px solid var(--vscode-editorWarning-foreground); background: var(--vscode-inputValidation-warningBackground, transparent); padding: 8px 12px; margin: 12px 0; }
.banner.error { border-left-color: var(--vscode-editorError-foreground); background: var(--vscode-inputValidation-errorBackground, transparent); }
ul.infra { margin: 4px 0; padding-left: 20px; }
ul.infra li { margin: 3px 0; overflow-wrap: anywhere; }
`;

export function adoptReportStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
