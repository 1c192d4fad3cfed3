/**
 * What the Tasks view shows of files and tasks, the context values its menus match, and the
 * `gp task test` command line it types into a terminal.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { viewCommands } from '../../extension/src/contributions.js';
import type { TaskCertification, TaskItem } from '../../extension/src/serverMessages.js';
import {
  FinishedEpisodes,
  certificationSummary,
  certificationTooltip,
  escapeMarkdown,
  fileContextValue,
  fileDescription,
  fileLabel,
  filterMessage,
  taskContextValue,
  readinessLine,
  taskDescription,
  taskIcon,
  taskTestArgs,
  taskTerminalName,
  taskTooltip,
} from '../../extension/src/views/taskItems.js';
import { gpDisplayLine, quoteArg } from '../../extension/src/gpCommandLine.js';

const item: TaskItem = {
  taskId: 'astropy__astropy-12907',
  line: 41,
  repo: 'astropy/astropy',
  image: 'sweb.eval.x86_64.astropy__astropy-12907:latest',
  localRepo: null,
  instanceFile: '/ws/datasets/instances/astropy__astropy-12907.json',
  outcome: 'resolved',
  outcomeRun: '/ws/outputs/run-3',
  certification: null,
  title: 'Modeling separability_matrix does not compute separability correctly for nested CompoundModels',
  readiness: { backend: 'docker', imagePresent: true, problem: null },
};

const verdict: TaskCertification = {
  status: 'certified',
  source: 'verification',
  reason: null,
  flaky: [],
  failing: [],
  passingWithoutFix: [],
  repeats: 1,
  run: '/ws/outputs/default-verify-20261101T100000Z',
  at: '2026-11-01T10:00:02.000Z',
  running: false,
};

interface MenuItem {
  command: string;
  when?: string;
}
const manifest = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { contributes: { menus: Record<string, MenuItem[]> } };

/** The `viewItem =~ /…/` regular expression of a command's item menu entry. */
function itemMenuPattern(command: string): RegExp {
  const when = manifest.contributes.menus['view/item/context']?.find((m) => m.command === command)?.when ?? '';
  const source = /viewItem =~ \/(.+)\/$/.exec(when)?.[1];
  assert.ok(source, `${command} has an item menu`);
  return new RegExp(source);
}

