/** The command table of `gp`: help at every level, one usage-error shape, Ctrl-C, text-file checks, capped findings. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { synopsisOf } from '../../server/src/cli/args.js';
import { commandName, commands } from '../../server/src/cli/commands.js';
import { installInterrupt, type SignalSource } from '../../server/src/cli/interrupt.js';
import { runCli } from '../../server/src/cli/main.js';
import { checkConfigText } from '../../server/src/config/index.js';
import { classifyBytes, classifyText } from '../../server/src/util/textFile.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-cli-'));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function gp(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, dir);
  return { code, out, err };
}

/** A 64 KiB file of random bytes; one NUL in it at least is all but certain, and the test pins one. */
function binary(): Buffer {
  const bytes = randomBytes(64 * 1024);
  bytes[100] = 0;
  return bytes;
}

test('every command answers --help with its own usage, not the global page', async () => {
  for (const c of commands) {
    const words = commandName(c).split(' ');
    const r = await gp(...words, '--help');
    assert.equal(r.code, 0, commandName(c));
    const text = r.out.join('\n');
    assert.ok(text.startsWith(c.usage.split('\n')[0] ?? '?'), `${commandName(c)} --help printed: ${text.slice(0, 80)}`);
    assert.doesNotMatch(text, /Graph Planner on the command line/);
    const short = await gp(...words, '-h');
    assert.equal(short.out.join('\n'), text);
  }
});

test('gp --help names every command (by group, cliHelp.test.ts) and gp NOUN --help lists the noun’s commands', async () => {
  const all = (await gp('--help')).out.join('\n');
  for (const c of commands) assert.ok(all.includes(c.noun) && all.includes(c.verb ?? c.noun), commandName(c));
  const config = await gp('config', '--help');
  assert.equal(config.code, 0);
  assert.match(config.out.join('\n'), /gp config check[\s\S]*gp config resolve/);
  assert.doesNotMatch(config.out.join('\n'), /gp dataset/);
});

test('an unknown subcommand names the noun’s subcommands and exits 2', async () => {
  const r = await gp('config', 'chek');
  assert.equal(r.code, 2);
  assert.match(r.err[0] ?? '', /gp config: unknown command 'chek' \(did you mean check\?\); gp config has check, resolve\./);
  const bare = await gp('dataset');
  assert.equal(bare.code, 2);
  assert.match(bare.err[0] ?? '', /validate, dataset prepare, dataset register/);
  assert.match((await gp('frob')).err[0] ?? '', /the commands are config, dataset/);
});

test('a bad flag prints the command’s usage line and exits 2', async () => {
  const r = await gp('dataset', 'validate', '--foo', 'x.jsonl');
  assert.equal(r.code, 2);
  assert.equal(r.err[0], 'gp dataset validate: unknown option --foo.');
  assert.equal(r.err[1], 'Usage: gp dataset validate FILE... [--json] [--max-problems N]');
  assert.match((await gp('dataset', 'validate', '--jsn', 'x.jsonl')).err[0] ?? '', /did you mean --json\?/);
  const bad = await gp('dataset', 'validate', '--max-problems', 'many', 'x.jsonl');
  assert.equal(bad.code, 2);
  assert.match(bad.err[0] ?? '', /--max-problems needs an integer of at least 0, not 'many'/);
  const containers = await gp('containers', 'list', '--bogus');
  assert.equal(containers.code, 2);
  assert.match(containers.err[1] ?? '', /^Usage: gp containers list /);
});

test('the synopsis of a usage is its lines before the description', () => {
  assert.equal(synopsisOf('gp a b FILE\n         [--x]\n      Does a thing.\n      More.'), 'gp a b FILE\n         [--x]');
});

test('the first Ctrl-C aborts the signal, the second cleans up and exits 130', async () => {
  const source = new EventEmitter();
  const exits: number[] = [];
  let firsts = 0;
  let forced = 0;
  const interrupt = installInterrupt({
    source: source as SignalSource,
    exit: (c) => exits.push(c),
    onFirst: () => firsts++,
    onForce: async () => void forced++,
  });
  assert.equal(interrupt.signal.aborted, false);
  source.emit('SIGINT');
  assert.equal(interrupt.signal.aborted, true);
  assert.deepEqual([firsts, forced, exits], [1, 0, []]);
  source.emit('SIGINT');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual([firsts, forced, exits], [1, 1, [130]]);
  interrupt.dispose();
  assert.equal(source.listenerCount('SIGINT') + source.listenerCount('SIGTERM'), 0);
});

