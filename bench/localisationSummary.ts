/**
 * The benchmark's numbers from its per-instance records: mean recall per ranker and level over
 * the instances scored at that level, how many were scored, and why the others were not.
 */
import { recallDepths, type Depth } from './localisationScore.js';
import { rankerNames, type InstanceRecord, type LevelScore, type RankerName } from './localisationRun.js';

export type Level = 'files' | 'functions';

export interface Summary {
  readonly selected: number;
  readonly scored: Readonly<Record<Level, number>>;
  /** Mean recall per level, ranker and depth; a ranker that does not rank a level is absent. */
  readonly recall: Readonly<Record<Level, Partial<Record<RankerName, Record<Depth, number>>>>>;
  readonly skipped: Readonly<Record<Level, Readonly<Record<string, number>>>>;
  /** Per repository: instances selected, scored for files, scored for functions. */
  readonly perRepo: Readonly<Record<string, { instances: number; files: number; functions: number }>>;
  /** Hunks by how they were placed in their release's file. */
  readonly hunks: Readonly<Record<string, number>>;
  /** How often each combination of retrievers ran in our ranking. */
  readonly retrievers: Readonly<Record<string, number>>;
}

function levelOf(record: InstanceRecord, ranker: RankerName, level: Level): LevelScore | undefined {
  const score = record.rankers?.[ranker];
  return level === 'files' ? score?.files : score?.functions;
}

function meanOver(records: readonly InstanceRecord[], ranker: RankerName, level: Level): Record<Depth, number> | undefined {
  const scores = records.flatMap((r) => levelOf(r, ranker, level) ?? []);
  if (scores.length === 0 || scores.length !== records.length) return undefined;
  return Object.fromEntries(recallDepths.map((k) => [k, scores.reduce((sum, s) => sum + s.recall[k], 0) / scores.length])) as Record<Depth, number>;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

export function summarise(records: readonly InstanceRecord[]): Summary {
  const scored: Record<Level, InstanceRecord[]> = {
    files: records.filter((r) => r.filesSkip === undefined && r.rankers !== undefined),
    functions: records.filter((r) => r.functionsSkip === undefined && r.rankers?.ours?.functions !== undefined),
  };
  const recall = { files: {}, functions: {} } as Record<Level, Partial<Record<RankerName, Record<Depth, number>>>>;
  for (const level of ['files', 'functions'] as const) {
    for (const ranker of rankerNames) {
      const mean = meanOver(scored[level], ranker, level);
      if (mean !== undefined) recall[level][ranker] = mean;
    }
  }
  const perRepo: Record<string, { instances: number; files: number; functions: number }> = {};
  for (const r of records) {
    const entry = (perRepo[r.repo] ??= { instances: 0, files: 0, functions: 0 });
    entry.instances += 1;
    if (scored.files.includes(r)) entry.files += 1;
    if (scored.functions.includes(r)) entry.functions += 1;
  }
  const hunks: Record<string, number> = {};
  for (const r of records) for (const [how, n] of Object.entries(r.gold?.hunks ?? {})) hunks[how] = (hunks[how] ?? 0) + n;
  return {
    selected: records.length,
    scored: { files: scored.files.length, functions: scored.functions.length },
    recall,
    skipped: {
      files: countBy(records.flatMap((r) => r.filesSkip ?? [])),
      functions: countBy(records.flatMap((r) => r.functionsSkip ?? [])),
    },
    perRepo,
    hunks,
    retrievers: countBy(records.flatMap((r) => (r.retrievers === undefined ? [] : [r.retrievers.join('+')]))),
  };
}

/** `reason (n); reason (n)`, most frequent first, or `none`. */
export function countsText(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? 'none' : entries.map(([reason, n]) => `${reason} (${n})`).join('; ');
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The summary as a figure's flat details. */
export function summaryDetails(summary: Summary): Record<string, number | string> {
  const details: Record<string, number | string> = {
    instances_selected: summary.selected,
    instances_scored_files: summary.scored.files,
    instances_scored_functions: summary.scored.functions,
  };
  for (const level of ['files', 'functions'] as const) {
    for (const [ranker, byDepth] of Object.entries(summary.recall[level])) {
      for (const k of recallDepths) details[`${level}_recall@${k}_${ranker}`] = round3(byDepth[k]);
    }
  }
  details['skipped_files'] = countsText(summary.skipped.files);
  details['skipped_functions'] = countsText(summary.skipped.functions);
  details['per_repo_instances_files_functions'] = Object.entries(summary.perRepo)
    .map(([repo, c]) => `${repo} ${c.instances}/${c.files}/${c.functions}`)
    .join('; ');
  for (const [how, n] of Object.entries(summary.hunks)) details[`hunks_${how.replaceAll(' ', '_').replaceAll('-', '_')}`] = n;
  details['ours_retrievers'] = countsText(summary.retrievers);
  return details;
}