describe('Tasks view items', () => {
  test('the menus of package.json offer every task action on a task and the instance file only when there is one', () => {
    const withInstance = taskContextValue(item);
    const without = taskContextValue({ ...item, instanceFile: null, outcome: 'never' });
    assert.equal(withInstance, 'task hasInstance outcome-resolved');
    for (const command of [viewCommands.taskRun, viewCommands.taskTest, viewCommands.taskGoTo, viewCommands.taskCopyId]) {
      assert.match(without, itemMenuPattern(command.id), command.id);
      assert.doesNotMatch(fileContextValue, itemMenuPattern(command.id), `${command.id} is not offered on a file`);
    }
    assert.match(withInstance, itemMenuPattern(viewCommands.taskOpenInstance.id));
    assert.doesNotMatch(without, itemMenuPattern(viewCommands.taskOpenInstance.id));
  });

  test('describes a task by its issue title, its repository when it has none, and never repeats its image', () => {
    assert.equal(taskDescription(item), 'Modeling separability_matrix does not compute separability correctly for nested CompoundModels');
    assert.equal(taskDescription({ ...item, title: null }), 'astropy/astropy');
    assert.equal(taskDescription({ ...item, title: null, repo: null }), '');
  });

  test('a task that cannot run here says why in a few words, with a slashed icon, and its tooltip gives the reason in full', () => {
    const reason = 'Image sweb.eval.x86_64.astropy__astropy-12907:latest is not on this Docker engine. Build it with `gp images build`.';
    const blocked: TaskItem = { ...item, readiness: { backend: 'docker', imagePresent: false, problem: { code: 'image-missing', reason } } };
    assert.equal(taskDescription(blocked), `image not on this engine · ${item.title ?? ''}`);
    // The certification is shorter than the reason, so it comes first and a narrow side bar keeps it.
    assert.equal(taskDescription({ ...blocked, certification: verdict }), `✓ certified · image not on this engine · ${item.title ?? ''}`);
    assert.deepEqual(taskIcon(blocked), { id: 'circle-slash', color: 'problemsWarningIcon.foreground' });
    assert.deepEqual(taskIcon(item), { id: 'pass', color: 'testing.iconPassed' });
    assert.match(taskTooltip(blocked, 'a.jsonl'), /\$\(circle-slash\) Cannot run here: Image sweb\\\.eval/);
    assert.match(taskTooltip(item, 'a.jsonl'), /Runs on: docker \\\(its image is on this engine\\\)/);
    assert.match(taskContextValue(blocked), /\bcannotRun\b/);
    assert.equal(readinessLine({ backend: 'local', imagePresent: null, problem: null }), 'Runs on: local');
  });

  test('a title with markup stays text in the tooltip', () => {
    assert.match(taskTooltip({ ...item, title: '**bold** [link](http://x)' }, 'a.jsonl'), /Issue: \\\*\\\*bold\\\*\\\* \\\[link\\\]\\\(http:\/\/x\\\)/);
  });

  test('describes a file by its tasks, the matches of the filter and its invalid lines', () => {
    const file = { path: '/ws/datasets/big.jsonl', tasks: 4998, invalid: 2 };
    assert.equal(fileDescription(file, null), '4,998 tasks · 2 invalid');
    assert.equal(fileDescription({ ...file, invalid: 0 }, 12), '12 of 4,998 tasks');
    assert.equal(fileDescription({ path: 'x', tasks: 1, invalid: 0 }, null), '1 task');
  });

  test('a file is labelled by its name, with its folder after its counts, so the counts survive a narrow side bar', () => {
    const file = { path: '/ws/datasets/swe/verified.jsonl', tasks: 500, invalid: 1 };
    const { label, folder } = fileLabel('datasets/swe/verified.jsonl');
    assert.deepEqual([label, folder], ['verified.jsonl', 'datasets/swe']);
    assert.equal(fileDescription(file, null, folder), '500 tasks · 1 invalid · datasets/swe');
    assert.equal(fileDescription({ ...file, invalid: 0 }, 3, folder), '3 of 500 tasks · datasets/swe');
    assert.deepEqual(fileLabel('tasks.jsonl'), { label: 'tasks.jsonl', folder: null });
    assert.equal(fileDescription(file, null, null), '500 tasks · 1 invalid');
  });

  test('the tooltip names the line, the image, the instance file and the latest outcome, with markup escaped', () => {
    const tooltip = taskTooltip(item, 'datasets/swe.jsonl');
    assert.match(tooltip, /^\*\*astropy\\_\\_astropy\\-12907\*\*/);
    assert.match(tooltip, /Line: datasets/);
    assert.match(tooltip, /swe\\\.jsonl:42/);
    assert.match(tooltip, /Latest outcome: resolved in \/ws\/outputs\/run\\-3/);
    assert.doesNotMatch(tooltip, /Local repository/);
    assert.match(taskTooltip({ ...item, outcome: 'never', outcomeRun: null }, 'a.jsonl'), /Latest outcome: never run\s/);
    assert.equal(escapeMarkdown('[x](y) *z*'), '\\[x\\]\\(y\\) \\*z\\*');
  });

  test('the Verify Tasks… menu is offered on a dataset file and on no task', () => {
    const pattern = itemMenuPattern(viewCommands.taskFileVerify.id);
    assert.match(fileContextValue, pattern);
    assert.doesNotMatch(taskContextValue({ ...item, certification: verdict }), pattern);
  });

  test('a certified task says so first in its description, and its context value carries the verdict', () => {
    const certified = { ...item, certification: verdict };
    assert.equal(taskDescription(certified), `✓ certified · ${item.title ?? ''}`);
    assert.equal(taskContextValue(certified), 'task hasInstance outcome-resolved cert-certified');
  });

  test('each verdict has its few words: flaky and gold-fails count their tests, failures are crossed, no answer is a question', () => {
    const words = (c: Partial<TaskCertification>) => certificationSummary({ ...verdict, ...c });
    assert.equal(words({ status: 'flaky', flaky: ['t::a', 't::b'] }), '✓ flaky: 2 tests');
    assert.equal(words({ status: 'flaky', flaky: ['t::a'] }), '✓ flaky: 1 test');
    assert.equal(words({ status: 'gold-fails', failing: ['t::a'] }), '✗ gold fails: 1 test');
    assert.equal(words({ status: 'gold-fails' }), '✗ gold fails');
    assert.equal(words({ status: 'empty-passes' }), '✗ empty passes');
    assert.equal(words({ status: 'gold-does-not-apply' }), '✗ gold does not apply');
    assert.equal(words({ status: 'not-gradable' }), '? not gradable');
    assert.equal(words({ status: 'no-gold' }), '? no gold patch');
    assert.equal(words({ status: 'cannot-run' }), '? cannot run');
    assert.equal(words({ status: 'infrastructure' }), '? verification failed');
  });

  test('the tooltip gives the verdict, the reason, the flaky tests, the run and when, with markup escaped', () => {
    const flaky = {
      ...verdict,
      status: 'flaky' as const,
      repeats: 3,
      flaky: ['tests/test_a.py::test_[x]', ...Array.from({ length: 9 }, (_, i) => `t::n${i}`)],
      running: true,
    };
    const lines = certificationTooltip(flaky, (p) => p.replace('/ws/', ''));
    assert.match(lines[0] ?? '', /^\*\*Certification: flaky\*\* — certified once its flaky tests are left out of grading, in each of 3 runs$/);
    assert.match(lines.join('\n'), /Flaky tests \(10, left out of grading\): `tests\/test_a\.py::test_\[x\]`, `t::n0`/);
    assert.match(lines.join('\n'), /… and 2 more/);
    assert.match(lines.at(-1) ?? '', /^Verified 2026\\-11\\-01 10:00 UTC by outputs\/default\\-verify\\-20261101T100000Z \\\(still running\\\)$/);
    const notGradable = certificationTooltip({ ...verdict, status: 'not-gradable', reason: 'pytest exited 4: *no tests ran*' });
    assert.ok(notGradable.includes('Why: pytest exited 4: \\*no tests ran\\*'), notGradable.join('\n'));
    const row = certificationTooltip({ ...verdict, source: 'row', run: '../outputs/v1' });
    assert.match(row.at(-1) ?? '', /by the row’s certification, from \\\.\\\.\/outputs\/v1$/);
    assert.match(taskTooltip(item, 'a.jsonl'), /Certification: not verified/);
  });

  test('says what the filter shows', () => {
    assert.equal(filterMessage('astropy', 1, 3), 'Tasks whose id or repository contains "astropy" (in 1 file of 3).');
    assert.equal(filterMessage('zzz', 0, 3), `No task's id or repository contains "zzz".`);
  });
});

