/**
 * `gp`: the engine on the command line, for servers without an editor. Commands are verbs on
 * nouns (`gp config check`, `gp dataset validate`); this file only parses arguments and dispatches.
 */
import { configFlagHelp } from '../config/index.js';
import { configCheck, configResolve } from './configCommands.js';
import { datasetValidate } from './datasetCommands.js';
import { datasetPrepare, datasetPrepareUsage } from './datasetPrepareCommand.js';
import { datasetRegister, datasetRegisterUsage } from './datasetRegisterCommand.js';
import { taskTest } from './taskCommands.js';
import { imagesManifest, imagesPrepull } from './imageCommands.js';
import { imagesBuild, imagesBuildUsage } from './imageBuildCommand.js';
import { containersList, containersReap } from './containerCommands.js';
import { rolloutCommand, rolloutUsage } from './rolloutCommands.js';
import type { Io } from './output.js';
import type { ProgressSink } from './progress.js';

const version = '0.1.0';

const usage = `gp ${version}: Graph Planner on the command line

Usage:
  gp config check FILE...  [--fix] [--json] [--no-disk]
      Check experiment YAMLs: schema, preflight, paths on disk. Prints
      file:line:col severity code message; exit code 1 on errors.
      --fix applies each finding's preferred fix to the file.
  gp config resolve FILE [flags]
      Merge defaults, the YAML and flags; write <output_dir>/<run_name>/resolved_config.yaml
      and print its path (or print the config with --print-config).
  gp dataset validate FILE... [--json] [--max-problems N]
      Validate dataset JSONL files line by line (file:line:col), then a summary per
      file: tasks, errors, duplicate ids, rows without an image, unknown keys, images
      and how many are build-only. Exit code 1 on errors.
  ${datasetPrepareUsage}
  ${datasetRegisterUsage}
  gp task test FILE [--task ID]... [--patch DIFF] [--backend auto|docker|local]
               [--config YAML] [--run-dir DIR] [--timeout S] [--json]
      Open each task's sandbox, apply the patch if given, run the task's tests and
      grade them per test (SWE-bench lists or R2E expected output). Records the run
      in DIR/test_runs.jsonl with the raw log and report.json; exit code 1 unless
      every task passes.
  ${imagesBuildUsage}
  gp images manifest FILE... [--out PATH] [--json]
      Collect the unique images of task files into a manifest (one per line);
      build-only SWE-bench images are marked and rows without an image counted.
  gp images prepull (FILE.jsonl... | --manifest PATH | IMAGE...) [--max-workers N]
               [--retries N] [--delay S] [--timeout S] [--json]
      Pull images: pulled / already present / failed / build-only per image; one
      failure never stops the batch; exit code 1 only when something failed.
  ${rolloutUsage}
  gp containers list [--all] [--run NAME] [--json]
      Containers of ours (labelled graph-planner.run) and whether their owner lives.
  gp containers reap [--dry-run] [--run NAME] [--include-live] [--json]
      Remove containers whose owning process is gone (orphans of crashed runs).

Config flags:
  ${configFlagHelp.join('\n  ')}
`;

export async function runCli(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === undefined || noun === '--help' || noun === '-h' || noun === 'help') {
    io.out(usage);
    return noun === undefined ? 2 : 0;
  }
  if (noun === '--version') {
    io.out(version);
    return 0;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(usage);
    return 0;
  }
  if (noun === 'config' && verb === 'check') {
    const files = rest.filter((a) => !a.startsWith('--'));
    const unknown = rest.filter((a) => a.startsWith('--') && !['--fix', '--json', '--no-disk'].includes(a));
    if (unknown.length || files.length === 0) {
      io.err(unknown.length ? `gp config check: unknown option ${unknown.join(', ')}.` : 'gp config check: name at least one YAML file.');
      return 2;
    }
    return configCheck(files, { fix: rest.includes('--fix'), json: rest.includes('--json'), disk: !rest.includes('--no-disk'), cwd }, io);
  }
  if (noun === 'config' && verb === 'resolve') return configResolve(rest, io, cwd);
  if (noun === 'dataset' && verb === 'validate') {
    const files: string[] = [];
    let maxProblems: number | undefined;
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] ?? '';
      if (a === '--json') continue;
      if (a === '--max-problems') {
        maxProblems = Number(rest[++i]);
        if (!Number.isInteger(maxProblems) || maxProblems < 0) {
          io.err('gp dataset validate: --max-problems needs a non-negative integer.');
          return 2;
        }
      } else if (a.startsWith('--')) {
        io.err(`gp dataset validate: unknown option ${a}.`);
        return 2;
      } else files.push(a);
    }
    if (files.length === 0) {
      io.err('gp dataset validate: name at least one JSONL file.');
      return 2;
    }
    const opts = maxProblems === undefined ? { json: rest.includes('--json') } : { json: rest.includes('--json'), maxProblems };
    return datasetValidate(files, opts, io);
  }
  if (noun === 'dataset' && verb === 'prepare') return datasetPrepare(rest, io, cwd, processProgressSink(), cliInterrupt);
  if (noun === 'dataset' && verb === 'register') return datasetRegister(rest, io, cwd);
  if (noun === 'task' && verb === 'test') return taskTest(rest, io, cwd);
  if (noun === 'rollout' || noun === 'eval') return rolloutCommand(noun, verb === undefined ? rest : [verb, ...rest], io, cwd);
  if (noun === 'images' && verb === 'build') return imagesBuild(rest, io);
  if (noun === 'images' && verb === 'manifest') return imagesManifest(rest, io);
  if (noun === 'images' && verb === 'prepull') return imagesPrepull(rest, io);
  if (noun === 'containers' && verb === 'list') return containersList(rest, io);
  if (noun === 'containers' && verb === 'reap') return containersReap(rest, io);
  io.err(`gp: unknown command '${[noun, verb].filter(Boolean).join(' ')}'. Run gp --help.`);
  return 2;
}

/** A redrawn progress line when stderr is a terminal; plain lines through `io.err` otherwise. */
function processProgressSink(): ProgressSink | undefined {
  const stderr = process.stderr;
  if (!stderr.isTTY) return undefined;
  return {
    isTTY: true,
    get columns() {
      return stderr.columns > 0 ? stderr.columns : 80;
    },
    write: (t: string) => void stderr.write(t),
  };
}

/**
 * Aborted by the first Ctrl-C when `gp` runs as a program, so a long download or conversion stops
 * cleanly (staged outputs removed, partial downloads kept for resuming); a second Ctrl-C exits at
 * once. Undefined when the CLI runs inside another process (tests), which keeps its own signals.
 */
let cliInterrupt: AbortSignal | undefined;

function installInterrupt(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  return controller.signal;
}

if (require.main === module) {
  // Only the dataset commands listen; the rollout commands install their own handlers.
  if (process.argv[2] === 'dataset' && process.argv[3] === 'prepare') cliInterrupt = installInterrupt();
  const io: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  runCli(process.argv.slice(2), io, process.cwd()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`gp: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 70;
    },
  );
}
