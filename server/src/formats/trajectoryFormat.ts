/**
 * Which trajectory format a file holds, told from its content (a name says little: ATIF has no
 * fixed extension, and `.json` is everyone's): our JSONL starts with a `start`, `step` or `end`
 * record on its first line; ATIF names an `ATIF-v1.N` schema version (or has `agent` and `steps`);
 * mini-swe-agent's file is a list of chat messages or an object with `messages`; SWE-agent's has
 * `trajectory` or `history` beside `info`.
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
  const version = value['schema_version'];
  if (typeof version === 'string' && version.startsWith('ATIF-')) return 'atif';
  if (typeof value['trajectory_format'] === 'string' && value['trajectory_format'].startsWith('mini-swe-agent')) return 'mini-swe-agent';
  if (Array.isArray(value['trajectory']) || (Array.isArray(value['history']) && !Array.isArray(value['messages']))) return 'swe-agent';
  if (Array.isArray(value['messages'])) return 'mini-swe-agent';
  if (Array.isArray(value['steps']) && isRecord(value['agent'])) return 'atif';
  return undefined;
}

/** What `gp trajectory show` and the viewer say when a file is in no format they read. */
export const formatsRead =
  'a Graph Planner trajectory (JSON Lines starting with a "start" record), ATIF (an object with "schema_version": "ATIF-v1.N"), a SWE-agent .traj (an object with "trajectory" and "info") or a mini-swe-agent .traj.json (a list of messages, or an object with "messages")';
