/**
 * What the Graph Planner views show in their title bars and when empty, read from the manifest:
 * every title action has a tooltip and an icon of its own in its view (two look-alike arrows are
 * one icon to the eye), only a few frequent ones sit in the bar while the rest go to the "..."
 * menu, and the empty views' welcome shows each launch as a button once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { commandIds, viewIds } from '../../extension/src/contributions.js';

interface Manifest {
  contributes: {
    commands: { command: string; title: string; icon?: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    viewsWelcome: { view: string; when?: string; contents: string }[];
  };
}

const manifest = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as Manifest;
const commandsById = new Map(manifest.contributes.commands.map((c) => [c.command, c]));
const launchCommands: readonly string[] = [commandIds.startRollout, commandIds.startEvaluation, commandIds.startTraining, commandIds.rerunLast];

/** Codicons that draw the same shape at 16 pixels: a person cannot tell one action from the other. */
const lookAlikes: readonly (readonly string[])[] = [['refresh', 'debug-rerun', 'debug-restart', 'sync', 'redo', 'refresh-cw']];
const shapeOf = (icon: string): string => {
  const name = /^\$\(([\w-]+)\)$/.exec(icon)?.[1] ?? icon;
  return lookAlikes.find((family) => family.includes(name))?.[0] ?? name;
};

function titleActions(view: string): { command: string; inline: boolean; when: string }[] {
  return (manifest.contributes.menus['view/title'] ?? [])
    .filter((item) => new RegExp(`\\bview == ${view.replace(/\./g, '\\.')}\\b`).test(item.when ?? ''))
    .map((item) => ({ command: item.command, inline: (item.group ?? '').startsWith('navigation'), when: item.when ?? '' }));
}

/**
 * Whether two when clauses can never hold together. A clause here is a conjunction of context keys,
 * each maybe negated: two exclude each other when one requires a key the other requires to be false.
 */
function excludeEachOther(a: string, b: string): boolean {
  const literals = (when: string) =>
    when
      .split('&&')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  return literals(a).some((l) => literals(b).includes(l.startsWith('!') ? l.slice(1) : `!${l}`));
}

/** The lines of a welcome text that VS Code draws as buttons: a link alone on its line. */
function buttons(contents: string): string[] {
  return contents
    .split('\n')
    .map((line) => /^\[[^\]]+\]\(command:([\w.]+)[^)]*\)$/.exec(line.trim())?.[1])
    .filter((command): command is string => command !== undefined);
}

describe('view title actions', () => {
  for (const view of Object.values(viewIds)) {
    test(`${view}: every action has a title, and no two show the same icon`, () => {
      const actions = titleActions(view);
      assert.ok(actions.length > 0);
      const shapes = new Map<string, string>();
      for (const { command } of actions) {
        const contributed = commandsById.get(command);
        assert.ok(contributed !== undefined && contributed.title.trim() !== '', `${command} has no title, so its button has no tooltip`);
        assert.ok(contributed.icon !== undefined, `${command} has no icon`);
        const shape = shapeOf(contributed.icon);
        assert.equal(shapes.get(shape), undefined, `${command} and ${shapes.get(shape) ?? ''} both look like ${shape} in ${view}`);
        shapes.set(shape, command);
      }
    });

    test(`${view}: at most three actions in the title bar, the rest in its "..." menu`, () => {
      // A toggle is two actions whose when clauses exclude each other: one of them shows at a time.
      const inline = titleActions(view).filter((a) => a.inline);
      const shown = inline.filter((a, i) => !inline.slice(0, i).some((b) => excludeEachOther(a.when, b.when)));
      assert.ok(shown.length <= 3, `${view}: ${shown.map((a) => a.command).join(', ')}`);
    });
  }

  test('the Runs view keeps Start Rollout, Re-run Last and Refresh in the bar and puts evaluation and training in the menu', () => {
    const actions = titleActions(viewIds.runs);
    assert.deepEqual(
      actions.filter((a) => a.inline).map((a) => a.command),
      [commandIds.startRollout, commandIds.rerunLast, 'graphPlanner.runs.refresh'],
    );
    assert.deepEqual(
      actions.filter((a) => !a.inline).map((a) => a.command),
      [commandIds.startEvaluation, commandIds.startTraining],
    );
  });

  test('look-alike icons are one shape', () => {
    assert.equal(shapeOf('$(debug-rerun)'), shapeOf('$(refresh)'));
    assert.notEqual(shapeOf('$(history)'), shapeOf('$(refresh)'));
  });
});

describe('empty views', () => {
  test('a view with several welcome texts shows one at a time: their when clauses exclude each other', () => {
    for (const view of Object.values(viewIds)) {
      const whens = manifest.contributes.viewsWelcome.filter((w) => w.view === view).map((w) => (w.when ?? '').trim());
      for (const [i, a] of whens.entries()) {
        for (const b of whens.slice(i + 1))
          assert.ok(a !== '' && b !== '' && excludeEachOther(a, b), `${view}: '${a}' and '${b}' can both hold, so both texts would show`);
      }
    }
  });

  test('each welcome text has at most one launch button, and Start Rollout is a button in one view only', () => {
    const rolloutButtons: string[] = [];
    for (const w of manifest.contributes.viewsWelcome) {
      const launches = buttons(w.contents).filter((command) => launchCommands.includes(command));
      assert.ok(launches.length <= 1, `${w.view}: ${launches.join(', ')}`);
      if (launches.includes(commandIds.startRollout)) rolloutButtons.push(w.view);
    }
    assert.deepEqual(rolloutButtons, [viewIds.runs]);
  });

  test('the button reader sees a link alone on its line and not one inside a sentence', () => {
    assert.deepEqual(buttons('Text [inline](command:a.b) more.\n[Button](command:c.d)\n[Args](command:e.f?%5B%22x%22%5D)'), ['c.d', 'e.f']);
  });
});
