/**
 * The group page's styles, adopted as a constructable style sheet (the Content Security Policy
 * allows no inline style). The rollouts share the editor's width, so two of them fill a maximised
 * editor instead of leaving half of it empty (issue 37), and never go narrower than one readable
 * width, so 8 to 16 rollouts scroll sideways rather than squeeze; the row numbers and the column
 * headers stay in place while the table scrolls.
 */
/** A column is never narrower than this: a cell's kind, step and reward and a few words of its summary. */
const minColumnPx = 232;
/** The room the row numbers and the scroller's vertical scroll bar take from the editor's width. */
const besideColumns = 'calc(4.2em + 16px)';
/** The table's class names how many rollouts it has (`cols-<n>`, at most 32); each says it to the width rule. */
const columnCounts = Array.from({ length: 32 }, (_, i) => `table.group.cols-${i + 1} { --cols: ${i + 1}; }`).join('\n');

const css = `
#root { height: 100vh; display: flex; flex-direction: column; box-sizing: border-box; }
.group-header { padding: 8px 16px 6px; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
.group-header h1 { font-size: 1.2em; font-weight: 600; margin: 0 0 2px; }
.group-header p { margin: 3px 0; }
.selectors { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
.selectors .label { color: var(--vscode-descriptionForeground); }
.selectors .label:not(:first-child) { margin-left: 10px; }
.selectors select { font: inherit; padding: 2px 4px; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, transparent); max-width: 36em; }
.selectors select:focus { outline: 1px solid var(--vscode-focusBorder); }
.group-summary { color: var(--vscode-descriptionForeground); }
.scroller { flex: 1; min-height: 0; overflow: auto; }
table.group { border-collapse: separate; border-spacing: 0; table-layout: fixed; width: max-content; }
${columnCounts}
table.group th, table.group td { box-sizing: border-box; --col: max(${minColumnPx}px, calc((100vw - ${besideColumns}) / var(--cols, 1))); width: var(--col); min-width: var(--col); max-width: var(--col); padding: 4px 7px; vertical-align: top; text-align: left;
  border-bottom: 1px solid var(--vscode-panel-border, #8883); border-right: 1px solid var(--vscode-panel-border, #8883); }
table.group .rowhead { width: 4.2em; min-width: 4.2em; max-width: 4.2em; position: sticky; left: 0; z-index: 2; text-align: right;
  color: var(--vscode-descriptionForeground); background: var(--vscode-editor-background); font-weight: normal; font-variant-numeric: tabular-nums; }
table.group thead th { position: sticky; top: 0; z-index: 1; background: var(--vscode-editor-background); border-bottom: 2px solid var(--vscode-panel-border, #8886); }
table.group thead th.corner { z-index: 3; }
th.col { cursor: pointer; }
th.col:hover, td.cell:hover { background: var(--vscode-list-hoverBackground); }
th.col:focus-visible, td.cell:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
th.col.reference { box-shadow: inset 0 2px 0 var(--vscode-focusBorder); }
.col-title { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
.col-title .state { margin-left: auto; font-weight: normal; font-size: 0.8em; }
.col-figures { display: flex; gap: 10px; margin-top: 3px; font-variant-numeric: tabular-nums; font-weight: normal; }
.figure b { font-weight: 600; }
.adv.pos b, .rw.pos { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.adv.neg b, .rw.neg { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.col-meta { font-weight: normal; font-size: 0.88em; margin-top: 2px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.col-no-outcome { font-weight: normal; font-size: 0.85em; color: var(--vscode-editorWarning-foreground); margin-top: 2px; }
.col-problem { font-weight: normal; font-size: 0.85em; color: var(--vscode-editorWarning-foreground); margin-top: 2px; }
td.cell { cursor: pointer; }
td.cell.differs { background: color-mix(in srgb, var(--vscode-charts-orange) 13%, transparent); }
td.cell.problem { box-shadow: inset 3px 0 0 var(--vscode-editorError-foreground); }
td.gap { color: var(--vscode-descriptionForeground); text-align: center; }
.cell-head { display: flex; gap: 2px; align-items: baseline; font-size: 0.88em; }
.cell-head .kind { font-weight: 600; text-transform: lowercase; }
.cell-head .rw { margin-left: auto; font-variant-numeric: tabular-nums; }
td.cell .summary { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; margin-top: 1px; }
.kind-find .kind, .kind-expand .kind, .kind-read .kind { color: var(--vscode-charts-blue); }
.kind-repair .kind { color: var(--vscode-charts-purple); }
.kind-submit .kind { color: var(--vscode-charts-green); }
.kind-invalid .kind { color: var(--vscode-errorForeground); }
tr.divergence > th.rowhead, tr.divergence > td { border-top: 2px solid var(--vscode-charts-orange); }
.diverge-mark { font-size: 0.75em; color: var(--vscode-charts-orange); font-weight: 600; }
`;

export function adoptGroupStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
