/** Completion of experiment YAML keys (with docs and the default as a snippet) and values. */
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem } from 'vscode-languageserver';
import { schemaAt, typesOf, type JsonSchemaNode, formatValue } from '../config/index.js';
import type { KeyPath } from '../protocol/index.js';
import { getAt } from '../util/keyPath.js';
import { fieldMarkdown } from './schemaDocs.js';
import { cursorContext } from './yamlCursor.js';

export function completeYaml(text: string, offset: number, existing: unknown): CompletionItem[] {
  const cursor = cursorContext(text, offset);
  if (cursor.kind === 'key') return keyItems(cursor.parent, existing);
  if (cursor.kind === 'value') return valueItems(cursor.path);
  return [];
}

function escapeSnippet(s: string): string {
  return s.replace(/[$}\\]/g, (c) => `\\${c}`);
}

function keyItems(parent: KeyPath, existing: unknown): CompletionItem[] {
  const node = schemaAt(parent);
  if (!node?.properties) return [];
  const present = getAt(existing, parent);
  const taken = new Set(present && typeof present === 'object' ? Object.keys(present) : []);
  return Object.entries(node.properties)
    .filter(([name]) => !taken.has(name))
    .map(([name, child], i) => ({
      label: name,
      kind: typesOf(child).includes('object') ? CompletionItemKind.Module : CompletionItemKind.Property,
      detail: typesOf(child).join(' | '),
      documentation: { kind: MarkupKind.Markdown, value: fieldMarkdown(name, child) },
      insertText: keySnippet(name, child),
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: String(i).padStart(3, '0'),
    }));
}

function keySnippet(name: string, node: JsonSchemaNode): string {
  const types = typesOf(node);
  if (types.includes('object') && node.properties) return `${name}:\n  $0`;
  if (node.enum) return `${name}: \${1|${node.enum.map((v) => escapeSnippet(String(v)).replace(/[,|]/g, '\\$&')).join(',')}|}`;
  if (types.includes('boolean') && types.length === 1) return `${name}: \${1|${node.default === true ? 'true,false' : 'false,true'}|}`;
  if (node.default !== undefined) return `${name}: \${1:${escapeSnippet(formatValue(node.default))}}`;
  return `${name}: $1`;
}

function valueItems(path: KeyPath): CompletionItem[] {
  const node = schemaAt(path);
  if (!node) return [];
  const types = typesOf(node);
  const values: unknown[] = [];
  if (node.enum) values.push(...node.enum);
  if (types.includes('boolean')) values.push(true, false);
  if (types.includes('null')) values.push(null);
  // The default comes first so that accepting the first suggestion never changes behaviour.
  if (node.default !== undefined && (node.default === null || typeof node.default !== 'object')) {
    const i = values.indexOf(node.default);
    if (i >= 0) values.splice(i, 1);
    values.unshift(node.default);
  }
  return values.map((v, i) => ({
    label: formatValue(v),
    kind: CompletionItemKind.Value,
    detail: v === node.default ? 'default' : undefined,
    sortText: String(i).padStart(3, '0'),
    preselect: v === node.default,
  })) as CompletionItem[];
}
