/**
 * The rows of the launch review list (issue 27), as plain values: the config's errors first (each
 * opens its place), the start row (blocked while there are errors), the tasks that cannot run on
 * the chosen backend, then each value as the run will really get it, from the server's plan
 * (`launch/launchValues.ts`) and task preflight (`protocol/taskPreflight.ts`). Pure, so what the
 * list says is unit-tested; `launchFlow.ts` turns the rows into quick-pick items.
 */
import type { BlockedTask, LaunchFinding, LaunchValue, NewRunLaunch, TaskPreflightResult } from './serverMessages.js';
import type { LaunchPlanResult } from './serverMessages.js';
import { basename } from 'node:path';
import { readinessWords } from './views/taskItems.js';
import { visibleLine } from '../../server/src/protocol/terminalText.js';

export type ReviewRow =
  | { readonly kind: 'separator'; readonly label: string }
  | { readonly kind: 'error'; readonly label: string; readonly description: string; readonly detail: string; readonly finding: LaunchFinding }
  | { readonly kind: 'more-errors'; readonly label: string; readonly description: string }
  | { readonly kind: 'start'; readonly label: string; readonly description: string; readonly detail: string; readonly blocked: boolean }
  | { readonly kind: 'preflight'; readonly label: string; readonly description: string; readonly detail: string; readonly blocked: readonly BlockedTask[] }
  | { readonly kind: 'value'; readonly key: ValueKey; readonly label: string; readonly description: string; readonly detail: string | undefined };

export type ValueKey = 'config' | 'dataset' | 'agent' | 'backend' | 'parallel' | 'attempts' | 'sets';

/** Errors listed in the list itself; the Problems panel has the rest. */
const listedErrors = 5;

/** Where a finding is, as a person reads it: `configs/x.yaml:4:12`, or the flag that set it. */
export function findingPlace(finding: LaunchFinding, rel: (path: string) => string): string {
  if (finding.flag !== null) return finding.flag;
  if (finding.file === null) return '';
  return finding.line === null ? rel(finding.file) : `${rel(finding.file)}:${finding.line + 1}:${(finding.character ?? 0) + 1}`;
}

/** A launch finding's message is `code: text` (launch/launchPlan.ts); the code is shown apart. */
function splitCode(message: string): { code: string; text: string } {
  const m = /^([a-z]+\/[\w-]+): (.*)$/s.exec(message);
  return m === null ? { code: '', text: message } : { code: m[1] ?? '', text: m[2] ?? '' };
}

/** The message naming the first error in full, for a launch that is blocked. */
export function blockedMessage(errors: readonly LaunchFinding[], rel: (path: string) => string): string {
  const first = errors[0];
  if (first === undefined) return '';
  const place = findingPlace(first, rel);
  const count = errors.length === 1 ? 'an error' : `${errors.length} errors`;
  return `Launch blocked: the config has ${count}. First${place === '' ? '' : ` (${place})`}: ${first.message}`;
}

/** A value as the review shows it: what the run gets and who set it, or the value as written and its error. */
export function shownValue(value: LaunchValue | undefined, chosen: string | number | null): { description: string; error: string | null } {
  if (value === undefined) return { description: chosen === null ? 'from the config' : String(chosen), error: null };
  const text = value.value ?? 'not set';
  const from = value.from === 'flag' ? 'chosen here' : value.from === 'file' ? 'from the config' : 'default';
  return { description: `${text} (${from})`, error: value.error };
}

/** The one-line summary of the tasks that cannot run: `3 of 10 tasks cannot run on local`. */
export function preflightSummary(preflight: TaskPreflightResult, backend: string): string {
  const n = preflight.blocked.length;
  return `${n} of ${preflight.total} task${preflight.total === 1 ? '' : 's'} cannot run on ${backend}`;
}

export interface ReviewInput {
  readonly draft: NewRunLaunch;
  /** The server's plan of the draft; undefined while the draft has no dataset. */
  readonly plan: LaunchPlanResult | undefined;
  readonly preflight: TaskPreflightResult | undefined;
  /** The backend the preflight checked (`auto`, `docker`, `local`), for its row. */
  readonly preflightBackend: string;
  readonly rel: (path: string) => string;
}

