/**
 * The language server: takes a connection and the engine services, and wires the LSP lifecycle and
 * document events to the parts that do the work (document state, scheduling, experiment and dataset
 * diagnostics, editor features, custom requests). Validation runs at once on open and debounced
 * after edits.
 */
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  DidChangeWorkspaceFoldersNotification,
  FileChangeType,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import { ServerContext, serverVersion } from './context.js';
import { registerContainerRequests } from './containerRequests.js';
import { registerEpisodeRequests } from './episodeRequests.js';
import { registerMetricsRequests } from './metricsRequests.js';
import { registerReportRequests } from './reportRequests.js';
import { registerStepSampleRequests } from './stepSampleRequests.js';
import { registerGroupRequests } from './groupRequests.js';
import { registerCodeGraphRequests } from './codeGraphRequests.js';
import { registerCustomRequests } from './customRequests.js';
import { RunRequests } from './runRequests.js';
import { DatasetDiagnostics } from './datasetDiagnostics.js';
import { DocumentValidation } from './documentValidation.js';
import { registerEditorFeatures } from './editorFeatures.js';
import { ExperimentDiagnostics } from './experimentDiagnostics.js';
import { registerTaskRequests } from './taskRequests.js';
import { registerTaskPreflight } from './taskPreflight.js';
import type { ServerServices } from './services.js';

export function startServer(connection: Connection, services: ServerServices, startedAt = Date.now()): void {
  const server = new ServerContext(connection, services);
  const experiments = new ExperimentDiagnostics(server);
  const datasets = new DatasetDiagnostics(server);
  const validation = new DocumentValidation(server, experiments, datasets);

  connection.onInitialize((params): InitializeResult => {
    server.supportsConfiguration = params.capabilities.workspace?.configuration === true;
    server.workspace.initialize(params);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [':', ' ', '/'] },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.SourceFixAll] },
        documentSymbolProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'graph-planner', version: serverVersion },
    };
  });
  connection.onInitialized(() => {
    if (server.supportsConfiguration) server.background(connection.client.register(DidChangeConfigurationNotification.type, { section: 'graphPlanner' }));
    server.status('ready', 'Graph Planner server ready', { startupMs: Date.now() - startedAt });
    server.background(datasets.validateLargeFiles());
  });
  connection.onShutdown(() => {
    containers.stop();
    server.stop();
  });

  connection.onDidChangeWatchedFiles((params) => {
    const changed = params.changes.filter((c) => c.type !== FileChangeType.Deleted).map((c) => URI.parse(c.uri).fsPath);
    if (changed.length) server.background(datasets.validateLargeFiles(changed));
    tasks.filesChanged(params.changes);
  });
  connection.onDidChangeConfiguration(() => {
    server.settings.clear();
    server.store.settingsChanged();
    for (const doc of server.documents.all()) validation.schedule(doc.uri, 0);
  });
  // Registered as a plain notification: the typed helper throws when the client has not (yet)
  // declared workspace-folder support, and a client that never sends it costs nothing.
  connection.onNotification(DidChangeWorkspaceFoldersNotification.type, ({ event }) => server.workspace.change(event));

  server.documents.onDidOpen((e) => {
    server.store.open(e.document.uri, e.document.version);
    validation.schedule(e.document.uri, 0);
  });
  server.documents.onDidChangeContent((e) => {
    const { uri, version } = e.document;
    // onDidChangeContent also fires on open; the open handler already validated that version.
    if (server.store.get(uri)?.openedVersion === version) return;
    server.background(server.settings.get(uri).then((s) => validation.schedule(uri, s.validationDelayMs)));
  });
  server.documents.onDidClose((e) => {
    const state = server.store.close(e.document.uri);
    if (state) server.scheduler.cancel(state.schedule);
    server.settings.forget(e.document.uri);
    server.background(connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }));
  });

  registerEditorFeatures(server, experiments, datasets);
  registerCustomRequests(server, experiments, datasets);
  const containers = registerContainerRequests(server);
  const tasks = registerTaskRequests(server);
  registerTaskPreflight(server);
  const episodes = registerEpisodeRequests(server);
  registerMetricsRequests(server);
  registerReportRequests(server);
  registerStepSampleRequests(server);
  registerGroupRequests(server);
  registerCodeGraphRequests(server);
  const runs = new RunRequests(server);
  runs.register();
  connection.onExit(() => {
    runs.dispose();
    episodes.dispose();
  });
  server.documents.listen(connection);
  connection.listen();
}
