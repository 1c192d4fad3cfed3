/** The language server's entry for `main.ts`: start it on a connection with the engine services. */
export { serverVersion } from './context.js';
export { startServer } from './server.js';
export type { CodeGraphServices, ConfigServices, DatasetServices, ServerServices } from './services.js';
