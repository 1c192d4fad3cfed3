/**
 * The wire contracts most used by the server's own folders, as one import. Every file of
 * `protocol/` is a contract on its own, and the extension and the webview import those files one
 * by one, so their bundles take only the schemas they use.
 */
export * from './findings.js';
export * from './lsp.js';
export * from './settings.js';
export * from './overview.js';
export * from './webview.js';
export * from './episodeWebview.js';
export * from './groupWebview.js';
export * from './testReport.js';
export * from './sandbox.js';
export * from './images.js';
export * from './backendChoice.js';
export * from './metricsWebview.js';
export * from './stepSamplesWebview.js';
export * from './reportWebview.js';
