/**
 * JSON rows: one object, a list of objects, or an object wrapping the list. JSON files are parsed
 * whole (they are small; larger data belongs in JSONL), and a parse error names its line and column.
 */
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { findSyntaxError } from '../tasks/index.js';
import { DatasetInputError, describeValue, errorCode, firstInvalidUtf8, isAbort, utf8Hint, type SourceItem, type SourcePlace } from './sourceItems.js';
import { isRecord } from '../util/isRecord.js';
import { errorMessage } from '../util/errors.js';

/** JSON files are parsed whole; larger ones should be JSONL, which streams. */
const maxJsonBytes = 256 * 1024 * 1024;
/** Keys under which a JSON file may wrap its list of rows, checked in this order. */
const wrapperKeys = ['instances', 'tasks', 'data', 'rows'] as const;

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

async function jsonBytes(file: string, size: number, gzip: boolean, signal: AbortSignal | undefined): Promise<Buffer> {
  const tooLarge = () =>
    new DatasetInputError(
      'dataset/too-large',
      { file },
      `holds more than ${maxJsonBytes / 1024 / 1024} MiB of JSON, which is read whole; convert it to JSONL (one object per line), which is read as a stream.`,
    );
  if (!gzip && size > maxJsonBytes) throw tooLarge();
  let bytes: Buffer;
  try {
    bytes = await readFile(file, signal === undefined ? {} : { signal });
  } catch (error) {
    if (isAbort(error)) throw new DatasetInputError('dataset/aborted', { file }, 'reading was interrupted.');
    throw new DatasetInputError('dataset/unreadable', { file }, `cannot be read (${errorMessage(error)}). Check the file and its permissions.`);
  }
  if (!gzip) return bytes;
  try {
    return await promisify(gunzip)(bytes, { maxOutputLength: maxJsonBytes });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new DatasetInputError(
      'dataset/corrupt-gzip',
      { file },
      `the gzip data is damaged or cut short (${errorMessage(error)}). Download or compress the file again.`,
    );
  }
}

function decodeJsonText(file: string, bytes: Buffer): string {
  let body = bytes;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
  if (!isUtf8(body)) {
    const offset = firstInvalidUtf8(body);
    const before = body.toString('utf8', 0, offset);
    const { line, column } = lineAndColumn(before, before.length);
    throw new DatasetInputError('dataset/non-utf8', { file, line }, `the file is not valid UTF-8 here. ${utf8Hint}`, column);
  }
  return body.toString('utf8');
}

function parseJsonText(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const syntax = findSyntaxError(text);
    if (syntax === undefined) throw new DatasetInputError('dataset/invalid-json', { file }, `is not valid JSON (${errorMessage(error)}). Fix the file.`);
    const { line, column } = lineAndColumn(text, syntax.offset);
    // The scanner speaks of lines because it was written for JSONL; here the value is the whole file.
    const message = syntax.message.replace('end of line', 'end of file').replace('; each line must hold exactly one value', '');
    throw new DatasetInputError('dataset/invalid-json', { file, line }, `is not valid JSON: ${message} Fix the file at this place.`, column);
  }
}

/** Reads and parses a JSON file; a file that is not JSON, or holds no objects, rejects here. */
export async function readJson(file: string, size: number, gzip: boolean, signal: AbortSignal | undefined): Promise<SourceItem[]> {
  const value = parseJsonText(file, decodeJsonText(file, await jsonBytes(file, size, gzip, signal)));
  let list: unknown[];
  let listName = 'the list';
  if (Array.isArray(value)) list = value;
  else if (isRecord(value)) {
    const key = wrapperKeys.find((k) => Array.isArray(value[k]));
    if (key === undefined) return [{ kind: 'row', value, place: { file } }];
    list = value[key] as unknown[];
    listName = `\`${key}\``;
  } else {
    throw new DatasetInputError(
      'dataset/not-an-object',
      { file },
      `holds ${describeValue(value)}; expected one JSON object, a list of objects, or an object with a list under ${wrapperKeys.map((k) => `\`${k}\``).join(', ')}.`,
    );
  }
  return list.map((item, index): SourceItem => {
    const place: SourcePlace = { file, item: index };
    if (isRecord(item)) return { kind: 'row', value: item, place };
    return {
      kind: 'problem',
      place,
      code: 'dataset/not-an-object',
      message: `Item ${index} of ${listName} is ${describeValue(item)}; each item must be one JSON object.`,
    };
  });
}
