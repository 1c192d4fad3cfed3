/**
 * The code of one (repository, version) group: the release standing for the version, its sdist
 * (cached), and the Python files in it. Every step that can fail says why, and the group's
 * instances are then skipped with that reason.
 */
import type { SourceFile } from '../server/src/graph/index.js';
import type { InstanceGroup } from './localisationData.js';
import { indexProjects } from './localisationData.js';
import { chooseRelease, type ReleasesMap } from './localisationRelease.js';
import { projectReleases, sdistBytes, type Fetched } from './localisationSdist.js';
import { unpackSdist } from './localisationUnpack.js';

export interface GroupSource {
  readonly project: string;
  readonly release: string;
  readonly filename: string;
  /** Set when the release is a substitute for the series' own. */
  readonly note?: string;
  readonly files: SourceFile[];
  /** Bytes fetched from the network for this group (0 when everything was cached). */
  readonly downloadedBytes: number;
  readonly fromCache: boolean;
  readonly fetchSeconds: number;
  readonly unpackSeconds: number;
}

/** Why a group has no code, as a short stable phrase (counted in the report) and the details. */
export interface SourceFailure {
  readonly ok: false;
  readonly code: 'no project' | 'package index unreachable' | 'no release' | 'download failed' | 'unpack failed' | 'unexpected error';
  readonly reason: string;
}

export type SourceOutcome = { readonly ok: true; readonly source: GroupSource } | SourceFailure;

const failure = (code: SourceFailure['code'], reason: string): SourceFailure => ({ ok: false, code, reason });

const seconds = (since: number): number => (performance.now() - since) / 1000;

/**
 * Fetches each group's code; the index's JSON of a project is read once per run, although the
 * next group is fetched while the current one is scored and both may belong to one project.
 */
export function sourceFetcher(cacheDir: string): (group: InstanceGroup) => Promise<SourceOutcome> {
  const projects = new Map<string, Promise<Fetched<ReleasesMap>>>();
  return (group) =>
    groupSource(group, cacheDir, (project) => {
      const known = projects.get(project);
      // Only the first group of a project fetched its JSON; for the others it came from memory.
      if (known !== undefined) return known.then((r) => (r.ok ? { ...r, fromCache: true, downloadedBytes: 0 } : r));
      const releases = projectReleases(project, cacheDir);
      projects.set(project, releases);
      return releases;
    });
}

async function groupSource(group: InstanceGroup, cacheDir: string, releasesOf: (project: string) => Promise<Fetched<ReleasesMap>>): Promise<SourceOutcome> {
  const project = indexProjects[group.repo];
  if (project === undefined) return failure('no project', `${group.repo} has no project on the package index in this benchmark's table`);
  const fetchStart = performance.now();
  const releases = await releasesOf(project);
  if (!releases.ok) return failure('package index unreachable', releases.reason);
  const chosen = chooseRelease(releases.value, group.version);
  if (!chosen.ok) return failure('no release', chosen.reason);
  const { choice } = chosen;
  const bytes = await sdistBytes(choice.file, cacheDir);
  if (!bytes.ok) return failure('download failed', bytes.reason);
  const fetchSeconds = seconds(fetchStart);
  const unpackStart = performance.now();
  const unpacked = await unpackSdist(choice.file.filename, bytes.value);
  if (!unpacked.ok) return failure('unpack failed', unpacked.reason);
  return {
    ok: true,
    source: {
      project,
      release: choice.version,
      filename: choice.file.filename,
      ...(choice.note === undefined ? {} : { note: choice.note }),
      files: unpacked.files,
      downloadedBytes: releases.downloadedBytes + bytes.downloadedBytes,
      fromCache: releases.fromCache && bytes.fromCache,
      fetchSeconds,
      unpackSeconds: seconds(unpackStart),
    },
  };
}
