/**
 * The fingerprint of what an image is built from. It is written into the image as a label, and a
 * build is skipped when the label already matches, so it must change whenever anything that
 * shapes the image changes, and only then.
 */
import { createHash } from 'node:crypto';

/** One input file: its path relative to the recipe or context folder, its bytes and its mode. */
export interface HashInput {
  name: string;
  content: Buffer | string;
  /** 0o755 or 0o644: only the executable bit survives a git checkout, so nothing else counts. */
  mode?: number;
  /** The target of a symbolic link; `content` is empty then. */
  linkTarget?: string;
}

/** Bump when the way inputs become an image changes, so that every image is rebuilt once. */
const hashFormat = 'graph-planner-image/1';

/**
 * sha256 over the files (sorted by name, each with its mode and length so that no two file sets
 * can run together into the same bytes) and the named values in `extra` (sorted by key).
 */
export function hashInputs(files: readonly HashInput[], extra: Readonly<Record<string, string>> = {}): string {
  const hash = createHash('sha256');
  hash.update(`${hashFormat}\n`);
  for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    const kind = file.linkTarget === undefined ? `file ${(file.mode ?? 0o644).toString(8)}` : `link ${file.linkTarget}`;
    hash.update(`${file.name}\n${kind}\n${content.length}\n`);
    hash.update(content);
    hash.update('\n');
  }
  for (const key of Object.keys(extra).sort()) hash.update(`${key}=${extra[key] ?? ''}\n`);
  return `sha256:${hash.digest('hex')}`;
}
