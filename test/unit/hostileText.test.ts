/**
 * What a dataset line, a model reply or a YAML key can do to a person's terminal (issue 21, items 2
 * and 3): task ids are one printable path segment by schema, with the line and column; every line
 * the real `gp` process prints shows control sequences as escapes (the screen is not cleared, the
 * title not set, the clipboard not written); `gp trajectory show` keeps its own colours and no
 * other. The extension's side (an argument vector, never typed text) is in
 * test/unit/extensionTaskItems.test.ts and test/e2e/workbenchViews.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { firstControlCharacter, terminalSafe, visibleLine, visibleText } from '../../server/src/protocol/terminalText.js';
import { validateLine } from '../../server/src/tasks/index.js';
import { trajectoryShow } from '../../server/src/cli/trajectoryCommands.js';

const repo = resolve(__dirname, '..', '..');
const ESC = '\u001b';
/** Sequences a hostile text would use: clear the screen, set the title, write the clipboard, ring, overwrite a line, reorder it. */
const hostile = `${ESC}[2J${ESC}]0;pwned${'\u0007'}${ESC}]52;c;cm0gLXJmIH4=${'\u0007'}\rhidden\u202eevil`;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gp-hostile-text-'));
}

/** The real `gp` process (stdout and stderr as a pipe, which is what a terminal would be sent). */
function gp(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', require.resolve('tsx'), join(repo, 'server/src/cli/main.ts'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Whether `text` holds a character a terminal acts on, other than the line end. */
function actsOnTerminal(text: string): boolean {
  return [...text].some((c) => {
    const code = c.codePointAt(0) ?? 0;
    return (
      (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)
    );
  });
}

test("control characters are shown as escapes; gp's own colours and line ends pass", () => {
  assert.equal(visibleLine('a\tb\nc'), 'a\\x09b\\x0ac');
  assert.equal(visibleText('a\tb\nc\r\nd'), 'a\tb\nc\r\nd');
  assert.equal(visibleText(hostile), '\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x0dhidden\\u202eevil');
  assert.equal(actsOnTerminal(visibleText(hostile)), false);
  assert.equal(terminalSafe(`${ESC}[1mbold${ESC}[0m ${ESC}[31mred${ESC}[0m`), `${ESC}[1mbold${ESC}[0m ${ESC}[31mred${ESC}[0m`);
  assert.equal(terminalSafe(`${ESC}[8mconcealed${ESC}[0m${ESC}[2J`), `\\x1b[8mconcealed${ESC}[0m\\x1b[2J`);
  assert.deepEqual(firstControlCharacter('ok\u0085'), { char: '\u0085', index: 2, shown: '\\x85' });
  assert.equal(firstControlCharacter('plain id-1'), undefined);
});

test('a task id with a control character, a separator, . or .. is refused at its line and column', () => {
  const cases: [string, RegExp][] = [
    ['bad\u0015\rtouch /tmp/x\r', /control character \\x15 at character 4/],
    ['a\u202eb', /control character \\u202e at character 2/],
    ['a\u0085b', /control character \\x85 at character 2/],
    ['org/repo', /one path segment; this one holds `\/` at character 4/],
    ['org\\repo', /one path segment; this one holds `\\` at character 4/],
    ['..', /cannot be `\.\.`/],
    ['.', /cannot be `\.`/],
  ];
  for (const [id, message] of cases) {
    const line = JSON.stringify({ task_id: id, sandbox: { docker_image: 'img', workdir: '/testbed' } });
    const result = validateLine(line);
    assert.equal(result.hasError, true, JSON.stringify(id));
    const f = result.findings.find((x) => x.code === 'task/schema');
    assert.ok(f, JSON.stringify(id));
    assert.match(f.message, message);
    // A row's findings sit on the key they are about (docs/datasets.md); the message names the character.
    assert.equal(line.slice(f.start, f.end), '"task_id"', "the finding sits on the id's key");
  }
  for (const id of ['django__django-11099', 'R2E-Gym__Lite:train:42', '...', 'a b', 'é-ü-中']) {
    assert.equal(validateLine(JSON.stringify({ task_id: id, sandbox: { docker_image: 'img', workdir: '/testbed' } })).hasError, false, id);
  }
});

test('gp dataset validate and gp config check print hostile ids and key names without acting on the terminal', () => {
  const dir = tempDir();
  const dataset = join(dir, 'tasks.jsonl');
  writeFileSync(
    dataset,
    [
      JSON.stringify({ task_id: `x${hostile}`, sandbox: { docker_image: 'img', workdir: '/testbed' } }),
      JSON.stringify({ task_id: 'fine', sandbox: { docker_image: 'img', workdir: '/testbed' }, [`key${hostile}`]: 1 }),
    ].join('\n') + '\n',
  );
  const validate = gp(dir, 'dataset', 'validate', dataset);
  assert.equal(validate.code, 1, validate.out);
  assert.match(validate.out, /tasks\.jsonl:1:\d+ error task\/schema A task id must be printable; this one holds the control character \\x1b at character 2/);
  assert.match(validate.out, /tasks\.jsonl:2:\d+ .*key\\x1b\[2J\\x1b\]0;pwned\\x07/);
  assert.equal(actsOnTerminal(validate.out), false, validate.out);

  const config = join(dir, 'experiment.yaml');
  writeFileSync(config, `training:\n  "lr\\e[2J\\e]52;c;eA==\\a": 1\n`);
  const check = gp(dir, 'config', 'check', '--no-disk', config);
  // The hostile key is unknown, and an unknown key is an error (config/validate.ts).
  assert.equal(check.code, 1, check.out);
  assert.match(check.out, /lr\\x1b\[2J\\x1b\]52;c;eA==\\x07/);
  assert.equal(actsOnTerminal(check.out), false, check.out);
});

test('gp trajectory show prints a hostile reply and observation as escapes, with its own colours only', async () => {
  const dir = tempDir();
  const lines = readFileSync(join(repo, 'test/fixtures/trajectories/sample-calc-add.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const step = lines.find((l) => l['type'] === 'step') as { action: { thought: string }; observation: { text: string }; response?: string };
  step.action.thought = `thinking${hostile}`;
  step.observation.text = `observed${hostile}`;
  step.response = `reply${hostile}`;
  const file = join(dir, 'hostile.jsonl');
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

  const shown = gp(dir, 'trajectory', 'show', file, '--step', '1');
  assert.equal(shown.code, 0, shown.out);
  assert.match(shown.out, /thought: thinking\\x1b\[2J/);
  assert.match(shown.out, /reply\\x1b\[2J\\x1b\]0;pwned\\x07/);
  assert.equal(actsOnTerminal(shown.out), false, shown.out);

  // In colour (a terminal), the data is escaped where it is painted, and only gp's colours remain.
  const out: string[] = [];
  const code = await trajectoryShow([file, '--step', '1'], { out: (l) => out.push(l), err: (l) => out.push(l) }, dir, true);
  assert.equal(code, 0);
  const text = terminalSafe(out.join('\n'));
  const escapes = [...text.matchAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'))].map((m) => m[0]);
  assert.ok(escapes.length > 0, 'colours were painted');
  assert.equal(actsOnTerminal(text.replace(new RegExp(`${ESC}\\[(?:0|1|2|31|32|33|35|36|90)m`, 'g'), '')), false);
  assert.match(out.join('\n'), /thinking\\x1b\[2J/, 'the data was escaped before the colours were added');
});

test('the local backend says once what it isolates (under bubblewrap) or that it does not, as a gp warning', () => {
  const dir = tempDir();
  const r = gp(
    dir,
    'task',
    'test',
    join(repo, 'datasets/samples.jsonl'),
    '--task',
    'sample-arith-operator',
    '--task',
    'sample-off-by-one',
    '--backend',
    'local',
    '--run-dir',
    join(dir, 'tests'),
  );
  const said = r.out.split('\n').filter((l) => /the local backend (does not isolate|runs task commands under bubblewrap)/.test(l));
  assert.equal(said.length, 1, r.out);
  assert.match(
    said[0] ?? '',
    /^warning: the local backend (does not isolate|runs task commands under bubblewrap: .* so for untrusted tasks prefer sandbox\.backend docker$)/,
  );
});
