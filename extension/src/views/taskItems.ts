/**
 * What the Tasks view shows of a dataset file and of a task (its outcome and its certification),
 * and the `gp task test` command line it types into a terminal. Pure functions without `vscode`,
 * so their wording, the context values the menus match and the quoting are unit-tested.
 */
import type { TaskCertification, TaskFileSummary, TaskItem, TaskReadiness } from '../serverMessages.js';
import { visibleLine } from '../../../server/src/protocol/terminalText.js';
import { count, formatCount } from '../countText.js';

/** Tasks fetched per request: a 5,000-task file shows its first 500 and a "Load more…" item. */
export const taskPageSize = 500;

/**
 * A dataset file's row: its file name as the label and its folder (workspace-relative) in the
 * description, after the counts, so a side bar at its default width shows which file it is and how
 * many tasks it has before it cuts anything; the tooltip has the whole path. `relativePath` is the
 * path as `asRelativePath` gives it, with `/` between folders.
 */
export function fileLabel(relativePath: string): { readonly label: string; readonly folder: string | null } {
  const slash = relativePath.lastIndexOf('/');
  return slash < 0 ? { label: relativePath, folder: null } : { label: relativePath.slice(slash + 1), folder: relativePath.slice(0, slash) };
}

/** The file node's description: its tasks (those matching the filter, when one is set), its invalid lines, then its folder. */
export function fileDescription(file: TaskFileSummary, matching: number | null, folder: string | null = null): string {
  const tasks = matching === null ? count(file.tasks, 'task') : `${formatCount(matching)} of ${count(file.tasks, 'task')}`;
  return [tasks, file.invalid > 0 ? `${formatCount(file.invalid)} invalid` : null, folder].filter((part): part is string => part !== null).join(' · ');
}

export function fileTooltip(file: TaskFileSummary): string {
  const invalid = file.invalid > 0 ? `\n${count(file.invalid, 'line')} that are not valid tasks; open the file to see them in the Problems panel.` : '';
  return `${file.path}\n${count(file.tasks, 'task')}${invalid}`;
}

/**
 * The item's context value, which the menus of `package.json` match: `task` first, then
 * `hasInstance` when the task names an instance file that exists, then its outcome.
 */
export function taskContextValue(item: TaskItem): string {
  return [
    'task',
    ...(item.instanceFile === null ? [] : ['hasInstance']),
    `outcome-${item.outcome}`,
    ...(item.certification === null ? [] : [`cert-${item.certification.status}`]),
    ...(item.readiness.problem === null ? [] : ['cannotRun']),
  ].join(' ');
}

export const fileContextValue = 'taskFile';

/**
 * What stops a task, in a few words for a row: the reason's kind, not its sentence (the tooltip has
 * that). Keyed by the server's codes (protocol/taskPreflight.ts).
 */
export const readinessWords: Record<NonNullable<TaskReadiness['problem']>['code'], string> = {
  'no-source': 'no image and no local repository',
  'no-image': 'no image',
  'daemon-unreachable': 'no Docker engine',
  'image-missing': 'image not on this engine',
  'no-local-repo': 'no local repository',
  'local-repo-missing': 'local repository missing',
  'env-not-built': 'environment not built',
};

/**
 * What a person scans the list for, shortest first so a side bar at its default width cuts the
 * least: the certification (`✓ certified`), then what stops the task here in a few words (the row's
 * slashed-circle icon already says that it cannot run; the tooltip says why in a sentence), then
 * what the task is about (its issue title; its repository when it has no issue text). The id is the
 * row's label, and the image and repository are in the tooltip, so neither is repeated.
 */
export function taskDescription(item: TaskItem): string {
  const problem = item.readiness.problem === null ? null : readinessWords[item.readiness.problem.code];
  const certification = item.certification === null ? null : certificationSummary(item.certification);
  return [certification, problem, item.title ?? item.repo].filter((part): part is string => part !== null).join(' · ');
}

/**
 * The row's icon: a task that cannot run here shows that (a slashed circle in the warning colour),
 * since its outcome would not change until it can; otherwise its latest outcome.
 */
export function taskIcon(item: TaskItem): { readonly id: string; readonly color: string } {
  return item.readiness.problem === null ? outcomeIcons[item.outcome] : { id: 'circle-slash', color: 'problemsWarningIcon.foreground' };
}

