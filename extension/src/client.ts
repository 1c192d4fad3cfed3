/**
 * Builds the language client for one server process: where the server is, which documents it
 * sees, which file events it hears and where it logs.
 */
import * as vscode from 'vscode';
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import type { LanguageClientLib } from './languageClientLib.js';
import { datasetWatchGlobs, documentSelector } from './documentSelector.js';
import { settingsSection, type ClientSettings } from './clientSettings.js';

export interface ClientSetup {
  readonly serverModule: string;
  readonly settings: ClientSettings;
  readonly outputChannel: vscode.LogOutputChannel;
  readonly traceChannel: vscode.LogOutputChannel;
}

/** A client and what must be disposed together with it (its file watchers). */
export interface ClientParts {
  readonly client: LanguageClient;
  readonly disposables: vscode.Disposable[];
}

/** The client, from the library once it has loaded (`languageClientLib.ts`). */
export function createClient(lib: LanguageClientLib, setup: ClientSetup): ClientParts {
  const serverOptions: ServerOptions = {
    run: { module: setup.serverModule, transport: lib.TransportKind.stdio },
    debug: {
      module: setup.serverModule,
      transport: lib.TransportKind.stdio,
      options: { execArgv: ['--nolazy', '--inspect=6019'] },
    },
  };
  // The server validates large dataset files from disk, so it must hear about changes made
  // outside the editor (a download finishing, `gp dataset prepare` rewriting a file).
  const watchers = datasetWatchGlobs(setup.settings).map((glob) => vscode.workspace.createFileSystemWatcher(glob));
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(setup.settings),
    synchronize: {
      // The server pulls settings per resource with `workspace/configuration`; this makes the
      // client tell it when to pull again.
      configurationSection: settingsSection,
      fileEvents: watchers,
    },
    outputChannel: setup.outputChannel,
    traceOutputChannel: setup.traceChannel,
    // The status bar already shows problems; a dialog on every server log line would be noise.
    revealOutputChannelOn: lib.RevealOutputChannelOn.Never,
  };
  const client = new lib.LanguageClient(settingsSection, 'Graph Planner', serverOptions, clientOptions);
  // A copy: the client keeps `watchers` as its file event sources, and callers add to this list.
  return { client, disposables: [...watchers] };
}
