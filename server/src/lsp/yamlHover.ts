/** Hover on an experiment YAML key or value: meaning, type, default, allowed range, effective value. */
import { MarkupKind, type Hover } from 'vscode-languageserver';
import { schemaAt, type ConfigCheck } from '../config/index.js';
import type { KeyPath } from '../protocol/index.js';
import { getAt } from '../util/keyPath.js';
import { fieldMarkdown } from './schemaDocs.js';
import { pathAtOffset } from './yamlCursor.js';

export function hoverYaml(check: ConfigCheck, offset: number): Hover | null {
  const at = pathAtOffset(check.source.doc, offset);
  if (!at || at.path.length === 0) return null;
  // Inside a list the field is the list itself.
  const path = at.path.filter((p) => typeof p === 'string') as string[];
  const node = schemaAt(path);
  if (!node) return null;
  const name = path[path.length - 1] ?? '';
  const effective = check.config ? effectiveValue(check.config, path, check.source.value) : undefined;
  return { contents: { kind: MarkupKind.Markdown, value: fieldMarkdown(path.join('.') || name, node, effective) } };
}

function effectiveValue(config: unknown, path: KeyPath, written: unknown): { value: unknown; fromDefault: boolean } | undefined {
  const value = getAt(config, path);
  if (value === undefined) return undefined;
  return { value, fromDefault: getAt(written, path) === undefined };
}
