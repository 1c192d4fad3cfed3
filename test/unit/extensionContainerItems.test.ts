/**
 * What the Containers view shows of our containers, the context values its menus match (checked
 * against the `when` clauses of `package.json`), and the shell it opens.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { viewCommands } from '../../extension/src/contributions.js';
import type { ContainerInfo } from '../../extension/src/serverMessages.js';
import {
  containerContextValue,
  containerDescription,
  containerIcon,
  containerTooltip,
  filterContainers,
  filterDescription,
  formatAge,
  groupByRun,
  reapQuestion,
  removeQuestion,
  runDescription,
  shellCommand,
  shellTerminalName,
} from '../../extension/src/views/containerItems.js';

const now = Date.parse('2026-03-01T12:00:00.000Z');

function container(overrides: Partial<ContainerInfo>): ContainerInfo {
  return {
    id: 'c0ffee0123456789abcdef',
    name: 'focused_panini',
    image: 'graph-planner/base:latest',
    state: 'running',
    status: 'Up 3 minutes',
    run: 'debug-run',
    task: 'sample__off-by-one',
    pid: 4242,
    host: 'box',
    created: '2026-03-01T11:57:00.000Z',
    ownerAlive: true,
    ...overrides,
  };
}

/** The `when` clause of a command's entry in the view item menu (the first, when it has several). */
function itemWhen(command: string): string {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
  const entry = manifest.contributes.menus['view/item/context']?.find((m) => m.command === command);
  assert.ok(entry?.when, `${command} has no view/item/context entry`);
  return entry.when;
}

/** Whether a `viewItem =~ /…/` clause matches a context value. */
function menuShows(command: string, contextValue: string): boolean {
  const match = /viewItem =~ \/(.+)\//.exec(itemWhen(command));
  assert.ok(match?.[1], `no viewItem regex in ${itemWhen(command)}`);
  return new RegExp(match[1]).test(contextValue);
}

test('offers shell and stop on a running container only, and logs, inspect and remove on any', () => {
  const running = containerContextValue(container({}));
  const exited = containerContextValue(container({ state: 'exited', ownerAlive: false }));
  assert.equal(running, 'container state-running owner-alive');
  assert.equal(exited, 'container state-exited owner-dead');
  for (const c of [viewCommands.containerShell, viewCommands.containerStop]) {
    assert.equal(menuShows(c.id, running), true, c.id);
    assert.equal(menuShows(c.id, exited), false, c.id);
  }
  for (const c of [viewCommands.containerLogs, viewCommands.containerInspect, viewCommands.containerRemove]) {
    assert.equal(menuShows(c.id, exited), true, c.id);
    assert.equal(menuShows(c.id, 'containerRun'), false, `${c.id} is not offered on a run's group`);
  }
});

test('groups by run, the run with the newest container first, newest first within a run', () => {
  const groups = groupByRun([
    container({ id: 'a', run: 'old-run', created: '2026-03-01T10:00:00.000Z' }),
    container({ id: 'b', run: 'new-run', created: '2026-03-01T11:00:00.000Z' }),
    container({ id: 'c', run: 'old-run', created: '2026-03-01T10:30:00.000Z' }),
    container({ id: 'd', run: '', created: '2026-03-01T09:00:00.000Z' }),
  ]);
  assert.deepEqual(
    groups.map((g) => [g.run, g.containers.map((c) => c.id)]),
    [
      ['new-run', ['b']],
      ['old-run', ['c', 'a']],
      ['(no run label)', ['d']],
    ],
  );
  assert.equal(
    runDescription({ run: 'x', containers: [container({}), container({ state: 'exited', ownerAlive: false })] }),
    '2 containers · 1 running · 1 orphaned',
  );
});

