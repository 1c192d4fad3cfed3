/** Path containment, on resolved absolute paths (symbolic links are the caller's to follow first). */
import { isAbsolute, relative, sep } from 'node:path';

/** Whether `path` is `root` or lies under it. */
export function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
