/**
 * `gp config check` and `gp config resolve`: the editor's checks, headless. Both take the same
 * config flags as the launching commands (`--set`, `--max-steps`, …) and resolve through
 * `launch/loadConfig.ts`, so a file checked here gets the verdict a launch would give it.
 */
import { writeFile } from 'node:fs/promises';
import { applyPreferredFixes, parseConfigFlags, renderConfigYaml, verdictOf, type ConfigFlags, type Resolution } from '../config/index.js';
import { loadConfig, planRunFolder, writeResolvedConfig } from '../launch/index.js';
import { readClusterSlots, type ClusterRead } from '../cluster/index.js';
import { capacityCommands, locatedCapacityFinding, unreadableClusterLine, type CapacityCommand } from './capacityPreflight.js';
import { formatConfigFinding, printConfigFindings, sortedFindings } from './configFindings.js';
import { parseCommandArgs, usageError } from './args.js';
import { cappedPrinter, defaultMaxProblems, intFlag, plural, type Io } from './output.js';

export interface CheckOptions {
  readonly fix: boolean;
  readonly disk: boolean;
  readonly json: boolean;
  readonly cwd: string;
  /** Findings printed per file; the rest are counted. 0 prints every one. */
  readonly maxProblems: number;
  readonly flags: ConfigFlags;
  /** A Ray dashboard whose sandbox slots the capacity preflight checks against, for `capacityFor`. */
  readonly ray?: string;
  readonly capacityFor?: CapacityCommand;
  /** Replaced in tests. */
  readonly readCluster?: (address: string) => Promise<ClusterRead>;
}

export const configCheckUsage = `gp config check FILE... [--fix] [--json] [--no-disk] [--max-problems N]
                [--ray ADDRESS [--for train|eval|rollout]] [config flags]
      Check experiment YAMLs: schema, preflight, paths on disk, with any config flags
      merged on top as a launch would. Prints file:line:col severity code message (or
      file: --flag: … for a value a flag set); at most N findings per file (default 50,
      0 for all).
      --fix applies each finding's preferred fix to the file.
      --ray adds the capacity preflight a launch on that cluster (dashboard HOST:PORT) runs:
      the episodes gp train (or --for eval|rollout) runs at once against the sandbox slots
      the cluster's nodes advertise (gp ray slots); a cluster that cannot be asked is a warning.`;

export const configResolveUsage = `gp config resolve FILE [--print-config] [config flags]
      Merge defaults, the YAML and flags; write <output_dir>/<run_name>/resolved_config.yaml
      and print its path (or print the config with --print-config); nothing is written when
      the config has errors.`;

/** The options of `gp config check` besides the config flags, which are parsed first. */
export const configCheckOptions = {
  fix: { type: 'boolean' },
  json: { type: 'boolean' },
  'no-disk': { type: 'boolean' },
  'max-problems': { type: 'string' },
  ray: { type: 'string' },
  for: { type: 'string' },
} as const;

/** `gp config resolve` takes the config flags only. */
export const configResolveOptions = {} as const;

const checkCommand = { name: 'config check', usage: configCheckUsage };
const resolveCommand = { name: 'config resolve', usage: configResolveUsage };

/** Parses `gp config check` arguments; undefined (after printing why) on a usage error. */
export function parseCheckArgs(argv: readonly string[], io: Io, cwd: string): { files: string[]; options: CheckOptions } | undefined {
  const config = parseConfigFlags(argv);
  const args = parseCommandArgs(checkCommand, config.rest, configCheckOptions, io);
  if (!args.ok) return undefined;
  args.errors.push(...config.errors);
  const files = [...(config.flags.configFile === undefined ? [] : [config.flags.configFile]), ...args.positionals];
  if (files.length === 0) args.errors.push('name at least one YAML file.');
  const maxProblems = intFlag('--max-problems', args.values['max-problems'], args.errors, 0) ?? defaultMaxProblems;
  if (config.flags.printConfig) args.errors.push('--print-config belongs to gp config resolve.');
  const v = args.values;
  const capacityFor = capacityCommands.find((c) => c === (v.for ?? 'train'));
  if (capacityFor === undefined) args.errors.push(`--for takes ${capacityCommands.join(', ')}, not ${JSON.stringify(v.for)}.`);
  if (v.for !== undefined && v.ray === undefined)
    args.errors.push('--for needs --ray ADDRESS: it names the command whose capacity is checked on that cluster.');
  if (args.errors.length > 0) {
    usageError(checkCommand, io, args.errors);
    return undefined;
  }
  const capacity = v.ray === undefined ? {} : { ray: v.ray, capacityFor: capacityFor ?? 'train' };
  return { files, options: { fix: v.fix === true, json: v.json === true, disk: v['no-disk'] !== true, cwd, maxProblems, flags: config.flags, ...capacity } };
}

