export * from './findings.js';
export * from './lsp.js';
export * from './settings.js';
export * from './overview.js';
export * from './webview.js';
export * from './testReport.js';
export * from './sandbox.js';
export * from './images.js';
