/**
 * Every schema the extension checks a message with: each webview's messages and the Tasks view's
 * pages. Reached only through `messageSchemas.ts`, so that zod and these schemas load when the
 * first message arrives rather than with the extension.
 */
export { webviewMessageSchema } from '../../server/src/protocol/webview.js';
export { compareWebviewMessageSchema, episodeWebviewMessageSchema } from '../../server/src/protocol/episodeWebview.js';
export { groupWebviewMessageSchema } from '../../server/src/protocol/groupWebview.js';
export { metricsWebviewMessageSchema } from '../../server/src/protocol/metricsWebview.js';
export { stepSamplesWebviewMessageSchema } from '../../server/src/protocol/stepSamplesWebview.js';
export { reportWebviewMessageSchema } from '../../server/src/protocol/reportWebview.js';
export { codeGraphWebviewMessageSchema } from '../../server/src/protocol/codeGraphWebview.js';
export { taskPageResultSchema } from '../../server/src/protocol/tasksView.js';
