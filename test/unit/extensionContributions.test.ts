/**
 * The manifest and the code agree: every command the code registers is contributed with its title
 * and category, menus name only our commands and our context key, and the default globs activate
 * the extension.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  activeFileKindContextKey,
  commandCategory,
  commandIds,
  commandTitles,
  qualifiedWalkthroughId,
  resolvedConfigScheme,
  viewCommands,
  viewContainerId,
  viewIds,
  walkthroughId,
} from '../../extension/src/contributions.js';
import { defaultClientSettings } from '../../extension/src/clientSettings.js';

interface CommandContribution {
  command: string;
  title: string;
  category?: string;
}
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
interface Manifest {
  activationEvents: string[];
  contributes: {
    commands: CommandContribution[];
    menus: Record<string, MenuItem[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    viewsWelcome: { view: string; contents: string }[];
    walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown?: string }; completionEvents: string[] }[] }[];
  };
  publisher: string;
  name: string;
}

const manifest = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as Manifest;

describe('package.json contributions', () => {
  test('contributes exactly the commands the extension registers, with their titles and category', () => {
    const expected = [
      ...Object.entries(commandIds).map(([name, command]) => ({
        command,
        title: commandTitles[name as keyof typeof commandIds],
        category: commandCategory,
      })),
      ...Object.values(viewCommands).map(({ id, title }) => ({ command: id, title, category: commandCategory })),
    ];
    const actual = manifest.contributes.commands
      .filter((c) => c.command.startsWith('graphPlanner.'))
      .map(({ command, title, category }) => ({ command, title, category }));
    assert.deepEqual(actual, expected);
  });

  test('menus name only contributed commands', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) assert.ok(contributed.has(item.command), `${menu}: ${item.command}`);
    }
  });

  test('config commands are offered only on files the server checks', () => {
    const menus = manifest.contributes.menus;
    for (const menu of ['commandPalette', 'editor/title', 'editor/context']) {
      for (const item of menus[menu] ?? []) {
        if ([commandIds.checkConfig, commandIds.showResolvedConfig, commandIds.showExperimentOverview].some((id) => id === item.command)) {
          assert.match(item.when ?? '', new RegExp(activeFileKindContextKey.replace('.', '\\.')), `${menu}: ${item.command}`);
        }
      }
    }
  });

  test('the activity bar holds the Tasks, Containers and Runs views, each with a welcome message', () => {
    const { viewsContainers, views, viewsWelcome } = manifest.contributes;
    const container = viewsContainers.activitybar.find((c) => c.id === viewContainerId);
    assert.ok(container, 'the Graph Planner container is in the activity bar');
    assert.ok(existsSync(resolve(__dirname, '../../', container.icon)), `its icon ${container.icon} exists`);
    assert.deepEqual(
      (views[viewContainerId] ?? []).map((v) => v.id),
      [viewIds.tasks, viewIds.containers, viewIds.runs],
    );
    for (const id of Object.values(viewIds))
      assert.ok(
        viewsWelcome.some((w) => w.view === id),
        `${id} has a welcome message`,
      );
  });

  test('item commands are hidden from the command palette, and item menus name a view and an item kind', () => {
    const hidden = new Set((manifest.contributes.menus['commandPalette'] ?? []).filter((i) => i.when === 'false').map((i) => i.command));
    for (const item of manifest.contributes.menus['view/item/context'] ?? []) {
      assert.match(item.when ?? '', /^view == graphPlanner\.\w+ && viewItem =~ \/\^\w+/, item.command);
      assert.ok(hidden.has(item.command), `${item.command} needs an item, so the palette hides it`);
    }
  });

  test('the default globs and the resolved view scheme activate the extension', () => {
    const globs = [...defaultClientSettings.experimentGlobs, ...defaultClientSettings.datasetGlobs];
    for (const glob of globs) assert.ok(manifest.activationEvents.includes(`workspaceContains:${glob}`), glob);
    assert.ok(manifest.activationEvents.includes(`onFileSystem:${resolvedConfigScheme}`));
  });

  test('the Getting Started walkthrough has the four steps, each a button of ours that completes it, with its page beside', () => {
    const [walkthrough, ...others] = manifest.contributes.walkthroughs;
    assert.equal(others.length, 0);
    assert.equal(walkthrough?.id, walkthroughId);
    assert.equal(qualifiedWalkthroughId, `${manifest.publisher}.${manifest.name}#${walkthroughId}`);
    const sampleCommands = [commandIds.sampleOpenConfig, commandIds.sampleRollout, commandIds.sampleOpenEpisode, commandIds.sampleTrain];
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['editConfig', 'launch', 'episode', 'train'],
    );
    walkthrough.steps.forEach((step, i) => {
      const command = sampleCommands[i] ?? '';
      // A link alone on the description's last line is what VS Code draws as the step's button.
      assert.match(step.description.split('\n').at(-1) ?? '', new RegExp(`^\\[[^\\]]+\\]\\(command:${command.replace(/\./g, '\\.')}\\)$`), step.id);
      assert.deepEqual(step.completionEvents, [`onCommand:${command}`]);
      assert.ok(existsSync(resolve(__dirname, '../..', step.media.markdown ?? '')), `${step.id}: ${step.media.markdown ?? 'no page'}`);
    });
  });

  test('the empty views link to Getting Started once each, besides their own buttons', () => {
    for (const id of Object.values(viewIds)) {
      const links = manifest.contributes.viewsWelcome
        .filter((w) => w.view === id)
        .map((w) => w.contents.split(`command:${commandIds.openGettingStarted}`).length - 1);
      assert.ok(links.some((n) => n === 1) && links.every((n) => n <= 1), `${id}: ${links.join(', ')}`);
    }
  });

  test('every bundle the build writes for the extension is in the package', () => {
    const build = readFileSync(resolve(__dirname, '../../scripts/build.mjs'), 'utf8');
    const ignore = readFileSync(resolve(__dirname, '../../.vscodeignore'), 'utf8').split('\n');
    const outfiles = [...build.matchAll(/outfile: '(dist\/[\w.-]+\.js)'/g)].map((m) => m[1] ?? '');
    assert.ok(outfiles.includes('dist/episode.js') && outfiles.includes('dist/compare.js'), `the webview pages are built: ${outfiles.join(', ')}`);
    for (const file of outfiles) assert.ok(ignore.includes(`!${file}`), `.vscodeignore keeps ${file} in the .vsix`);
  });
});
