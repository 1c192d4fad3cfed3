/**
 * `gp --help` and bare `gp` through the real program (server/src/cli/main.ts run as a process, the
 * way a person's terminal runs it): a short page with every command under its group, examples and
 * where each command's own options are; bare `gp` prints it to stderr and exits with the usage
 * status, while each command's full help stays where it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import test from 'node:test';
import { commandGroups, commandName, commands, groupLine, type CommandGroup } from '../../server/src/cli/commands.js';
import { exitStatus } from '../../server/src/cli/output.js';

const repo = join(__dirname, '../..');

function gp(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', require.resolve('tsx'), join(repo, 'server/src/cli/main.ts'), ...args], { cwd: repo, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starting the program takes seconds on a busy machine, so `gp --help` runs once for every test. */
let helpRun: ReturnType<typeof gp> | undefined;
const help = (): ReturnType<typeof gp> => (helpRun ??= gp('--help'));

test('gp --help fits a terminal: about 30 lines of at most 81 columns, exit 0, on stdout', () => {
  const { code, out, err } = help();
  assert.equal(code, 0, err);
  const lines = out.trimEnd().split('\n');
  assert.ok(lines.length >= 20 && lines.length <= 32, `${lines.length} lines:\n${out}`);
  for (const line of lines) assert.ok(line.length <= 81, `too wide (${line.length}): ${line}`);
  assert.match(lines[0] ?? '', /^gp \d+\.\d+\.\d+: Graph Planner on the command line/);
});

test('gp --help lists every command once, on its group’s line, the groups in their declared order', () => {
  const { out } = help();
  const titles = Object.values(commandGroups);
  const groupLines = out.split('\n').filter((l) => titles.some((t) => l.startsWith(`  ${t} `)));
  assert.deepEqual(
    groupLines.map((l) => l.trim().split(/\s{2,}/)[0]),
    titles,
    out,
  );
  for (const c of commands) {
    const line = groupLines.find((l) => l.trim().startsWith(commandGroups[c.group]));
    assert.ok(line !== undefined, `no line for ${c.group}`);
    const listed = c.verb === undefined ? new RegExp(`(^|\\s|, )${c.noun}(,|$)`) : new RegExp(`${c.noun} ([a-z]+\\|)*${c.verb}(\\||,|$)`);
    assert.match(line.trim().split(/\s{2,}/)[1] ?? '', listed, `gp ${commandName(c)} is not on the ${commandGroups[c.group]} line: ${line}`);
  }
  // The whole usage of every command is not repeated here; that is what made it a wall.
  assert.doesNotMatch(out, /--max-problems|Config flags:/);
});

test('gp --help shows examples and says where a command’s own options are', () => {
  const { out } = help();
  const examples = out.split('\n').filter((l) => /^ {2}gp [a-z]/.test(l));
  assert.ok(examples.length >= 3 && examples.length <= 4, out);
  for (const e of examples) {
    const [noun, verb] = e.trim().split(/\s+/).slice(1);
    assert.ok(
      commands.some((c) => c.noun === noun && (c.verb === undefined || c.verb === verb)),
      `the example names no command: ${e}`,
    );
  }
  assert.match(out, /gp help COMMAND or gp COMMAND --help/);
});

test('bare gp prints the short help to stderr, nothing to stdout, and exits with the usage status', () => {
  const bare = gp();
  assert.equal(bare.code, exitStatus.usage.code);
  assert.notEqual(bare.code, 0);
  assert.equal(bare.out, '');
  assert.equal(bare.err, help().out);
});

test('each command’s full help stays: gp help NOUN VERB and gp NOUN VERB --help print the usage with its flags', () => {
  const viaHelp = gp('help', 'dataset', 'prepare');
  const viaFlag = gp('dataset', 'prepare', '--help');
  assert.equal(viaHelp.code, 0);
  assert.equal(viaHelp.out, viaFlag.out);
  assert.match(viaHelp.out, /--val-fraction/);
  assert.match(viaHelp.out, /Exit status:/);
});

test('a group line joins the verbs of a noun and keeps nouns apart', () => {
  assert.equal(groupLine('config'), 'config check|resolve');
  assert.equal(groupLine('run'), 'rollout, eval');
  for (const group of Object.keys(commandGroups) as CommandGroup[])
    assert.ok(
      commands.some((c) => c.group === group),
      `${group} has no command`,
    );
});
