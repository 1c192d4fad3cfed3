/**
 * Which trajectory format a file holds, told from its content (a name says little: ATIF has no
 * fixed extension, and `.json` is everyone's): our JSONL starts with a `start`, `step` or `end`
 * record on its first line; ATIF names an `ATIF-v1.N` schema version (or has `agent` and `steps`);
 * mini-swe-agent's file is a list of chat messages or an object with `messages`; SWE-agent's has
 * `trajectory` or `history` beside `info`; an Inspect AI log has a `version` number and an `eval`
 * naming its task (a `.eval` log is a zip, told from its first bytes).
 */
import type { TrajectoryFormatName } from '../protocol/episodeView.js';
import { isRecord } from '../util/isRecord.js';

/** Whether the first line of a file is one of our trajectory records (or the file is still empty). */
export function looksLikeOurJsonl(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n')).trim();
  if (first === '') return text.trim() === '';
  try {
    const value: unknown = JSON.parse(first);
    return isRecord(value) && (value['type'] === 'start' || value['type'] === 'step' || value['type'] === 'end');
  } catch {
    return false;
  }
}

/** The format of a parsed JSON document, or undefined when it is none the viewer reads. */
export function foreignFormatOf(value: unknown): Exclude<TrajectoryFormatName, 'graph-planner'> | undefined {
  if (Array.isArray(value)) return value.length === 0 || (isRecord(value[0]) && typeof value[0]['role'] === 'string') ? 'mini-swe-agent' : undefined;
  if (!isRecord(value)) return undefined;
  if (isInspectLog(value)) return 'inspect';
  const version = value['schema_version'];
  if (typeof version === 'string' && version.startsWith('ATIF-')) return 'atif';
  if (typeof value['trajectory_format'] === 'string' && value['trajectory_format'].startsWith('mini-swe-agent')) return 'mini-swe-agent';
  if (Array.isArray(value['trajectory']) || (Array.isArray(value['history']) && !Array.isArray(value['messages']))) return 'swe-agent';
  if (Array.isArray(value['messages'])) return 'mini-swe-agent';
  if (Array.isArray(value['steps']) && isRecord(value['agent'])) return 'atif';
  return undefined;
}

/** Whether a parsed JSON document is an Inspect log: a `version` number and an `eval` naming its task. */
export function isInspectLog(value: Record<string, unknown>): boolean {
  const spec = value['eval'];
  return typeof value['version'] === 'number' && isRecord(spec) && typeof spec['task'] === 'string';
}

/** Whether a file's first bytes are a zip's local header (an Inspect `.eval` log). */
export function looksLikeZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** What `gp trajectory show` and the viewer say when a file is in no format they read. */
export const formatsRead =
  'a Graph Planner trajectory (JSON Lines starting with a "start" record), ATIF (an object with "schema_version": "ATIF-v1.N"), a SWE-agent .traj (an object with "trajectory" and "info"), a mini-swe-agent .traj.json (a list of messages, or an object with "messages") or an Inspect AI log (.eval, or .json with "eval" and "samples")';
