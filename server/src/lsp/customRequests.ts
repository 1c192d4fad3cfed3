/**
 * The custom requests the extension's commands and views send (declared in `protocol/lsp.ts`): the
 * resolved config, the experiment overview and an explicit check of one document. Each answers from
 * the open document's cached check when there is one and reads the file from disk otherwise.
 */
import type { Diagnostic } from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import {
  checkDocumentParamsSchema,
  checkDocumentRequest,
  experimentOverviewParamsSchema,
  experimentOverviewRequest,
  resolvedConfigParamsSchema,
  resolvedConfigRequest,
  type CheckDocumentResult,
  type ExperimentOverviewResult,
  type ResolvedConfigResult,
} from '../protocol/index.js';
import type { ServerContext } from './context.js';
import type { DatasetDiagnostics } from './datasetDiagnostics.js';
import type { DocKind } from './documentKind.js';
import type { ExperimentDiagnostics } from './experimentDiagnostics.js';
import { experimentOverview } from './experimentOverview.js';
import { errorMessage } from '../util/errors.js';

export function registerCustomRequests(server: ServerContext, experiments: ExperimentDiagnostics, datasets: DatasetDiagnostics): void {
  server.connection.onRequest(resolvedConfigRequest, (raw: unknown) => resolvedConfig(server, experiments, resolvedConfigParamsSchema.parse(raw).uri));
  server.connection.onRequest(experimentOverviewRequest, (raw: unknown): ExperimentOverviewResult => {
    const { uri } = experimentOverviewParamsSchema.parse(raw);
    const check = experiments.checkForUri(uri);
    if (!check) return null;
    // The disk rules' findings are included while they belong to the config as it is now; the
    // overview never waits for them to run.
    return experimentOverview(check, uri, server.documents.get(uri)?.version ?? null, experiments.currentDiskFindings(uri, check));
  });
  server.connection.onRequest(checkDocumentRequest, async (raw: unknown): Promise<CheckDocumentResult> => {
    const { uri } = checkDocumentParamsSchema.parse(raw);
    const kind = await server.kindOf(uri);
    const diagnostics = kind === 'experiment' ? await experiments.checkNow(uri) : kind === 'dataset' ? await datasets.checkNow(uri) : [];
    return checkResult(kind, diagnostics);
  });
}

function resolvedConfig(server: ServerContext, experiments: ExperimentDiagnostics, uri: string): ResolvedConfigResult {
  let check;
  try {
    check = experiments.checkOrThrow(uri);
  } catch (error) {
    return { yaml: null, errors: 0, warnings: 0, reason: errorMessage(error) };
  }
  const errors = check.findings.filter((f) => f.severity === 'error').length;
  const warnings = check.findings.filter((f) => f.severity === 'warning').length;
  if (!check.config) return { yaml: null, errors, warnings, reason: 'The document does not parse as an experiment config; fix the syntax errors first.' };
  const header = `# Effective config of ${URI.parse(uri).fsPath}: defaults merged with the file (no command-line overrides).\n`;
  return { yaml: header + server.services.config.render(check.config), errors, warnings };
}

/** Counts by severity (1 error, 2 warning, 3 information) and the one-line summary the command shows. */
export function checkResult(kind: DocKind, diagnostics: readonly Diagnostic[]): CheckDocumentResult {
  const count = (severity: number) => diagnostics.filter((d) => d.severity === severity).length;
  const [errors, warnings, infos] = [count(1), count(2), count(3)];
  const summary =
    kind === 'other'
      ? 'Graph Planner checks experiment YAML and dataset JSONL files; this is neither.'
      : errors + warnings === 0
        ? `No problems found${infos ? ` (${infos} note${infos === 1 ? '' : 's'})` : ''}.`
        : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`;
  return { kind, errors, warnings, infos, summary };
}