/** Where the task runs here, for the tooltip: the backend, whether its image is on the engine, or what stops it. */
export function readinessLine(readiness: TaskReadiness): string {
  if (readiness.problem !== null) return `Cannot run here: ${readiness.problem.reason}`;
  const image =
    readiness.imagePresent === true ? ' (its image is on this engine)' : readiness.imagePresent === false ? ' (its image is not on this engine)' : '';
  return `Runs on: ${readiness.backend ?? 'unknown'}${image}`;
}

type CertificationStatus = TaskCertification['status'];

/** Whether a status lets the task be trained on (a flaky task does, without its flaky tests). */
export function isCertified(status: CertificationStatus): boolean {
  return status === 'certified' || status === 'flaky';
}

/** The words of each verdict, as `gp dataset verify` prints them but for a person. */
export const certificationLabels: Record<CertificationStatus, string> = {
  certified: 'certified',
  flaky: 'flaky',
  'gold-fails': 'gold fails',
  'empty-passes': 'empty passes',
  'gold-does-not-apply': 'gold does not apply',
  'gold-protected': 'gold touches protected paths',
  'not-gradable': 'not gradable',
  'no-gold': 'no gold patch',
  'cannot-run': 'cannot run',
  infrastructure: 'verification failed',
};

/** What the verdict means, for the tooltip. */
const certificationMeanings: Record<CertificationStatus, string> = {
  certified: 'unresolved with no patch, fully resolved with its gold patch',
  flaky: 'certified once its flaky tests are left out of grading',
  'gold-fails': 'its gold patch does not resolve it',
  'empty-passes': 'it resolves with no patch at all',
  'gold-does-not-apply': 'its gold patch does not apply at the base commit',
  'gold-protected':
    "its gold patch changes what the grader reads (its tests, the runner's configuration, package metadata, a shadowing module); verify with --allow-protected if the fix really needs it",
  'not-gradable': 'a run of its tests could not be graded',
  'no-gold': 'nothing to certify it with',
  'cannot-run': 'its sandbox could not be opened',
  infrastructure: 'the machine failed, not the task; resuming the verification runs it again',
};

/** The mark before the words: a tick for a task that may be trained on, a cross for one that may not, a question for no answer. */
function certificationMark(status: CertificationStatus): string {
  if (isCertified(status)) return '✓';
  if (status === 'gold-fails' || status === 'empty-passes' || status === 'gold-does-not-apply' || status === 'gold-protected') return '✗';
  return '?';
}

/** Plural of a count, `1 test`, `2 tests`. */
function tests(n: number): string {
  return count(n, 'test');
}

/** The certification in a few words, for the row's description: `✓ certified`, `✓ flaky: 2 tests`, `✗ gold fails: 1 test`. */
export function certificationSummary(c: TaskCertification): string {
  let words = certificationLabels[c.status];
  if (c.status === 'flaky') words = `flaky: ${tests(c.flaky.length)}`;
  else if (c.status === 'gold-fails' && c.failing.length > 0) words = `gold fails: ${tests(c.failing.length)}`;
  return `${certificationMark(c.status)} ${words}`;
}

/** An ISO time as `2026-11-01 10:00 UTC`; anything else as it is. */
export function shownTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m === null ? iso : `${m[1] ?? ''} ${m[2] ?? ''}${iso.endsWith('Z') ? ' UTC' : ''}`;
}

/** At most `limit` test names as Markdown code, then how many more. */
function testList(names: readonly string[], limit = 8): string {
  const shown = names.slice(0, limit).map((n) => `\`${n.replace(/`/g, "'")}\``);
  return names.length > limit ? `${shown.join(', ')}, … and ${names.length - limit} more` : shown.join(', ');
}

/**
 * The tooltip's certification lines, as Markdown: the verdict and what it means, why, the flaky
 * and failing tests, and which verification said so and when. `shownPath` makes a run folder
 * readable (workspace-relative).
 */
export function certificationTooltip(c: TaskCertification, shownPath: (path: string) => string = (p) => p): string[] {
  const repeats = c.repeats > 1 ? `, in each of ${c.repeats} runs` : '';
  const lines = [
    `**Certification: ${escapeMarkdown(certificationLabels[c.status])}** — ${escapeMarkdown(certificationMeanings[c.status])}${escapeMarkdown(repeats)}`,
  ];
  if (c.reason !== null) lines.push(`Why: ${escapeMarkdown(c.reason)}`);
  if (c.flaky.length > 0)
    lines.push(`Flaky tests (${c.flaky.length}${c.status === 'flaky' || c.source === 'row' ? ', left out of grading' : ''}): ${testList(c.flaky)}`);
  if (c.failing.length > 0) lines.push(`Failing with the gold patch (${c.failing.length}): ${testList(c.failing)}`);
  if (c.passingWithoutFix.length > 0)
    lines.push(`${escapeMarkdown('FAIL_TO_PASS')} tests passing without the fix (${c.passingWithoutFix.length}): ${testList(c.passingWithoutFix)}`);
  const where = c.source === 'row' ? `the row’s certification, from ${shownPath(c.run)}` : `${shownPath(c.run)}${c.running ? ' (still running)' : ''}`;
  lines.push(`Verified ${escapeMarkdown(shownTime(c.at))} by ${escapeMarkdown(where)}`);
  return lines;
}

