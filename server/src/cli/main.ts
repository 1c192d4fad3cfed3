/**
 * `gp`: the engine on the command line, for servers without an editor. Commands are verbs on
 * nouns (`gp config check`, `gp dataset validate`), declared in commands.ts; this file finds the
 * command, answers `--help` at every level, and runs it with the process's Ctrl-C and terminal.
 */
import { closest } from '../util/closest.js';
import { ioFailure, ioFailureAdvice } from '../util/ioFailure.js';
import { terminalSafe } from '../protocol/terminalText.js';
import { wantsHelp } from './args.js';
import { commandHelp, commandName, commandsOf, globalHelp, gpVersion as version, nounHelp, nouns, type Command } from './commands.js';
import { installInterrupt, type Interrupt } from './interrupt.js';
import { exitStatus, programExits, type Io } from './output.js';
import { terminalProgressSink, type ProgressSink } from './progress.js';

/** What differs between `gp` as a program and `runCli` inside a test: Ctrl-C and the terminal. */
export interface CliHost {
  /** Installs the Ctrl-C handling for an `interruptible` command; absent in tests, which keep their signals. */
  readonly interrupt?: (io: Io) => Interrupt;
  readonly progress?: ProgressSink;
}

type Lookup =
  | { readonly kind: 'command'; readonly command: Command; readonly argv: readonly string[] }
  | { readonly kind: 'noun'; readonly noun: string; readonly help: boolean }
  | { readonly kind: 'unknown-verb'; readonly noun: string; readonly verb: string }
  | { readonly kind: 'unknown-noun'; readonly noun: string };

/** Finds the command `argv` names; `argv` starts with the noun. */
export function lookup(argv: readonly string[]): Lookup {
  const [noun = '', verb, ...rest] = argv;
  const own = commandsOf(noun);
  if (own.length === 0) return { kind: 'unknown-noun', noun };
  const bare = own.find((c) => c.verb === undefined);
  if (bare !== undefined) return { kind: 'command', command: bare, argv: argv.slice(1) };
  if (verb === undefined || verb === '--help' || verb === '-h') return { kind: 'noun', noun, help: verb !== undefined };
  const command = own.find((c) => c.verb === verb);
  return command === undefined ? { kind: 'unknown-verb', noun, verb } : { kind: 'command', command, argv: rest };
}

function unknownVerb(noun: string, verb: string, io: Io): number {
  const verbs = commandsOf(noun).map((c) => c.verb ?? '');
  const guess = closest(verb, verbs);
  io.err(`gp ${noun}: unknown command '${verb}'${guess === undefined ? '' : ` (did you mean ${guess}?)`}; gp ${noun} has ${verbs.join(', ')}.`);
  io.err(`Run gp ${noun} --help for their usage.`);
  return exitStatus.usage.code;
}

function unknownNoun(noun: string, io: Io): number {
  const guess = closest(noun, nouns);
  io.err(`gp: unknown command '${noun}'${guess === undefined ? '' : ` (did you mean ${guess}?)`}; the commands are ${nouns.join(', ')}.`);
  io.err('Run gp --help for their usage.');
  return exitStatus.usage.code;
}

async function runCommand(command: Command, argv: readonly string[], io: Io, cwd: string, host: CliHost): Promise<number> {
  if (wantsHelp(argv)) {
    io.out(commandHelp(command));
    return 0;
  }
  const interrupt = command.interruptible === true ? host.interrupt?.(io) : undefined;
  try {
    return await command.run(argv, { io, cwd, ...(interrupt ? { signal: interrupt.signal } : {}), ...(host.progress ? { progress: host.progress } : {}) });
  } finally {
    interrupt?.dispose();
  }
}

export async function runCli(argv: readonly string[], io: Io, cwd: string, host: CliHost = {}): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    // Bare `gp` asked for nothing: the short help goes to stderr, as a usage error's message does,
    // so a script that runs `gp` with a missing argument fails instead of reading help as output.
    io.err(globalHelp(version));
    return exitStatus.usage.code;
  }
  if (first === '--help' || first === '-h') {
    io.out(globalHelp(version));
    return 0;
  }
  if (first === '--version') {
    io.out(version);
    return 0;
  }
  // `gp help config check` is `gp config check --help`.
  if (first === 'help') return rest.length === 0 ? runCli(['--help'], io, cwd, host) : runCli([...rest, '--help'], io, cwd, host);
  const found = lookup(argv);
  switch (found.kind) {
    case 'unknown-noun':
      return unknownNoun(found.noun, io);
    case 'unknown-verb':
      return unknownVerb(found.noun, found.verb, io);
    case 'noun':
      if (found.help) io.out(nounHelp(found.noun));
      else {
        io.err(`gp ${found.noun}: name a command: ${commandsOf(found.noun).map(commandName).join(', ')}.`);
        io.err(nounHelp(found.noun));
      }
      return found.help ? 0 : 2;
    case 'command':
      return runCommand(found.command, found.argv, io, cwd, host);
  }
}

/** The program's Ctrl-C: the first stops the command cleanly, the second exits at once (interrupt.ts). */
function processInterrupt(io: Io): Interrupt {
  return installInterrupt({ onFirst: () => io.err('Interrupted: stopping and cleaning up (Ctrl-C again to exit at once).') });
}

if (require.main === module) {
  // Every line gp prints may hold data (a task id, a model reply, a key name): control characters
  // in it are shown as escapes here, once for every command (protocol/terminalText.ts).
  const io: Io = { out: (l) => process.stdout.write(`${terminalSafe(l)}\n`), err: (l) => process.stderr.write(`${terminalSafe(l)}\n`) };
  const progress = terminalProgressSink(process.stderr);
  // Our own process warnings (the local backend's, sandbox/localSandbox.ts) are said the way gp says
  // warnings, once; Node's own keep Node's printer.
  const nodePrinters = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    if (warning.code?.startsWith('GP_') === true) io.err(`warning: ${warning.message}`);
    else for (const print of nodePrinters) print(warning);
  });
  // A reader that stops early (`gp trajectory show FILE | head`) closes the pipe: the output is no
  // longer wanted, which is no error, so gp ends quietly as other command-line tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  runCli(process.argv.slice(2), io, process.cwd(), { interrupt: processInterrupt, ...(progress ? { progress } : {}) }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // A full disk or a failing file system is the machine's trouble, not a bug: one line and what to do.
      const machine = ioFailure(err);
      if (machine !== undefined) {
        process.stderr.write(`gp: ${ioFailureAdvice(machine)}.\n`);
        process.exitCode = programExits.machineFailure.code;
        return;
      }
      process.stderr.write(`gp: internal error: ${terminalSafe(err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`);
      process.exitCode = programExits.internalError.code;
    },
  );
}