test("within a run, episodes' containers come by task and attempt, as the Runs view lists the episodes, before the others", () => {
  const at = (episode: string | undefined, created: string) =>
    container({ id: episode ?? 'plain', run: 'r', task: (episode ?? 't').replace(/#\d+$/, ''), created, ...(episode === undefined ? {} : { episode }) });
  const [group] = groupByRun([
    at('t#10', '2026-03-01T10:00:03.000Z'),
    at(undefined, '2026-03-01T10:00:04.000Z'),
    at('t#2', '2026-03-01T10:00:01.000Z'),
    at('s#1', '2026-03-01T10:00:02.000Z'),
  ]);
  assert.deepEqual(
    group?.containers.map((c) => c.id),
    ['s#1', 't#2', 't#10', 'plain'],
  );
});

test('describes a container by state, a gone owner and age before its image, with an icon to match', () => {
  assert.equal(containerDescription(container({}), now), 'running · 3m · graph-planner/base:latest');
  assert.equal(containerDescription(container({ state: 'exited', ownerAlive: false }), now), 'exited · owner gone · 3m · graph-planner/base:latest');
  assert.equal(containerIcon(container({})).id, 'vm-running');
  assert.equal(containerIcon(container({ ownerAlive: false })).id, 'warning');
  const tooltip = containerTooltip(container({ ownerAlive: false }), now);
  assert.match(tooltip, /\*\*Owner:\*\* pid 4242 on box, gone: Reap Orphaned Containers removes it/);
  assert.match(tooltip, /\*\*Id:\*\* c0ffee012345/);
  assert.equal(formatAge('2026-03-01T09:00:00.000Z', now), '3h');
  assert.equal(formatAge('not a time', now), '?');
});

test('names the Ray node of a container a sandbox host made, and says nothing of a node otherwise', () => {
  const onNode = container({ node: 'worker-2' });
  assert.equal(containerDescription(onNode, now), 'running · 3m · node worker-2 · graph-planner/base:latest');
  // Markdown escapes the hyphen.
  assert.ok(containerTooltip(onNode, now).endsWith('**Ray node:** worker\\-2'), containerTooltip(onNode, now));
  assert.doesNotMatch(containerTooltip(container({}), now), /Ray node/);
  // A Ray node id is 56 hex digits: the description shows its first 8, the tooltip all of it.
  const rayId = '0c1d2e3f'.repeat(7);
  assert.equal(
    containerDescription(container({ node: rayId, ownerAlive: false }), now),
    'running · owner gone · 3m · node 0c1d2e3f… · graph-planner/base:latest',
  );
  assert.ok(containerTooltip(container({ node: rayId }), now).endsWith(`**Ray node:** ${rayId}`));
});

test('opens bash (or sh) in the container with docker exec, in a terminal named for the task', () => {
  const { program, args } = shellCommand(container({}));
  assert.equal(program, 'docker');
  assert.deepEqual(args.slice(0, 4), ['exec', '-it', 'c0ffee0123456789abcdef', 'sh']);
  assert.match(args.at(-1) ?? '', /command -v bash.*exec bash.*exec sh/);
  assert.equal(shellTerminalName(container({})), 'Graph Planner: sample__off-by-one (c0ffee012345)');
});

test('asks before removing and before reaping, naming what goes', () => {
  assert.match(removeQuestion(container({})), /sample__off-by-one \(c0ffee012345, run debug-run\)\? It is running/);
  assert.equal(reapQuestion([container({})]), undefined, 'nothing to ask when no owner is gone');
  assert.equal(
    reapQuestion([container({ ownerAlive: false }), container({ ownerAlive: false, run: 'r2' })]),
    'Remove 2 containers whose owner process is gone (runs debug-run, r2)?',
  );
});

test('the workspace filter shows the containers of this workspace’s runs and counts the others as hidden', () => {
  const mine = container({ id: 'a', inWorkspace: true });
  const theirs = container({ id: 'b', inWorkspace: false });
  const old = container({ id: 'c' });
  const on = filterContainers([mine, theirs, old], true);
  assert.deepEqual([on.shown.map((c) => c.id), on.hidden], [['a'], 2]);
  const off = filterContainers([mine, theirs, old], false);
  assert.deepEqual([off.shown.map((c) => c.id), off.hidden], [['a', 'b', 'c'], 0]);
  assert.equal(filterDescription(true, 2), "this workspace's runs · 2 hidden");
  assert.equal(filterDescription(true, 0), "this workspace's runs");
  assert.equal(filterDescription(false, 0), "every run's containers");
});
