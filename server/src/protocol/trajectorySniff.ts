/**
 * Whether a `.json` or `.traj` file opened as text looks like another tool's trajectory, told from
 * its first characters only, so the editor can offer the trajectory viewer without reading or
 * parsing a large file (issue 37). The markers are those `formats/trajectoryFormat.ts` reads from the
 * whole document, each in the place its writer puts it: ATIF's `schema_version` of `ATIF-v1.N`,
 * mini-swe-agent's `trajectory_format` or a list whose first item is a chat message, SWE-agent's
 * `trajectory` list of steps near the top, an Inspect AI log's `version` number followed by its
 * `status` and `eval` (the order Inspect writes them in). Ordinary JSON has none of them. A plain function with no
 * imports, so the extension uses it without bundling a schema.
 */

export type SniffedTrajectoryFormat = 'atif' | 'swe-agent' | 'mini-swe-agent' | 'inspect';

/** The characters read from the start of a file: every marker sits well within them. */
export const sniffChars = 16 * 1024;

export function sniffTrajectoryFormat(prefix: string): SniffedTrajectoryFormat | undefined {
  const head = prefix.slice(0, sniffChars);
  if (!/^\s*[[{]/.test(head)) return undefined;
  if (/"schema_version"\s*:\s*"ATIF-v\d/.test(head)) return 'atif';
  if (/^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:\s*\{/.test(head)) return 'inspect';
  if (/"trajectory_format"\s*:\s*"mini-swe-agent/.test(head) || /^\s*\[\s*\{\s*"role"\s*:\s*"(system|user|assistant)"/.test(head)) return 'mini-swe-agent';
  if (/^\s*\{[^[]{0,400}?"trajectory"\s*:\s*\[\s*\{\s*"(action|response|thought|observation|state|messages|query)"\s*:/.test(head)) return 'swe-agent';
  return undefined;
}
