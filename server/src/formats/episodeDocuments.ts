/**
 * The trajectory files viewers have open, in any format the viewer reads, kept parsed. Our JSONL
 * goes to `EpisodeFiles` (read incrementally as a running episode grows); another tool's file is
 * one JSON document, read whole and kept until its size, time or inode changes. The format is told
 * from the content (`trajectoryFormat.ts`).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { readJsonDocument } from '../util/jsonDocument.js';
import { readAtif } from './atifRead.js';
import { EpisodeFiles } from '../episodes/index.js';
import { readMiniSweAgent } from './miniSweAgentRead.js';
import type { OpenedEpisode } from './openedEpisode.js';
import { readSweAgent } from './sweAgentRead.js';
import { readInspectEval, readInspectJson } from './inspectRead.js';
import { foreignFormatOf, formatsRead, looksLikeOurJsonl, looksLikeZip } from './trajectoryFormat.js';
import { TrajectoryFormatError } from './trajectoryFormatError.js';

export interface OpenedLoad {
  readonly opened: OpenedEpisode;
  /** True when the file was replaced since the last load (always, for a whole document that changed): earlier steps are void. */
  readonly rewritten: boolean;
}

export { TrajectoryFormatError };

interface Whole {
  readonly stamp: string;
  readonly opened: OpenedEpisode;
}

export class EpisodeDocuments {
  private readonly ours = new EpisodeFiles();
  private readonly whole = new Map<string, Whole>();

  /** `sample`: which episode of a file of many (an Inspect log's sample key); the first when absent. */
  async load(path: string, sample?: string): Promise<OpenedLoad> {
    const key = wholeKey(path, sample);
    const handle = await open(path, 'r');
    let text: string;
    let stamp: string;
    try {
      const info = await handle.stat();
      stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
      const kept = this.whole.get(key);
      if (kept?.stamp === stamp) return { opened: kept.opened, rewritten: false };
      // Our JSONL is told from its first line, read on its own; only another tool's file is read whole here.
      const head = Buffer.alloc(Math.min(info.size, 64 * 1024));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      if (looksLikeZip(head.subarray(0, bytesRead))) {
        const bytes = bytesRead >= info.size ? head.subarray(0, bytesRead) : Buffer.from(await readRestBytes(handle, head.subarray(0, bytesRead), info.size));
        const opened = readInspectEval(bytes, basename(path), sample);
        this.whole.set(key, { stamp, opened });
        return { opened, rewritten: kept !== undefined };
      }
      const headText = head.subarray(0, bytesRead).toString('utf8');
      const lineEnds = headText.includes('\n') || bytesRead >= info.size;
      text = lineEnds ? headText : await readRest(handle, head.subarray(0, bytesRead), info.size);
      // A `.jsonl` that is no other tool's format is ours, its bad lines shown as problems (a start line still being written, say).
      if (looksLikeOurJsonl(text) || path.endsWith('.jsonl')) {
        if (kept !== undefined) this.whole.delete(key);
        const { model, rewritten } = await this.ours.load(path);
        return { opened: { kind: 'ours', model }, rewritten: rewritten || kept !== undefined };
      }
      if (lineEnds && bytesRead < info.size) text = await readRest(handle, head.subarray(0, bytesRead), info.size);
    } finally {
      await handle.close();
    }
    const opened = openDocument(text, path, sample);
    const changed = this.whole.has(key);
    this.whole.set(key, { stamp, opened });
    this.ours.forget(path);
    return { opened, rewritten: changed };
  }

  /** The episode last loaded, without touching the file. */
  cached(path: string, sample?: string): OpenedEpisode | undefined {
    const whole = this.whole.get(wholeKey(path, sample));
    if (whole !== undefined) return whole.opened;
    const model = this.ours.cached(path);
    return model === undefined ? undefined : { kind: 'ours', model };
  }

  forget(path: string): void {
    for (const key of [...this.whole.keys()]) if (key === path || key.startsWith(`${path}\0`)) this.whole.delete(key);
    this.ours.forget(path);
  }
}

/** The cache's key of one episode of a file: the path, and the sample of a file of many. */
function wholeKey(path: string, sample: string | undefined): string {
  return sample === undefined ? path : `${path}\0${sample}`;
}

/** The whole file's bytes, its first bytes already read. */
async function readRestBytes(handle: FileHandle, head: Buffer, size: number): Promise<Buffer> {
  const rest = Buffer.alloc(size - head.length);
  const { bytesRead } = await handle.read(rest, 0, rest.length, head.length);
  return Buffer.concat([head, rest.subarray(0, bytesRead)]);
}

/** The whole file as text, its first bytes already read. */
async function readRest(handle: FileHandle, head: Buffer, size: number): Promise<string> {
  return (await readRestBytes(handle, head, size)).toString('utf8');
}

/** A whole document in another tool's format (or ours, written without its JSONL lines) opened for viewing. */
export function openDocument(text: string, path: string, sample?: string): OpenedEpisode {
  const doc = readJsonDocument(text);
  const name = basename(path);
  const format = foreignFormatOf(doc.value);
  if (format === undefined)
    throw new TrajectoryFormatError(
      `${name} is not a trajectory the viewer reads${doc.syntaxErrors.length > 0 ? ` (${doc.syntaxErrors[0]})` : ''}. It reads ${formatsRead}.`,
    );
  try {
    if (format === 'inspect') return readInspectJson(doc, name, sample);
    return format === 'atif' ? readAtif(doc) : format === 'swe-agent' ? readSweAgent(doc, name) : readMiniSweAgent(doc, name);
  } catch (error) {
    // Subagent trajectories embedded thousands deep are checked recursively; say so rather than fail without a word.
    if (error instanceof RangeError) throw new TrajectoryFormatError(`${name} nests too deeply to be read as ${format} (${error.message}).`);
    throw error;
  }
}