test('classifies empty, blank, binary, UTF-16, not-UTF-8 and text', () => {
  assert.equal(classifyBytes(Buffer.alloc(0)).kind, 'empty');
  assert.equal(classifyBytes(Buffer.from(' \n\t\n')).kind, 'blank');
  assert.deepEqual(classifyBytes(Buffer.from('ab\0c')), { kind: 'not-text', problem: { kind: 'nul', byteOffset: 2, charOffset: 2, nulOffset: 2 } });
  assert.equal(classifyBytes(Buffer.from([0xff, 0xfe, 0x61, 0])).kind, 'not-text');
  assert.deepEqual(classifyBytes(Buffer.from([0x61, 0xe9, 0x62])), { kind: 'not-utf8', byteOffset: 1, charOffset: 1 });
  // A sample cut inside a multi-byte character is still text.
  assert.equal(classifyBytes(Buffer.from('aé').subarray(0, 2), true).kind, 'text');
  assert.equal(classifyText('é\0').kind, 'not-text');
  assert.deepEqual(classifyText('é\uFFFD'), { kind: 'not-utf8', byteOffset: 2, charOffset: 1 });
  assert.equal(classifyText('env: {}\n').kind, 'text');
});

test('an empty or comment-only experiment YAML gets one note that every default applies', async () => {
  for (const text of ['', '\n  \n', '# nothing yet\n', '---\n']) {
    const findings = checkConfigText(text).findings;
    assert.deepEqual(
      findings.map((f) => [f.severity, f.code]),
      [['info', 'config/empty']],
      JSON.stringify(text),
    );
  }
  const r = await gp('config', 'check', '--no-disk', file('empty.yaml', ''));
  assert.equal(r.code, 0);
  assert.match(r.out.join('\n'), /info config\/empty The file sets nothing/);
});

test('a 64 KB binary file gets exactly one finding from config check and from dataset validate', async () => {
  const path = file('blob.bin', binary());
  const config = await gp('config', 'check', '--no-disk', path);
  assert.equal(config.code, 1);
  const configFindings = config.out.filter((l) => l.startsWith(`${path}:`) && / (error|warning|info) /.test(l));
  assert.equal(configFindings.length, 1, config.out.join('\n'));
  assert.match(configFindings[0] ?? '', /error config\/not-text This is not a text file: byte \d+ /);
  const dataset = await gp('dataset', 'validate', path);
  assert.equal(dataset.code, 1);
  const datasetFindings = dataset.out.filter((l) => / error | warning /.test(l));
  assert.equal(datasetFindings.length, 1, dataset.out.join('\n'));
  assert.match(datasetFindings[0] ?? '', /error jsonl\/not-text This is not a text file/);
});

test('an empty dataset gets one warning that it has no tasks', async () => {
  const r = await gp('dataset', 'validate', file('empty.jsonl', '\n\n'));
  assert.equal(r.code, 0);
  assert.match(r.out[0] ?? '', /warning jsonl\/empty The file has no tasks/);
});

test('dataset validate prints 50 findings per file by default, then how many more', async () => {
  const path = file('bad.jsonl', `${Array.from({ length: 60 }, () => 'x').join('\n')}\n`);
  const r = await gp('dataset', 'validate', path);
  assert.equal(r.out.filter((l) => l.includes(' error jsonl/syntax ')).length, 50);
  assert.ok(r.out.includes('… and 10 more (use --max-problems 0 to see all)'));
  const all = await gp('dataset', 'validate', '--max-problems', '0', path);
  assert.equal(all.out.filter((l) => l.includes(' error jsonl/syntax ')).length, 60);
});

test('gp model serve: bad flags and a key variable that is not set are usage errors; a missing model names the setup command', async () => {
  const port = await gp('model', 'serve', '--port', 'eighty');
  assert.equal(port.code, 2);
  assert.match(port.err.join('\n'), /--port needs a positive integer/);
  const contextSize = await gp('model', 'serve', '--ctx', '100');
  assert.equal(contextSize.code, 2);
  assert.match(contextSize.err.join('\n'), /--ctx needs at least 512 tokens/);
  const key = await gp('model', 'serve', '--api-key-env', 'GP_TEST_NO_SUCH_VARIABLE');
  assert.equal(key.code, 2);
  assert.match(key.err.join('\n'), /GP_TEST_NO_SUCH_VARIABLE: that environment variable is not set/);
  const missing = await gp('model', 'serve', '--model', join(dir, 'no-such-model.gguf'));
  assert.equal(missing.code, 2);
  assert.match(
    missing.err.join('\n'),
    /no-such-model\.gguf does not exist\. Install it once per machine with: bash scripts\/setup-language-model\.sh && bash scripts\/setup-model-server\.sh/,
  );
});