export function reviewRows(input: ReviewInput): ReviewRow[] {
  const { draft, plan, preflight, rel } = input;
  const rows: ReviewRow[] = [];
  const errors = plan?.findings.filter((f) => f.severity === 'error') ?? [];
  const verb = draft.kind === 'eval' ? 'evaluation' : 'rollout';
  if (errors.length > 0) {
    rows.push({ kind: 'separator', label: errors.length === 1 ? '1 error: fix it first' : `${errors.length} errors: fix them first` });
    // The message gets the second line, the list's full width; the place and the rule's code head the row.
    for (const finding of errors.slice(0, listedErrors)) {
      const { code, text } = splitCode(finding.message);
      rows.push({
        kind: 'error',
        label: `$(error) ${findingPlace(finding, (p) => basename(p)) || 'a flag'}`,
        description: code,
        detail: visibleLine(text),
        finding,
      });
    }
    if (errors.length > listedErrors)
      rows.push({ kind: 'more-errors', label: `$(list-flat) ${errors.length - listedErrors} more in the Problems panel`, description: '' });
  }
  const files = `${draft.taskFiles.map(rel).join(', ')}${draft.tasks.length > 0 ? ` · tasks ${draft.tasks.join(', ')}` : ''}`;
  if (errors.length > 0)
    rows.push({
      kind: 'start',
      label: `$(circle-slash) Start ${verb}`,
      description: `blocked by ${errors.length === 1 ? 'an error' : `${errors.length} errors`}`,
      detail: files,
      blocked: true,
    });
  else
    rows.push({
      kind: 'start',
      label: `$(play) Start ${verb}`,
      description: draft.taskFiles.length === 0 ? 'pick a dataset first' : '',
      detail: files,
      blocked: false,
    });
  if (preflight !== undefined && preflight.blocked.length > 0) {
    const ids = preflight.blocked.slice(0, 3).map((b) => visibleLine(b.taskId));
    const kinds = [...new Set(preflight.blocked.map((b) => (b.readiness.problem === null ? '' : readinessWords[b.readiness.problem.code])))].filter(
      (k) => k !== '',
    );
    rows.push({
      kind: 'preflight',
      label: `$(warning) ${preflightSummary(preflight, input.preflightBackend)}`,
      description: `${ids.join(', ')}${preflight.blocked.length > 3 ? `, … ${preflight.blocked.length - 3} more` : ''}`,
      detail: `${kinds.join('; ')}: they would fail at once with 0 steps. Choose this line to see each one.`,
      blocked: preflight.blocked,
    });
  }
  rows.push({ kind: 'separator', label: 'Config' });
  rows.push({
    kind: 'value',
    key: 'config',
    label: '$(settings-gear) Experiment',
    description: draft.config === null ? '(defaults, no YAML)' : rel(draft.config),
    detail: undefined,
  });
  rows.push({
    kind: 'value',
    key: 'dataset',
    label: '$(database) Dataset',
    description: draft.taskFiles.length === 0 ? 'none' : draft.taskFiles.map(rel).join(', '),
    detail: undefined,
  });
  const values = plan?.values ?? undefined;
  const value = (key: 'agent' | 'backend' | 'parallel' | 'attempts', icon: string, name: string): ReviewRow => {
    const shown = shownValue(values?.[key], draft[key]);
    return {
      kind: 'value',
      key,
      label: `${shown.error === null ? icon : '$(error)'} ${name}`,
      description: shown.description,
      detail: shown.error === null ? undefined : visibleLine(shown.error),
    };
  };
  rows.push(value('agent', '$(hubot)', 'Agent'), value('backend', '$(server-environment)', 'Backend'), value('parallel', '$(layers)', 'Parallel episodes'));
  if (draft.kind === 'rollout') rows.push(value('attempts', '$(repo-forked)', 'Attempts per task'));
  rows.push({
    kind: 'value',
    key: 'sets',
    label: '$(edit) Overrides (--set)',
    description: draft.sets.length === 0 ? 'none' : draft.sets.join(' '),
    detail: undefined,
  });
  return rows;
}