/** Exit code 1 when any file has an error, 2 when a file cannot be read, else 0. */
export async function configCheck(files: readonly string[], opts: CheckOptions, io: Io): Promise<number> {
  let exit = 0;
  const report: unknown[] = [];
  // One cluster for every file: asked once.
  const cluster = opts.ray === undefined ? undefined : await (opts.readCluster ?? readClusterSlots)(opts.ray);
  if (cluster !== undefined && !cluster.ok) io.err(unreadableClusterLine(cluster.message));
  for (const file of files) {
    let loaded = await loadConfig({ file, flags: opts.flags, cwd: opts.cwd, disk: opts.disk });
    if (loaded.kind === 'unreadable') {
      io.err(`${file}: ${loaded.message}.`);
      exit = 2;
      continue;
    }
    if (opts.fix && loaded.path !== undefined) {
      const fixed = applyPreferredFixes(loaded.resolution.source.text, loaded.resolution.findings);
      if (fixed.fixed.length > 0) {
        await writeFile(loaded.path, fixed.text, 'utf8');
        io.out(`${file}: applied ${fixed.fixed.length} fix${fixed.fixed.length === 1 ? '' : 'es'}.`);
        loaded = await loadConfig({ file, flags: opts.flags, cwd: opts.cwd, disk: opts.disk });
        if (loaded.kind === 'unreadable') {
          io.err(`${file}: ${loaded.message}.`);
          exit = 2;
          continue;
        }
      }
    }
    const resolution = withCapacity(loaded.resolution, opts, cluster);
    const findings = sortedFindings(resolution.findings);
    const errors = findings.filter((f) => f.severity === 'error').length;
    const warnings = findings.filter((f) => f.severity === 'warning').length;
    if (resolution.verdict === 'errors' && exit === 0) exit = 1;
    if (opts.json) {
      report.push({
        file,
        verdict: resolution.verdict,
        errors,
        warnings,
        findings: findings.map((f) => ({ ...f, position: resolution.source.lineCounter.linePos(f.range.start) })),
      });
      continue;
    }
    const printer = cappedPrinter(io, opts.maxProblems);
    for (const f of findings) printer.print(formatConfigFinding(file, resolution, f));
    printer.finish();
    io.out(`${file}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}.`);
  }
  if (opts.json) io.out(JSON.stringify(report, null, 2));
  return exit;
}

/** The resolution with the capacity finding on a cluster added, when `--ray` named one that answered. */
function withCapacity(resolution: Resolution, opts: CheckOptions, cluster: ClusterRead | undefined): Resolution {
  if (cluster === undefined || opts.capacityFor === undefined) return resolution;
  const found = locatedCapacityFinding(resolution, opts.capacityFor, cluster);
  if (found === undefined) return resolution;
  const findings = [...resolution.findings, found];
  return { ...resolution, findings, verdict: verdictOf(findings) };
}

/** `gp config resolve FILE [flags]`: writes the run folder's resolved_config.yaml, or prints it. */
export async function configResolve(argv: readonly string[], io: Io, cwd: string, command = 'resolve'): Promise<number> {
  const parsed = parseConfigFlags(argv);
  const args = parseCommandArgs(resolveCommand, parsed.rest, configResolveOptions, io);
  if (!args.ok) return args.exit;
  args.errors.push(...parsed.errors);
  const positional = args.positionals;
  const file = parsed.flags.configFile ?? positional[0];
  if (!file || positional.length > (parsed.flags.configFile === undefined ? 1 : 0)) {
    args.errors.push('name one experiment YAML (gp config resolve configs/experiments/planner_debug.yaml).');
  }
  if (args.errors.length > 0 || file === undefined) return usageError(resolveCommand, io, args.errors);
  const loaded = await loadConfig({ file, flags: parsed.flags, cwd, disk: true });
  if (loaded.kind === 'unreadable') {
    io.err(`${file}: ${loaded.message}.`);
    return 2;
  }
  const { resolution } = loaded;
  printConfigFindings(file, resolution, io);
  if (resolution.verdict === 'errors' || resolution.config === undefined) {
    io.err(`${file}: not resolved; fix the errors above.`);
    return 1;
  }
  const run = planRunFolder(resolution.config, {
    command,
    now: new Date(),
    commandLine: ['gp', 'config', 'resolve', ...argv].join(' '),
    ignored: resolution.ignored,
  });
  if (parsed.flags.printConfig) {
    io.out(renderConfigYaml(run.config));
    return 0;
  }
  io.out(await writeResolvedConfig(run, loaded.path ?? file));
  return 0;
}
