/**
 * The trajectory viewer's requests (declared in `protocol/episodeView.ts`): watching the
 * trajectories viewers have open (a change is pushed as `episode/changed`), the header and step
 * rows of an episode (only the appended ones when the client already has some), full step records
 * on demand, search, the recorded source of a file, and a patch rebuilt as whole files. The episodes stay parsed in
 * `episodes/episodeFiles.ts` while a viewer has them open.
 */
import {
  episodeChangedNotification,
  episodeCompareParamsSchema,
  episodeCompareRequest,
  episodeOpenParamsSchema,
  episodeOpenRequest,
  episodePatchParamsSchema,
  episodePatchRequest,
  episodeSearchParamsSchema,
  episodeSearchRequest,
  episodeSourceParamsSchema,
  episodeSourceRequest,
  episodeStepsParamsSchema,
  episodeStepsRequest,
  episodeWatchParamsSchema,
  episodeWatchRequest,
  formatLabel,
  type EpisodeCompareResult,
  type EpisodeOpenResult,
  type EpisodePatchResult,
  type EpisodeSearchResult,
  type EpisodeSourceResult,
  type EpisodeStepsResult,
} from '../protocol/index.js';
import { alignEpisodes, episodeHeader, EpisodeWatch, patchImages, recordedSource, runOfTrajectory, stepRow, stepTexts } from '../episodes/index.js';
import {
  EpisodeDocuments,
  openedHeader,
  openedRecords,
  openedRows,
  openedStepCount,
  searchOpened,
  TrajectoryFormatError,
  type OpenedEpisode,
} from '../formats/index.js';
import { errorMessage } from '../util/errors.js';
import type { ServerContext } from './context.js';

/** A search stops after this many matches; the viewer says "N+". */
const searchLimit = 2000;

export function registerEpisodeRequests(server: ServerContext): EpisodeWatch {
  const files = new EpisodeDocuments();
  const { connection } = server;
  const watch = new EpisodeWatch((path) => server.background(connection.sendNotification(episodeChangedNotification, { path })));

  connection.onRequest(episodeOpenRequest, async (raw: unknown): Promise<EpisodeOpenResult> => {
    const { path, knownSteps, sample } = episodeOpenParamsSchema.parse(raw);
    try {
      const started = performance.now();
      const { opened, rewritten } = await files.load(path, sample);
      const ms = performance.now() - started;
      const total = openedStepCount(opened);
      // A long read is worth a line in the log: it is what a person waits for when opening an episode.
      if (ms > 100) connection.console.log(`Trajectory viewer: read ${total} steps of ${path} in ${ms.toFixed(0)} ms.`);
      const appended = !rewritten && knownSteps > 0 && knownSteps <= total;
      const from = appended ? knownSteps : 0;
      const header = openedHeader(path, opened);
      // Only an episode with nothing to step through, or one that failed, needs its run's state.
      const run = total === 0 || (header.outcome?.error ?? null) !== null ? await runOfTrajectory(path) : undefined;
      return { ok: true, header: run === undefined ? header : { ...header, run }, rows: openedRows(opened, from), appended, totalSteps: total };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (error instanceof TrajectoryFormatError) return { ok: false, message: error.message };
      return { ok: false, message: code === 'ENOENT' ? `${path} does not exist any more.` : `${path} cannot be read: ${errorMessage(error)}` };
    }
  });

  connection.onRequest(episodeStepsRequest, async (raw: unknown): Promise<EpisodeStepsResult> => {
    const { path, steps, sample } = episodeStepsParamsSchema.parse(raw);
    return { steps: openedRecords(await openedOf(files, path, sample), steps) };
  });

  connection.onRequest(episodeSearchRequest, async (raw: unknown): Promise<EpisodeSearchResult> => {
    const { path, query, caseSensitive, sample } = episodeSearchParamsSchema.parse(raw);
    const matches = searchOpened(await openedOf(files, path, sample), query, { caseSensitive, limit: searchLimit + 1 });
    return { matches: matches.slice(0, searchLimit), truncated: matches.length > searchLimit };
  });

  connection.onRequest(episodeSourceRequest, async (raw: unknown): Promise<EpisodeSourceResult> => {
    const { path, file } = episodeSourceParamsSchema.parse(raw);
    const opened = await openedOf(files, path);
    // Another tool's trajectory records no reads of ours: there is nothing to rebuild a file from.
    return opened.kind === 'ours' ? recordedSource(opened.model, file) : { text: '', recordedLines: 0 };
  });

  connection.onRequest(episodePatchRequest, async (raw: unknown): Promise<EpisodePatchResult> => {
    const { path, step, candidate } = episodePatchParamsSchema.parse(raw);
    const opened = await openedOf(files, path);
    if (opened.kind !== 'ours')
      return { ok: false, message: 'Patches are shown for Graph Planner episodes only; this trajectory is in another tool’s format.' };
    return patchImages(path, opened.model, { step, candidate });
  });

  connection.onRequest(episodeCompareRequest, async (raw: unknown): Promise<EpisodeCompareResult> => {
    const { left, right } = episodeCompareParamsSchema.parse(raw);
    try {
      // Both are read afresh and not kept: a comparison is a snapshot, and either episode may still be running.
      const fresh = new EpisodeDocuments();
      const [x, y] = await Promise.all([fresh.load(left), fresh.load(right)]);
      // Steps align on our actions; another tool's trajectory has none (our own ATIF export does).
      const foreign = [x, y].find((d) => d.opened.kind === 'foreign')?.opened;
      if (foreign?.kind === 'foreign')
        return {
          ok: false,
          message: `The episodes cannot be compared: comparing reads Graph Planner episodes, and one is a ${formatLabel(foreign.episode.format)} trajectory.`,
        };
      if (x.opened.kind !== 'ours' || y.opened.kind !== 'ours') return { ok: false, message: 'The episodes cannot be compared.' };
      const a = x.opened;
      const b = y.opened;
      const rows = alignEpisodes(a.model, b.model).map((r) => ({
        left: r.left === undefined ? null : stepRow(r.left),
        right: r.right === undefined ? null : stepRow(r.right),
        same: r.same,
        leftTexts: r.left === undefined ? null : stepTexts(r.left),
        rightTexts: r.right === undefined ? null : stepTexts(r.right),
      }));
      return {
        ok: true,
        left: episodeHeader(left, a.model),
        right: episodeHeader(right, b.model),
        rows,
        sameSteps: rows.filter((r) => r.same).length,
        samePatch: a.model.end === undefined || b.model.end === undefined ? null : a.model.end.patch === b.model.end.patch,
      };
    } catch (error) {
      return { ok: false, message: `The episodes cannot be compared: ${errorMessage(error)}` };
    }
  });

  connection.onRequest(episodeWatchRequest, (raw: unknown): null => {
    const { path, watching, viewer } = episodeWatchParamsSchema.parse(raw);
    if (watching) {
      if (!watch.hold(path, viewer)) connection.console.warn(`Trajectory viewer: ${path} cannot be watched; it will not follow new steps.`);
    } else if (watch.release(path, viewer) === 0) files.forget(path);
    return null;
  });
  return watch;
}

/**
 * The episode as last loaded for a viewer; otherwise (a restored diff or source tab whose viewer is
 * closed) read once and not kept, so only episodes a viewer holds stay in memory.
 */
async function openedOf(files: EpisodeDocuments, path: string, sample?: string): Promise<OpenedEpisode> {
  return files.cached(path, sample) ?? (await new EpisodeDocuments().load(path, sample)).opened;
}
