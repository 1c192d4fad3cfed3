/**
 * Which release of a project stands for a SWE-bench instance's repository. SWE-bench's `version`
 * names the X.Y series the repository was developing at the instance's base commit, so the first
 * release of that series is the published code closest to it: `X.Y`, else `X.Y.0`, else the lowest
 * `X.Y.z` that has a source distribution. Pure: the caller fetches the package index's releases map.
 */

/** One file of a release, as the package index's JSON API lists it. */
export interface IndexFile {
  readonly filename: string;
  readonly url: string;
  readonly packagetype: string;
  readonly size: number;
  readonly digests: { readonly sha256: string };
  readonly yanked?: boolean;
}

/** Version → its files (the `releases` map of the package index's JSON API). */
export type ReleasesMap = Readonly<Record<string, readonly IndexFile[]>>;

export interface ReleaseChoice {
  readonly version: string;
  readonly file: IndexFile;
  /** Set when the release is not a final release of the series itself, saying what was taken instead. */
  readonly note?: string;
}

export type ReleaseOutcome = { readonly ok: true; readonly choice: ReleaseChoice } | { readonly ok: false; readonly reason: string };

interface Version {
  readonly text: string;
  readonly release: readonly number[];
  /** 0 for a final (or post) release; below 0 for development and pre-releases, which sort before it. */
  readonly stage: number;
  readonly stageNumber: number;
  readonly post: number;
  readonly dev: number;
}

const versionPattern = /^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$/;
const preStages: Readonly<Record<string, number>> = { a: -3, b: -2, rc: -1 };

/** The version's parts in the index's ordering, or undefined for a spelling we do not order. */
export function parseVersion(text: string): Version | undefined {
  const m = versionPattern.exec(text);
  if (m === null) return undefined;
  const [, release = '', pre, preNumber, post, dev] = m;
  const onlyDev = pre === undefined && post === undefined && dev !== undefined;
  return {
    text,
    release: release.split('.').map(Number),
    stage: pre !== undefined ? (preStages[pre] ?? 0) : onlyDev ? -4 : 0,
    stageNumber: Number(preNumber ?? 0),
    post: post === undefined ? -1 : Number(post),
    dev: dev === undefined ? Number.POSITIVE_INFINITY : Number(dev),
  };
}

export function compareVersions(x: Version, y: Version): number {
  const length = Math.max(x.release.length, y.release.length);
  for (let i = 0; i < length; i++) {
    const d = (x.release[i] ?? 0) - (y.release[i] ?? 0);
    if (d !== 0) return d;
  }
  return x.stage - y.stage || x.stageNumber - y.stageNumber || x.post - y.post || x.dev - y.dev;
}

const isFinal = (v: Version): boolean => v.stage === 0 && v.dev === Number.POSITIVE_INFINITY;

/** The release's source distribution: a gzipped tar first (it unpacks in memory), then a zip. */
export function sdistOf(files: readonly IndexFile[]): IndexFile | undefined {
  const sdists = files.filter((f) => f.packagetype === 'sdist' && f.yanked !== true);
  return sdists.find((f) => f.filename.endsWith('.tar.gz')) ?? sdists.find((f) => f.filename.endsWith('.zip')) ?? sdists[0];
}

/** The release standing for series `X.Y` (SWE-bench's `version`), with a note when it is a substitute. */
export function chooseRelease(releases: ReleasesMap, series: string): ReleaseOutcome {
  const wanted = parseVersion(series);
  if (wanted === undefined || wanted.release.length < 2) return { ok: false, reason: `version ${series} is not of the form X.Y` };
  const [major, minor] = wanted.release;
  const available: Array<{ version: Version; file: IndexFile }> = [];
  for (const [text, files] of Object.entries(releases)) {
    const version = parseVersion(text);
    const file = sdistOf(files);
    if (version !== undefined && file !== undefined) available.push({ version, file });
  }
  available.sort((a, b) => compareVersions(a.version, b.version));
  const inSeries = available.filter(({ version }) => version.release[0] === major && (version.release[1] ?? 0) === minor);
  const finals = inSeries.filter(({ version }) => isFinal(version));
  const first = finals[0];
  if (first !== undefined) {
    const zero = `${series}.0`;
    const own = first.version.text === series || first.version.text === zero;
    const choice = { version: first.version.text, file: first.file };
    return { ok: true, choice: own ? choice : { ...choice, note: `${series} has no ${series} or ${zero} source distribution; took ${first.version.text}` } };
  }
  // A series published only as pre-releases: the latest one is the nearest to the code it became.
  const latestPre = inSeries[inSeries.length - 1];
  if (latestPre !== undefined) {
    return {
      ok: true,
      choice: { version: latestPre.version.text, file: latestPre.file, note: `${series} has only pre-releases; took the latest, ${latestPre.version.text}` },
    };
  }
  // A series never published (its development was released under the next number): the first final release after it.
  const next = available.find(({ version }) => isFinal(version) && compareVersions(version, wanted) > 0);
  if (next !== undefined) {
    return {
      ok: true,
      choice: { version: next.version.text, file: next.file, note: `${series} was never released; took the next release, ${next.version.text}` },
    };
  }
  return { ok: false, reason: `no source distribution of ${series} or later` };
}
