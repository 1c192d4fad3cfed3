/**
 * The sample repositories of `docker/samples/`: one folder each, holding a `Dockerfile`, the
 * repository in `repo/`, and the intended fix in `gold.diff` for the tests. They are found by
 * listing the folder, so adding a sample needs no code change.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { imageTag, sampleFolderPattern, sampleImageName, type SampleImageName } from '../../protocol/images.js';

/** The folder of `docker/` that holds the samples. */
export const samplesFolderName = 'samples';

/**
 * What a sample's build context sends to the builder: the Dockerfile and the repository, never
 * `gold.diff`, which would hand the fix to whoever opens the image.
 */
export const sampleContextEntries = ['Dockerfile', 'repo'] as const;

export interface SampleImage {
  name: SampleImageName;
  tag: string;
  /** The sample's folder, `docker/samples/<folder>`. */
  dir: string;
}

export interface SampleDiscovery {
  samples: SampleImage[];
  /** Folders that cannot be built, each with the reason, for the build output. */
  skipped: string[];
}

/** The samples under `<dockerDir>/samples/`, sorted by folder name; none when the folder is absent. */
export async function discoverSamples(dockerDir: string): Promise<SampleDiscovery> {
  const root = join(dockerDir, samplesFolderName);
  if (!existsSync(root)) return { samples: [], skipped: [] };
  const entries = await readdir(root, { withFileTypes: true });
  const out: SampleDiscovery = { samples: [], skipped: [] };
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const dir = join(root, entry.name);
    if (!sampleFolderPattern.test(entry.name)) {
      out.skipped.push(`${dir}: a sample folder's name must be lower-case words joined by '-', as it becomes part of the image name.`);
    } else if (!sampleContextEntries.every((name) => existsSync(join(dir, name)))) {
      out.skipped.push(`${dir}: a sample folder needs a Dockerfile and a repo/ folder.`);
    } else {
      const name = sampleImageName(entry.name);
      out.samples.push({ name, tag: imageTag(name), dir });
    }
  }
  return out;
}
