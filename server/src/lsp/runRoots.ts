/**
 * The run roots of the workspace: the folders whose sub-folders are runs. They are the
 * `logging.output_dir` of every experiment YAML the experiment globs find (relative paths resolve
 * against the experiment's workspace folder, as a run started there would), the default `outputs`
 * of each workspace folder, and the `graphPlanner.runRoots` setting. The Runs view and the task
 * outcomes of the Tasks view both read runs from these roots.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { URI } from 'vscode-uri';
import { isRecord } from '../util/isRecord.js';
import type { ServerContext } from './context.js';
import { classify } from './documentKind.js';
import { findWorkspaceFiles } from './workspaceFiles.js';

/** The default of `logging.output_dir` (server/src/config/schema.ts). */
const defaultOutputDir = 'outputs';

export interface RunRoot {
  readonly path: string;
  /** Why it is a root: an experiment file, the default, or the setting. */
  readonly from: string;
}

export async function runRootsOf(server: ServerContext): Promise<RunRoot[]> {
  const roots = new Map<string, RunRoot>();
  const add = (path: string, from: string) => {
    if (!roots.has(path)) roots.set(path, { path, from });
  };
  for (const folder of server.workspace.paths) {
    const settings = await server.settings.get(URI.file(folder).toString());
    add(resolve(folder, defaultOutputDir), 'the default logging.output_dir');
    for (const extra of settings.runRoots) add(isAbsolute(extra) ? extra : resolve(folder, extra), 'the graphPlanner.runRoots setting');
    const experiments = await findWorkspaceFiles(
      [folder],
      (n) => n.endsWith('.yaml') || n.endsWith('.yml'),
      (p) => classify(p, settings) === 'experiment',
    );
    for (const file of experiments) {
      const outputDir = await outputDirOf(server, file);
      if (outputDir !== undefined) add(resolve(server.workspace.baseDirOf(URI.file(file).toString()), outputDir), file);
    }
  }
  return [...roots.values()];
}

/** The `logging.output_dir` an experiment names, from the editor's text when it is open; undefined when it names none. */
async function outputDirOf(server: ServerContext, file: string): Promise<string | undefined> {
  const open = server.documents.get(URI.file(file).toString());
  let text: string;
  try {
    text = open?.getText() ?? (await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    // A YAML that does not parse is reported in the Problems panel; it adds no root.
    return undefined;
  }
  const logging = isRecord(value) ? value['logging'] : undefined;
  const dir = isRecord(logging) ? logging['output_dir'] : undefined;
  return typeof dir === 'string' && dir.trim() !== '' ? dir : undefined;
}
