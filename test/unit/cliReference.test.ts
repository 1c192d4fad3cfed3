/** The CLI reference and the command table it is generated from: the page is current, and each command's synopsis, parser, defaults and exit statuses agree. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { cliReferencePath, cliReferenceText, configFlagRows, synopsisFlags } from '../../scripts/cliReference.js';
import { commandHelp, commandName, commands, type Command } from '../../server/src/cli/commands.js';
import { runCli } from '../../server/src/cli/main.js';

const configFlagNames = new Set(configFlagRows().map((r) => r.flag.split(' ')[0]?.slice(2) ?? ''));

/** What a command's synopsis and its parser disagree on, in words; empty when they agree. */
function flagMismatches(c: Pick<Command, 'usage' | 'options' | 'configFlags' | 'defaults'>): string[] {
  const problems: string[] = [];
  const named = synopsisFlags(c.usage);
  const options = c.options;
  for (const f of named) {
    const option = options[f.name];
    if (option === undefined) {
      if (c.configFlags !== true || !configFlagNames.has(f.name)) problems.push(`the synopsis names --${f.name}, which the parser does not take`);
    } else if ((option.type === 'string') !== (f.value !== undefined)) {
      problems.push(`--${f.name} is a ${option.type} option but the synopsis writes it ${f.value === undefined ? 'without' : 'with'} a value`);
    }
  }
  for (const name of Object.keys(options))
    if (!named.some((f) => f.name === name)) problems.push(`the parser takes --${name}, which the synopsis does not name`);
  for (const name of Object.keys(c.defaults ?? {}))
    if (options[name] === undefined) problems.push(`a default is given for --${name}, which the parser does not take`);
  return problems;
}

test(`${cliReferencePath} matches the command table`, () => {
  assert.equal(readFileSync(cliReferencePath, 'utf8'), cliReferenceText(), `${cliReferencePath} is stale: run npm run schemas and commit the result`);
});

test('every command’s synopsis names exactly the flags its parser takes, with a value where the option takes one', () => {
  for (const c of commands) assert.deepEqual(flagMismatches(c), [], `gp ${commandName(c)}`);
});

test('the flag check catches a flag the parser takes but the synopsis leaves out, and a default for a flag that does not exist', () => {
  const c = {
    usage: 'gp x y FILE [--json]\n      Does things.',
    options: { json: { type: 'boolean' }, limit: { type: 'string' } },
    defaults: { lmit: '3' },
  } as const;
  assert.deepEqual(flagMismatches(c), [
    'the parser takes --limit, which the synopsis does not name',
    'a default is given for --lmit, which the parser does not take',
  ]);
  assert.deepEqual(flagMismatches({ usage: 'gp x y [--json N]', options: { json: { type: 'boolean' } } }), [
    '--json is a boolean option but the synopsis writes it with a value',
  ]);
});

test('a synopsis flag’s value is the word after it, without brackets, alternatives’ bars or a trailing ...', () => {
  assert.deepEqual(
    synopsisFlags('gp a b (F... | --manifest PATH | I...) [--task ID]... [--for train|eval]] [--from FILE...] [--json] [--run-name NAME | --run-dir DIR]'),
    [
      { name: 'manifest', value: 'PATH' },
      { name: 'task', value: 'ID' },
      { name: 'for', value: 'train|eval' },
      { name: 'from', value: 'FILE' },
      { name: 'json', value: undefined },
      { name: 'run-name', value: 'NAME' },
      { name: 'run-dir', value: 'DIR' },
    ],
  );
});

test('every command declares what 0 means and each status once, and its --help prints them', async () => {
  for (const c of commands) {
    const codes = c.exits.map((e) => e.code);
    assert.equal(codes[0], 0, `gp ${commandName(c)} lists 0 first`);
    assert.equal(new Set(codes).size, codes.length, `gp ${commandName(c)} lists a status twice`);
    const help = commandHelp(c);
    for (const e of c.exits) assert.ok(help.includes(`${String(e.code).padEnd(4)} ${e.meaning}`), `gp ${commandName(c)} --help lacks status ${e.code}`);
  }
  const out: string[] = [];
  assert.equal(await runCli(['trajectory', 'replay', '--help'], { out: (l) => out.push(l), err: () => undefined }, '.'), 0);
  assert.match(
    out.join('\n'),
    /Exit status:\n {2}0 {4}the replay reproduced the recording\n {2}1 {4}a step diverged\n {2}2 {4}a usage error.*\n {2}3 {4}the episode could not be replayed/,
  );
});

test('the usage texts leave exit statuses to the table, so they are said once', () => {
  for (const c of commands) assert.doesNotMatch(c.usage, /\bexit(s| code| status)? \d/i, `gp ${commandName(c)}'s usage still states an exit status`);
});
