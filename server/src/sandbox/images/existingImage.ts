/** Looking up the image a tag names now, and tidying up the one a rebuild replaced. */
import type Docker from 'dockerode';

/** What a build of one image did, before the caller adds the name, tag and timing. */
export interface BuildOutcome {
  status: 'built' | 'up-to-date';
  id: string;
  message: string;
}

export interface ExistingImage {
  id: string;
  labels: Record<string, string>;
}

function statusCode(error: unknown): number | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { statusCode?: unknown }).statusCode : undefined;
  return typeof code === 'number' ? code : undefined;
}

/** The image `tag` names, or undefined when there is none; other errors (a daemon gone) propagate. */
export async function existingImage(docker: Docker, tag: string): Promise<ExistingImage | undefined> {
  try {
    const info = await docker.getImage(tag).inspect();
    return { id: info.Id, labels: info.Config.Labels ?? {} };
  } catch (error) {
    if (statusCode(error) === 404) return undefined;
    throw error;
  }
}

/**
 * Removes the image a rebuild took the tag from, so rebuilds do not pile up untagged images. It
 * is only an attempt: an image still used by a container, or the parent of another image, stays.
 */
export async function removeReplaced(docker: Docker, oldId: string, newId: string): Promise<void> {
  if (oldId === newId) return;
  try {
    const info = await docker.getImage(oldId).inspect();
    if ((info.RepoTags ?? []).some((t) => t !== '<none>:<none>')) return;
    await docker.getImage(oldId).remove();
  } catch {
    // Still in use or already gone: either way there is nothing to do.
  }
}

/** `graph-planner/base:latest` → repo `graph-planner/base`, tag `latest`. */
export function splitTag(reference: string): { repo: string; tag: string } {
  const colon = reference.lastIndexOf(':');
  if (colon > reference.lastIndexOf('/')) return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  return { repo: reference, tag: 'latest' };
}