export const outcomeLabels: Record<TaskItem['outcome'], string> = {
  resolved: 'resolved',
  unresolved: 'not resolved',
  error: 'ended with an error',
  never: 'never run',
};

/** The codicon and theme colour of each outcome (the Testing view's colours). */
export const outcomeIcons: Record<TaskItem['outcome'], { readonly id: string; readonly color: string }> = {
  resolved: { id: 'pass', color: 'testing.iconPassed' },
  unresolved: { id: 'error', color: 'testing.iconFailed' },
  error: { id: 'warning', color: 'testing.iconErrored' },
  never: { id: 'circle-large-outline', color: 'testing.iconUnset' },
};

/** Markdown with every character that could start markup escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** The tooltip of a task, as Markdown. `file` is the dataset file as the person sees it (workspace-relative). */
export function taskTooltip(item: TaskItem, file: string, shownPath: (path: string) => string = (p) => p): string {
  const rows: [string, string | null][] = [
    ['Issue', item.title],
    ['Line', `${file}:${item.line + 1}`],
    ['Repository', item.repo],
    ['Image', item.image],
    ['Local repository', item.localRepo],
    ['Instance file', item.instanceFile],
    ['Latest outcome', item.outcomeRun === null ? outcomeLabels[item.outcome] : `${outcomeLabels[item.outcome]} in ${item.outcomeRun}`],
  ];
  const lines = rows.filter((row): row is [string, string] => row[1] !== null).map(([name, value]) => `${name}: ${escapeMarkdown(value)}`);
  const certification =
    item.certification === null
      ? ['Certification: not verified (Verify Tasks… on its file runs gp dataset verify)']
      : certificationTooltip(item.certification, shownPath);
  const readiness =
    item.readiness.problem === null ? escapeMarkdown(readinessLine(item.readiness)) : `$(circle-slash) ${escapeMarkdown(readinessLine(item.readiness))}`;
  return [`**${escapeMarkdown(item.taskId)}**`, '', ...lines, readiness, '', ...certification].join('  \n');
}

/** What the view says while a filter is set. */
export function filterMessage(filter: string, matchingFiles: number, files: number): string {
  if (files === 0) return `No dataset file to filter.`;
  return matchingFiles === 0
    ? `No task's id or repository contains "${filter}".`
    : `Tasks whose id or repository contains "${filter}" (in ${count(matchingFiles, 'file')} of ${formatCount(files)}).`;
}

export interface TaskTestCommand {
  readonly file: string;
  readonly taskId: string;
  readonly patch: string | null;
}

/** `gp task test FILE --task ID [--patch DIFF]` as the terminal runs it. */
export function taskTestArgs(command: TaskTestCommand): string[] {
  return ['task', 'test', command.file, '--task', command.taskId, ...(command.patch === null ? [] : ['--patch', command.patch])];
}

/** The terminal of a task's test runs, one per task. */
export function taskTerminalName(taskId: string): string {
  return `gp task test ${visibleLine(taskId)}`;
}

/** The part of a `runs/changed` push that says whether episodes ended. */
export interface RunsChange {
  readonly changed: readonly { readonly dir: string; readonly episodes: { readonly finished: number } | null }[];
  readonly removed: readonly string[];
}

/**
 * How many episodes each run has finished, to tell a `runs/changed` that may move a task's latest
 * outcome (an episode ended, a run was deleted) from mere progress (a step, an episode starting).
 */
export class FinishedEpisodes {
  private readonly finished = new Map<string, number>();

  /** Records the change; true when it ended an episode or removed a run. */
  update(change: RunsChange): boolean {
    let moved = false;
    for (const dir of change.removed) moved = this.finished.delete(dir) || moved;
    for (const run of change.changed) {
      const now = run.episodes?.finished ?? 0;
      if (now !== (this.finished.get(run.dir) ?? 0)) moved = true;
      this.finished.set(run.dir, now);
    }
    return moved;
  }
}
