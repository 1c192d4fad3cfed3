/**
 * Localisation on real code: for SWE-bench Lite instances, the graph of the release standing for
 * the instance's version (its sdist from the package index, cached) ranks files and definitions
 * from the problem statement, and recall at 1, 5 and 10 of what the gold patch edits is compared
 * with two BM25 baselines run on the same instances in the same run:
 *
 * - `localisation-files-recall@10`: ours against BM25 over whole files; the goal is 15 points above it;
 * - `localisation-functions-recall@10`: ours against BM25 over functions; the goal is above it.
 *
 * Groups of instances sharing a release are scored one graph at a time, and the next group's sdist
 * is fetched and unpacked while the current one is scored. Every instance's gold, the top ten of
 * each ranker and the ranks of the gold go to `test-artifacts/bench/localisation.json`.
 * Runnable on its own: `npx tsx bench/localisationFigures.ts [--localisation-repos a,b] [--localisation-limit N]`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { groupInstances, loadInstances, selectInstances, type InstanceGroup } from './localisationData.js';
import { scoreGroup, type InstanceRecord, type RankerName } from './localisationRun.js';
import { sourceFetcher, type SourceOutcome } from './localisationSource.js';
import { summarise, summaryDetails, type Summary } from './localisationSummary.js';
import type { BenchResult } from './result.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';
import { errorMessage } from '../server/src/util/errors.js';
import { semanticProvider, type SemanticProvider } from '../server/src/launch/semanticSearch.js';

export interface LocalisationOptions {
  /** Repositories to keep (`owner/name` or `name`); all when null. */
  readonly localisationRepos: ReadonlySet<string> | null;
  /** Most instances, the first in the fixture's order; all when null. */
  readonly localisationLimit: number | null;
  /** False (`--no-embeddings`) leaves the semantic retriever out even where the model is installed. */
  readonly embeddings?: boolean;
}

export const filesFigureName = 'localisation-files-recall@10';
export const functionsFigureName = 'localisation-functions-recall@10';
const filesGoalPoints = 0.15;

const cacheDir = join(repoRoot, '.cache', 'bench', 'sdists');
const reportFile = join(repoRoot, 'test-artifacts', 'bench', 'localisation.json');

