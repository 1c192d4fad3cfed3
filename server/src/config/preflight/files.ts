/**
 * File-system helpers for the disk rules. They report failures as values so that a rule never
 * throws on a missing or unreadable file.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { errorMessage } from '../../util/errors.js';

/** Resolves a config path against the folder the config lives in (absolute paths stay as they are). */
export function resolvePath(baseDir: string, value: string): string {
  return isAbsolute(value) ? value : resolve(baseDir, value);
}

export type Existence = { readonly exists: true; readonly isDirectory: boolean } | { readonly exists: false; readonly reason: string };

export async function existence(path: string): Promise<Existence> {
  try {
    const info = await stat(path);
    return { exists: true, isDirectory: info.isDirectory() };
  } catch (error) {
    return { exists: false, reason: errorCode(error) === 'ENOENT' ? 'does not exist' : `cannot be read (${errorMessage(error)})` };
  }
}

export type JsonRead = { readonly kind: 'missing' } | { readonly kind: 'error'; readonly reason: string } | { readonly kind: 'ok'; readonly value: unknown };

/** Reads and parses a JSON file; a missing file is its own outcome because callers skip it. */
export async function readJson(path: string): Promise<JsonRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? { kind: 'missing' } : { kind: 'error', reason: errorMessage(error) };
  }
  try {
    return { kind: 'ok', value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: 'error', reason: `not valid JSON (${errorMessage(error)})` };
  }
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}
