/**
 * The language server's entry for `main.ts`: start it on a connection with the engine services.
 * Behind it: language features for experiment YAML and dataset JSONL (diagnostics, completion,
 * hover, code actions, Fix All, symbols), the document store, and the custom requests the
 * extension's views and pages use, one module per view.
 */
export { serverVersion } from './context.js';
export { startServer } from './server.js';
export type { CodeGraphServices, ConfigServices, DatasetServices, ServerServices } from './services.js';