/** Per group, what the report keeps: the release and what building and scoring it took. */
interface GroupLog {
  readonly repo: string;
  readonly version: string;
  readonly instances: number;
  readonly release?: string;
  readonly filename?: string;
  readonly note?: string;
  readonly skipped?: string;
  readonly pythonFiles?: number;
  readonly fromCache?: boolean;
  readonly downloadedMegabytes?: number;
  readonly fetchSeconds?: number;
  readonly unpackSeconds?: number;
  readonly graphSeconds?: number;
  readonly embedSeconds?: number;
  readonly baselineIndexSeconds?: number;
  readonly rankSeconds?: Readonly<Record<RankerName, number>>;
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

async function runGroup(
  group: InstanceGroup,
  sourcePromise: Promise<SourceOutcome>,
  semantic: SemanticProvider | undefined,
  log: (line: string) => void,
): Promise<{ records: InstanceRecord[]; entry: GroupLog }> {
  const head = { repo: group.repo, version: group.version, instances: group.instances.length };
  const outcome = await sourcePromise;
  if (!outcome.ok) {
    log(`localisation: ${group.repo} ${group.version}: skipped, ${outcome.reason}`);
    const records = group.instances.map((i): InstanceRecord => ({
      instance_id: i.instance_id,
      repo: i.repo,
      version: i.version,
      filesSkip: outcome.code,
      functionsSkip: outcome.code,
      skipDetail: outcome.reason,
    }));
    return { records, entry: { ...head, skipped: `${outcome.code}: ${outcome.reason}` } };
  }
  const { source } = outcome;
  const { records, timings } = await scoreGroup(group.instances, source.files, source.release, semantic);
  const scored = records.filter((r) => r.rankers !== undefined).length;
  log(
    `localisation: ${group.repo} ${group.version} → ${source.filename}${source.fromCache ? ' (cached)' : ''}, ${source.files.length} files, ` +
      `graph ${timings.graphSeconds.toFixed(1)} s, embeddings ${timings.embedSeconds.toFixed(1)} s, ${scored}/${records.length} scored${source.note === undefined ? '' : ` (${source.note})`}`,
  );
  return {
    records,
    entry: {
      ...head,
      release: source.release,
      filename: source.filename,
      ...(source.note === undefined ? {} : { note: source.note }),
      pythonFiles: source.files.length,
      fromCache: source.fromCache,
      downloadedMegabytes: round(source.downloadedBytes / 1e6, 1),
      fetchSeconds: round(source.fetchSeconds),
      unpackSeconds: round(source.unpackSeconds),
      graphSeconds: round(timings.graphSeconds),
      baselineIndexSeconds: round(timings.baselineIndexSeconds),
      embedSeconds: round(timings.embedSeconds),
      rankSeconds: {
        ours: round(timings.rankSeconds.ours),
        ours_no_embeddings: round(timings.rankSeconds.ours_no_embeddings),
        bm25_files: round(timings.rankSeconds.bm25_files),
        bm25_functions: round(timings.rankSeconds.bm25_functions),
      },
    },
  };
}

function sum(groups: readonly GroupLog[], pick: (g: GroupLog) => number | undefined): number {
  return round(
    groups.reduce((total, g) => total + (pick(g) ?? 0), 0),
    1,
  );
}

function runDetails(groups: readonly GroupLog[], totalSeconds: number): Record<string, number | string> {
  const fetched = groups.filter((g) => g.fromCache !== undefined);
  const downloaded = fetched.filter((g) => g.fromCache === false).length;
  return {
    groups: groups.length,
    cache: downloaded === 0 ? `every sdist cached (${fetched.length})` : `${downloaded} of ${fetched.length} sdists downloaded`,
    download_megabytes: sum(groups, (g) => g.downloadedMegabytes),
    total_seconds: round(totalSeconds, 1),
    fetch_seconds: sum(groups, (g) => g.fetchSeconds),
    unpack_seconds: sum(groups, (g) => g.unpackSeconds),
    graph_build_seconds: sum(groups, (g) => g.graphSeconds),
    embed_seconds: sum(groups, (g) => g.embedSeconds),
    baseline_index_seconds: sum(groups, (g) => g.baselineIndexSeconds),
    rank_seconds_ours: sum(groups, (g) => g.rankSeconds?.ours),
    rank_seconds_bm25_files: sum(groups, (g) => g.rankSeconds?.bm25_files),
    rank_seconds_bm25_functions: sum(groups, (g) => g.rankSeconds?.bm25_functions),
    release_substitutes: groups.flatMap((g) => (g.note === undefined ? [] : [`${g.repo}: ${g.note}`])).join('; ') || 'none',
  };
}

function figures(summary: Summary, details: Record<string, number | string>): FigureOutcome {
  const files = summary.recall.files;
  const functions = summary.recall.functions;
  const results: BenchResult[] = [];
  const notMeasured: Array<{ name: string; reason: string }> = [];
  const ratio = (ours: number, anchor: number): number => (anchor > 0 ? round(ours / anchor) : ours > 0 ? Number.POSITIVE_INFINITY : 1);
  if (files.ours !== undefined && files.bm25_files !== undefined) {
    const ours = files.ours[10];
    const anchor = files.bm25_files[10];
    results.push({
      name: filesFigureName,
      what: `mean recall@10 of the files the gold patch edits, over ${summary.scored.files} SWE-bench Lite instances, on the graph of each instance's release`,
      unit: 'recall',
      ours: round(ours),
      anchor: round(anchor),
      anchorName: 'BM25 over whole files, same run',
      ratio: ratio(ours, anchor),
      goal: `ours - anchor >= ${filesGoalPoints} (15 points above BM25 over files)`,
      pass: ours - anchor >= filesGoalPoints,
      details: { ...details, difference_points: round((ours - anchor) * 100, 1) },
    });
  } else notMeasured.push({ name: filesFigureName, reason: `no instance was scored for files (${details['skipped_files'] ?? ''})` });
  if (functions.ours !== undefined && functions.bm25_functions !== undefined) {
    const ours = functions.ours[10];
    const anchor = functions.bm25_functions[10];
    results.push({
      name: functionsFigureName,
      what: `mean recall@10 of the definitions the gold patch edits (matched by path and qualified name), over ${summary.scored.functions} instances`,
      unit: 'recall',
      ours: round(ours),
      anchor: round(anchor),
      anchorName: 'BM25 over functions, same run',
      ratio: ratio(ours, anchor),
      goal: 'ours > anchor',
      pass: ours > anchor,
      details: Object.fromEntries(
        Object.entries(details).filter(([key]) => key.startsWith('functions_') || key.startsWith('instances_') || key === 'skipped_functions'),
      ),
    });
  } else notMeasured.push({ name: functionsFigureName, reason: `no instance was scored for functions (${details['skipped_functions'] ?? ''})` });
  return { results, notMeasured };
}

export async function benchLocalisation(options: LocalisationOptions, log: (line: string) => void = () => undefined): Promise<FigureOutcome> {
  const started = performance.now();
  const groups = groupInstances(selectInstances(loadInstances(), options.localisationRepos, options.localisationLimit));
  log(`localisation: ${groups.reduce((n, g) => n + g.instances.length, 0)} instances in ${groups.length} (repository, version) groups`);
  const records: InstanceRecord[] = [];
  const groupLogs: GroupLog[] = [];
  const fetchSource = sourceFetcher(cacheDir);
  // The product's own semantic retriever (env.semantic_search: auto): the model when it is installed.
  const semantic = options.embeddings === false ? undefined : semanticProvider('auto', log);
  // A failure nobody foresaw becomes the group's skip reason rather than a crash of the run.
  const fetchGroup = (group: InstanceGroup): Promise<SourceOutcome> =>
    fetchSource(group).catch((error: unknown) => ({ ok: false as const, code: 'unexpected error' as const, reason: errorMessage(error) }));
  let next = groups[0] === undefined ? undefined : fetchGroup(groups[0]);
  for (const [i, group] of groups.entries()) {
    const current = next ?? fetchGroup(group);
    // The next group's sdist is fetched and unpacked while this one's graph is built and scored.
    const following = groups[i + 1];
    next = following === undefined ? undefined : fetchGroup(following);
    const done = await runGroup(group, current, semantic, log);
    records.push(...done.records);
    groupLogs.push(done.entry);
  }
  const totalSeconds = (performance.now() - started) / 1000;
  const summary = summarise(records);
  const details = { ...summaryDetails(summary), ...runDetails(groupLogs, totalSeconds) };
  await mkdir(join(repoRoot, 'test-artifacts', 'bench'), { recursive: true });
  await writeFile(
    reportFile,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), summary: details, groups: groupLogs, instances: records }, null, 1)}\n`,
  );
  log(`localisation: wrote ${join('test-artifacts', 'bench', 'localisation.json')} in ${totalSeconds.toFixed(0)} s`);
  return figures(summary, details);
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const value = (flag: string): string | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const repos = value('--localisation-repos');
  const limit = value('--localisation-limit');
  const localisationLimit = limit === undefined ? null : Number(limit);
  if (localisationLimit !== null && !(Number.isInteger(localisationLimit) && localisationLimit > 0))
    throw new Error(`--localisation-limit needs a positive integer, got ${limit ?? ''}`);
  benchLocalisation({ localisationRepos: repos === undefined ? null : new Set(repos.split(',')), localisationLimit }, (line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
