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
import { foreignFormatOf, formatsRead, looksLikeOurJsonl } from './trajectoryFormat.js';

export interface OpenedLoad {
  readonly opened: OpenedEpisode;
  /** True when the file was replaced since the last load (always, for a whole document that changed): earlier steps are void. */
  readonly rewritten: boolean;
}

/** A file the viewer cannot read as a trajectory (none of its formats, or beyond reading); the message says why. */
export class TrajectoryFormatError extends Error {}

interface Whole {
  readonly stamp: string;
  readonly opened: OpenedEpisode;
}

export class EpisodeDocuments {
  private readonly ours = new EpisodeFiles();
  private readonly whole = new Map<string, Whole>();

  async load(path: string): Promise<OpenedLoad> {
    const handle = await open(path, 'r');
    let text: string;
    let stamp: string;
    try {
      const info = await handle.stat();
      stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
      const kept = this.whole.get(path);
      if (kept?.stamp === stamp) return { opened: kept.opened, rewritten: false };
      // Our JSONL is told from its first line, read on its own; only another tool's file is read whole here.
      const head = Buffer.alloc(Math.min(info.size, 64 * 1024));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const headText = head.subarray(0, bytesRead).toString('utf8');
      const lineEnds = headText.includes('\n') || bytesRead >= info.size;
      text = lineEnds ? headText : await readRest(handle, head.subarray(0, bytesRead), info.size);
      // A `.jsonl` that is no other tool's format is ours, its bad lines shown as problems (a start line still being written, say).
      if (looksLikeOurJsonl(text) || path.endsWith('.jsonl')) {
        if (kept !== undefined) this.whole.delete(path);
        const { model, rewritten } = await this.ours.load(path);
        return { opened: { kind: 'ours', model }, rewritten: rewritten || kept !== undefined };
      }
      if (lineEnds && bytesRead < info.size) text = await readRest(handle, head.subarray(0, bytesRead), info.size);
    } finally {
      await handle.close();
    }
    const opened = openDocument(text, path);
    const changed = this.whole.has(path);
    this.whole.set(path, { stamp, opened });
    this.ours.forget(path);
    return { opened, rewritten: changed };
  }

  /** The episode last loaded, without touching the file. */
  cached(path: string): OpenedEpisode | undefined {
    const whole = this.whole.get(path);
    if (whole !== undefined) return whole.opened;
    const model = this.ours.cached(path);
    return model === undefined ? undefined : { kind: 'ours', model };
  }

  forget(path: string): void {
    this.whole.delete(path);
    this.ours.forget(path);
  }
}

/** The whole file as text, its first bytes already read. */
async function readRest(handle: FileHandle, head: Buffer, size: number): Promise<string> {
  const rest = Buffer.alloc(size - head.length);
  const { bytesRead } = await handle.read(rest, 0, rest.length, head.length);
  return Buffer.concat([head, rest.subarray(0, bytesRead)]).toString('utf8');
}

/** A whole document in another tool's format (or ours, written without its JSONL lines) opened for viewing. */
export function openDocument(text: string, path: string): OpenedEpisode {
  const doc = readJsonDocument(text);
  const name = basename(path);
  const format = foreignFormatOf(doc.value);
  if (format === undefined)
    throw new TrajectoryFormatError(
      `${name} is not a trajectory the viewer reads${doc.syntaxErrors.length > 0 ? ` (${doc.syntaxErrors[0]})` : ''}. It reads ${formatsRead}.`,
    );
  try {
    return format === 'atif' ? readAtif(doc) : format === 'swe-agent' ? readSweAgent(doc, name) : readMiniSweAgent(doc, name);
  } catch (error) {
    // Subagent trajectories embedded thousands deep are checked recursively; say so rather than fail without a word.
    if (error instanceof RangeError) throw new TrajectoryFormatError(`${name} nests too deeply to be read as ${format} (${error.message}).`);
    throw error;
  }
}
