/**
 * A step's thought, tool result and observation (clipped by the server) as small blocks under its
 * summary in a compact cell of the comparison or the group view. Each block is marked with
 * `data-part`, so the trace filters (`traceFilters.ts`) show or hide it; the text goes in as text.
 */
import type { StepTexts } from '../../server/src/protocol/stepTexts.js';
import { el } from './dom.js';

const css = `
.step-text { margin-top: 3px; font-size: 0.92em; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere;
  display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 4; overflow: hidden; }
.step-text.thought { font-style: italic; color: var(--vscode-descriptionForeground); }
.step-text.result { border-left: 2px solid var(--vscode-charts-blue, #3794ff); padding-left: 5px; }
.step-text.observation { font-family: var(--vscode-editor-font-family); font-size: 0.85em; color: var(--vscode-descriptionForeground);
  border-left: 2px solid var(--vscode-panel-border, #8884); padding-left: 5px; -webkit-line-clamp: 6; }
`;

let adopted = false;

export function adoptStepTextStyles(): void {
  if (adopted) return;
  adopted = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

export function stepTextNodes(texts: StepTexts | null | undefined): HTMLElement[] {
  if (texts === null || texts === undefined) return [];
  const block = (part: keyof StepTexts, text: string | null, label: string): HTMLElement | null =>
    text === null ? null : el('div', { class: `step-text ${part}`, title: `${label}: ${text}`, attrs: { 'data-part': part } }, text);
  return [block('thought', texts.thought, 'Thought'), block('result', texts.result, 'Result'), block('observation', texts.observation, 'Observation')].filter(
    (b): b is HTMLElement => b !== null,
  );
}