describe('gp task test command line', () => {
  test('runs the CLI on the file and task, with the patch when one is chosen, as one argument each', () => {
    assert.deepEqual(taskTestArgs({ file: '/ws/datasets/a.jsonl', taskId: 'django__django-1', patch: null }), [
      'task',
      'test',
      '/ws/datasets/a.jsonl',
      '--task',
      'django__django-1',
    ]);
    assert.deepEqual(taskTestArgs({ file: '/ws/my data/a.jsonl', taskId: "it's; $(touch x)", patch: '/tmp/fix.diff' }), [
      'task',
      'test',
      '/ws/my data/a.jsonl',
      '--task',
      "it's; $(touch x)",
      '--patch',
      '/tmp/fix.diff',
    ]);
  });

  test('the line the terminal shows quotes every argument and shows control characters as escapes', () => {
    assert.equal(gpDisplayLine(['task', 'test', '/ws/a.jsonl', '--task', 'django__django-1']), 'gp task test /ws/a.jsonl --task django__django-1');
    assert.equal(gpDisplayLine(['--task', "it's $(calc) `x`"]), `gp --task 'it'\\''s $(calc) \`x\`'`);
    const hostile = gpDisplayLine(['--task', 'x\u0015\rtouch /tmp/pwned\r\u001b]52;c;aGk=\u0007']);
    assert.ok(![...hostile].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), 'no control character reaches the terminal');
    assert.equal(hostile, "gp --task 'x\\x15\\x0dtouch /tmp/pwned\\x0d\\x1b]52;c;aGk=\\x07'");
    assert.equal(quoteArg('plain-arg_1.txt'), 'plain-arg_1.txt');
  });

  test('a task terminal is named for the task with control characters shown', () => {
    assert.equal(taskTerminalName('sample-calc-add'), 'gp task test sample-calc-add');
    assert.equal(taskTerminalName('a\u001b[2Jb'), 'gp task test a\\x1b[2Jb');
  });
});

describe('finished episodes', () => {
  const run = (dir: string, finished: number | null) => ({ dir, episodes: finished === null ? null : { total: 5, finished, resolved: 0, errored: 0 } });

  test('an ended episode or a removed run may move an outcome; progress alone does not', () => {
    const tracker = new FinishedEpisodes();
    const update = (changed: ReturnType<typeof run>[], removed: string[] = []) => tracker.update({ changed, removed });
    assert.equal(update([run('/o/r1', 0)]), false, 'a run that started with nothing finished');
    assert.equal(update([run('/o/r1', 0)]), false, 'a step');
    assert.equal(update([run('/o/r1', 1)]), true, 'an episode ended');
    assert.equal(update([run('/o/r1', 1), run('/o/r2', null)]), false);
    assert.equal(update([], ['/o/r1']), true, 'a run deleted');
    assert.equal(update([], ['/o/unknown']), false);
  });
});
