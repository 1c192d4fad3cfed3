/**
 * Completion of path values in experiment YAML: a field the schema marks with `path_kind` (a task
 * file or a folder, `config/schema.ts`) is completed from the disk, relative to the folder the
 * loader resolves it against (the workspace folder, `workspaceFolders.ts`'s `baseDirOf`). The part
 * already typed picks the folder to list; folders come first and complete with a `/` so that the
 * next level follows, then the files of the right kind (JSONL for a task file).
 */
import { readdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { CompletionItemKind, type CompletionItem, type Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { schemaAt } from '../config/index.js';
import type { KeyPath } from '../protocol/index.js';
import { cursorContext } from './yamlCursor.js';

/** Entries listed at most; a folder of thousands of files is narrowed by typing, not by scrolling. */
const maxEntries = 200;

/** The value typed so far on the cursor's line, after `key:` and an opening quote, up to the cursor. */
function typedValue(doc: TextDocument, position: Position): { text: string; start: Position } | undefined {
  const line = doc.getText({ start: { line: position.line, character: 0 }, end: position });
  const m = /:\s*["']?([^"'#\s]*)$/.exec(line);
  if (m === null) return undefined;
  const text = m[1] ?? '';
  return { text, start: { line: position.line, character: position.character - text.length } };
}

/** Completion items for a path value at the cursor, or undefined when the cursor is not on one. */
export async function completePath(doc: TextDocument, position: Position, baseDir: string): Promise<CompletionItem[] | undefined> {
  const cursor = cursorContext(doc.getText(), doc.offsetAt(position));
  if (cursor.kind !== 'value') return undefined;
  const kind = schemaAt(cursor.path as KeyPath)?.path_kind;
  const typed = kind === undefined ? undefined : typedValue(doc, position);
  if (kind === undefined || typed === undefined) return undefined;
  const slash = typed.text.lastIndexOf('/');
  const folderPart = typed.text.slice(0, slash + 1);
  const dir = isAbsolute(folderPart) ? folderPart || '/' : join(baseDir, folderPart);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const wanted = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (kind === 'tasks-file' && e.isFile() && /\.jsonl$/i.test(e.name))))
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name))
    .slice(0, maxEntries);
  const range = { start: typed.start, end: position };
  return wanted.map((e, i) => {
    const folder = e.isDirectory();
    const value = `${folderPart}${e.name}${folder ? '/' : ''}`;
    const item: CompletionItem = {
      label: `${e.name}${folder ? '/' : ''}`,
      kind: folder ? CompletionItemKind.Folder : CompletionItemKind.File,
      detail: folder ? (kind === 'folder' ? 'folder' : 'folder: pick a task file inside') : 'task file',
      filterText: value,
      sortText: String(i).padStart(4, '0'),
      textEdit: { range, newText: folder && kind === 'folder' ? value.replace(/\/$/, '') : value },
    };
    // Accepting a folder of a task-file path asks for the next level at once.
    if (folder && kind === 'tasks-file') item.command = { title: 'Suggest', command: 'editor.action.triggerSuggest' };
    return item;
  });
}
