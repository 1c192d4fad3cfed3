/**
 * The code-graph panel's page: a code-graph pane (`pane.ts`) filling the page, fed and stepped by
 * the extension (the trajectory viewer's selected step follows into it). Every message from the
 * extension is validated before anything is drawn; a click on a node asks the extension to open its
 * file at its first line.
 */
import { codeGraphHostMessageSchema } from '../../../server/src/protocol/codeGraphView.js';
import type { CodeGraphWebviewMessage } from '../../../server/src/protocol/codeGraphWebview.js';
import { vscodeApi } from '../host.js';
import { adoptCodeGraphStyles } from './codeGraphStyles.js';
import { CodeGraphPane, type PaneState } from './pane.js';

const send = (message: CodeGraphWebviewMessage): void => vscodeApi.postMessage(message);

const saved = (vscodeApi.getState() ?? {}) as PaneState;
const pane = new CodeGraphPane(
  {
    openNode: (n) => send({ type: 'openNode', file: n.path, line: n.span?.start ?? 1 }),
    showAll: () => send({ type: 'showAll' }),
    changed: (state) => vscodeApi.setState(state),
    painted: () => send({ type: 'timing', what: 'firstPaint', ms: performance.now() }),
  },
  { ...(typeof saved.step === 'number' ? { step: saved.step } : {}), zoom: typeof saved.zoom === 'number' ? saved.zoom : 'fit' },
);
const root = document.getElementById('root') ?? document.body;
// Names the page for tests and the benchmark, which see the viewer's pane and this panel side by side.
root.dataset['page'] = 'code-graph-panel';
root.replaceChildren(pane.element);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = codeGraphHostMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'graphUnavailable') pane.unavailable(message.reason);
  else if (message.type === 'step') {
    pane.setStep(message.step);
    vscodeApi.setState({ ...((vscodeApi.getState() ?? {}) as PaneState), step: message.step });
  } else pane.show(message.graph);
});

adoptCodeGraphStyles();
send({ type: 'ready' });
