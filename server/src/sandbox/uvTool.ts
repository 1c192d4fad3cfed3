/**
 * Where the project's pinned uv is (`scripts/setup-uv.sh` installs it): the resolver that builds
 * Python environments as of a day. `GP_UV` names another binary; nothing falls back to a `uv` on
 * PATH, whose version (and so whose resolution) would be whatever the machine happens to have.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SandboxError } from './sandbox.js';

/** The uv release scripts/setup-uv.sh installs; recorded with every environment it builds. */
export const uvVersion = '0.13.9';

/** The uv binary, or an error saying how to install it. */
export function uvBinary(): string {
  const given = process.env['GP_UV'];
  if (given !== undefined && given !== '') {
    if (!existsSync(given))
      throw new SandboxError(`GP_UV names ${given}, which does not exist. Point it at a uv binary, or unset it and run scripts/setup-uv.sh.`, 'env-missing');
    return given;
  }
  const pinned = join(process.env['GP_UV_DIR'] ?? join(homedir(), '.cache', 'graph-planner', `uv-${uvVersion}`), 'uv');
  if (!existsSync(pinned)) {
    throw new SandboxError(
      `uv ${uvVersion}, which builds Python environments, is not installed (looked for ${pinned}). Run \`bash scripts/setup-uv.sh\` from the Graph Planner repository (it fetches the pinned wheel from PyPI), then run this again.`,
      'env-missing',
    );
  }
  return pinned;
}

/** `--exclude-newer`'s value for a day: its first instant in UTC, so the machine's time zone does not move it. */
export function excludeNewerOf(day: string): string {
  return `${day}T00:00:00Z`;
}
