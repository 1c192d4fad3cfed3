/**
 * The standard editor features of open documents: completion, hover, quick fixes and symbols. Each
 * answers from the document's cached check, and only for a document whose kind is already settled.
 */
import { CodeActionKind } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServerContext } from './context.js';
import type { DatasetDiagnostics } from './datasetDiagnostics.js';
import type { ExperimentDiagnostics } from './experimentDiagnostics.js';
import { yamlCodeActions } from './yamlCodeActions.js';
import { yamlFixAll } from './yamlFixAll.js';
import { completeYaml } from './yamlCompletion.js';
import { completePath } from './pathCompletion.js';
import { hoverYaml } from './yamlHover.js';
import { yamlSymbols } from './yamlSymbols.js';

export function registerEditorFeatures(server: ServerContext, experiments: ExperimentDiagnostics, datasets: DatasetDiagnostics): void {
  const { connection, documents } = server;
  const experiment = (uri: string) => {
    const doc = documents.get(uri);
    return doc && server.knownKind(uri) === 'experiment' ? doc : undefined;
  };

  /** The document's findings as last published: its check's and the disk rules' that still hold. */
  const experimentFindings = (doc: TextDocument) => {
    const check = experiments.checkOf(doc);
    return [...check.findings, ...experiments.currentDiskFindings(doc.uri, check)];
  };

  connection.onCompletion(async (params) => {
    const doc = experiment(params.textDocument.uri);
    if (!doc) return [];
    const paths = await completePath(doc, params.position, server.workspace.baseDirOf(doc.uri));
    if (paths !== undefined) return paths;
    // Keys already written are not offered again; defaults do not count as written.
    return completeYaml(doc.getText(), doc.offsetAt(params.position), experiments.checkOf(doc).source.value);
  });

  connection.onHover((params) => {
    const doc = experiment(params.textDocument.uri);
    return doc ? hoverYaml(experiments.checkOf(doc), doc.offsetAt(params.position)) : null;
  });

  connection.onCodeAction((params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const kind = server.knownKind(doc.uri);
    if (kind !== 'experiment' && kind !== 'dataset') return [];
    const only = params.context.only;
    const quickFixes = only === undefined || only.some((k) => CodeActionKind.QuickFix.startsWith(k));
    // "Fix All" and fix-on-save ask for source.fixAll; the fixes come from the document's own
    // diagnostics, since the client sends only those in the requested range.
    const wantsFixAll = only?.some((k) => CodeActionKind.SourceFixAll.startsWith(k)) === true;
    if (kind === 'experiment') {
      const fixAll = wantsFixAll ? yamlFixAll(doc, experimentFindings(doc)) : undefined;
      return [...(quickFixes ? yamlCodeActions(doc, params.context.diagnostics) : []), ...(fixAll ? [fixAll] : [])];
    }
    const fixAll = wantsFixAll ? datasets.jsonl.fixAll(doc.uri, doc.getText(), datasets.validate(doc)) : undefined;
    return [...(quickFixes ? datasets.jsonl.codeActions(doc.uri, doc.getText(), params.range, params.context.diagnostics) : []), ...(fixAll ? [fixAll] : [])];
  });

  connection.onDocumentSymbol((params) => {
    const doc = experiment(params.textDocument.uri);
    return doc ? yamlSymbols(doc, experiments.checkOf(doc).source) : [];
  });
}
