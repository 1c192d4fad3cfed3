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
  const ctx = new ServerContext(connection, services);
  const experiments = new ExperimentDiagnostics(ctx);
  const datasets = new DatasetDiagnostics(ctx);
  const validation = new DocumentValidation(ctx, experiments, datasets);

  connection.onInitialize((params): InitializeResult => {
    ctx.supportsConfiguration = params.capabilities.workspace?.configuration === true;
    ctx.workspace.initialize(params);
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
    if (ctx.supportsConfiguration) ctx.background(connection.client.register(DidChangeConfigurationNotification.type, { section: 'graphPlanner' }));
    ctx.status('ready', 'Graph Planner server ready', { startupMs: Date.now() - startedAt });
    ctx.background(datasets.validateLargeFiles());
  });
  connection.onShutdown(() => {
    containers.stop();
    ctx.stop();
  });

  connection.onDidChangeWatchedFiles((params) => {
    const changed = params.changes.filter((c) => c.type !== FileChangeType.Deleted).map((c) => URI.parse(c.uri).fsPath);
    if (changed.length) ctx.background(datasets.validateLargeFiles(changed));
    tasks.filesChanged(params.changes);
  });
  connection.onDidChangeConfiguration(() => {
    ctx.settings.clear();
    ctx.store.settingsChanged();
    for (const doc of ctx.documents.all()) validation.schedule(doc.uri, 0);
  });
  // Registered as a plain notification: the typed helper throws when the client has not (yet)
  // declared workspace-folder support, and a client that never sends it costs nothing.
  connection.onNotification(DidChangeWorkspaceFoldersNotification.type, ({ event }) => ctx.workspace.change(event));

  ctx.documents.onDidOpen((e) => {
    ctx.store.open(e.document.uri, e.document.version);
    validation.schedule(e.document.uri, 0);
  });
  ctx.documents.onDidChangeContent((e) => {
    const { uri, version } = e.document;
    // onDidChangeContent also fires on open; the open handler already validated that version.
    if (ctx.store.get(uri)?.openedVersion === version) return;
    ctx.background(ctx.settings.get(uri).then((s) => validation.schedule(uri, s.validationDelayMs)));
  });
  ctx.documents.onDidClose((e) => {
    const state = ctx.store.close(e.document.uri);
    if (state) ctx.scheduler.cancel(state.schedule);
    ctx.settings.forget(e.document.uri);
    ctx.background(connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }));
  });

  registerEditorFeatures(ctx, experiments, datasets);
  registerCustomRequests(ctx, experiments, datasets);
  const containers = registerContainerRequests(ctx);
  const tasks = registerTaskRequests(ctx);
  registerTaskPreflight(ctx);
  const episodes = registerEpisodeRequests(ctx);
  registerMetricsRequests(ctx);
  registerReportRequests(ctx);
  registerStepSampleRequests(ctx);
  registerGroupRequests(ctx);
  registerCodeGraphRequests(ctx);
  const runs = new RunRequests(ctx);
  runs.register();
  connection.onExit(() => {
    runs.dispose();
    episodes.dispose();
  });
  ctx.documents.listen(connection);
  connection.listen();
}
