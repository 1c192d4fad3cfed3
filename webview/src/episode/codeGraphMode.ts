/**
 * The trajectory viewer's code-graph pane: the episode on the code graph (`../codeGraph/pane.ts`)
 * shown in place of the step's detail, moving with the viewer's selected step. Drawing it in the
 * viewer's own page, not a new webview, spares the second of VS Code's webview start a new panel
 * pays (bench/README.md, the code-graph figure). The graph comes from the extension as
 * `protocol/codeGraphView.ts`'s messages, validated here; the viewer's own messages pass by.
 */
import { codeGraphHostMessageSchema } from '../../../server/src/protocol/codeGraphView.js';
import type { EpisodeWebviewMessage } from '../../../server/src/protocol/episodeWebview.js';
import { el } from '../dom.js';
import { adoptCodeGraphPaneStyles } from '../codeGraph/codeGraphStyles.js';
import { CodeGraphPane } from '../codeGraph/pane.js';

export class CodeGraphMode {
  active = false;
  private readonly pane: CodeGraphPane;
  /** Set once the person asked to see every node. */
  private all = false;
  private readonly frame: HTMLElement;

  constructor(private readonly send: (message: EpisodeWebviewMessage) => void) {
    adoptCodeGraphPaneStyles();
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('.code-graph-mode { margin: 0 -18px; } .code-graph-mode-bar { display: flex; justify-content: flex-end; padding: 8px 16px 0; }');
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    this.pane = new CodeGraphPane({
      openNode: (n) => send({ type: 'openLocation', file: n.path, line: n.span?.start ?? 1 }),
      showAll: () => {
        this.all = true;
        send({ type: 'needCodeGraph', all: true });
      },
    });
    const beside = el(
      'button',
      { class: 'plain', title: 'Open the code graph in a panel beside the viewer', attrs: { id: 'code-graph-beside' } },
      'Open beside',
    );
    beside.addEventListener('click', () => send({ type: 'codeGraph', step: this.step }));
    this.frame = el('div', { class: 'code-graph-mode code-graph' }, el('div', { class: 'code-graph-mode-bar' }, beside), this.pane.element);
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      const parsed = codeGraphHostMessageSchema.safeParse(event.data);
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === 'graph') this.pane.show(message.graph);
      else if (message.type === 'graphUnavailable') this.pane.unavailable(message.reason);
      else this.pane.setStep(message.step);
    });
  }

  private step = 0;

  /** Shows or hides the pane; showing it asks the extension for the graph as the file holds it now. */
  toggle(): void {
    this.active = !this.active;
    if (this.active) {
      this.pane.loading('Building the code graph of this episode…');
      this.send({ type: 'needCodeGraph', all: this.all });
    }
  }

  /** Asks for the graph again (the episode grew). */
  refresh(): void {
    this.send({ type: 'needCodeGraph', all: this.all });
  }

  /** The pane at the viewer's selected step. */
  element(step: number): HTMLElement {
    this.step = step;
    this.pane.setStep(step);
    return this.frame;
  }
}
