/**
 * Turns the shapes older datasets use into the canonical task entry, reporting each change as a
 * finding with a fix that makes the change in the file:
 *
 * - `issue.failure_frame.func` and `.line` are aliases of `function` and `lineno` (defect L.14 in
 *   docs/original-system.md#l-defects), and `repo_operation_limit` is an alias of `repo_op_limit`
 *   (docs/original-system.md#g1-task-entry);
 * - the flat legacy row of the seed documents (`docker_image` at the top plus `instance{mounts,
 *   commands, env}`, docs/original-system.md#g7-legacy-rows) becomes a nested `sandbox`. No code of
 *   the original read `instance`, so such rows never ran; we read them the way the seed documents
 *   describe them and offer to rewrite the line.
 */
import { finding, type Finding, type KeyPath } from '../protocol/index.js';
import { mountStringPattern } from './schema.js';
import { isRecord } from '../util/isRecord.js';
import { formatKeyPath, getAt, withValueAt } from '../util/keyPath.js';

export interface Normalized {
  readonly value: unknown;
  readonly findings: readonly Finding[];
}

/** Where a legacy row's repository is when it says nothing else: the seed documents' `row.get("workdir", "/repo")` (docs/original-system.md#g7-legacy-rows). */
export const legacyDefaultWorkdir = '/repo';

/** Keeps the original key order while renaming, so a rewritten line reads like the old one. */
function renamed(object: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === from) out[to] = value;
    else out[key] = value;
  }
  return out;
}

interface Alias {
  readonly parent: KeyPath;
  readonly alias: string;
  readonly canonical: string;
}

const aliases: readonly Alias[] = [
  { parent: ['issue', 'failure_frame'], alias: 'func', canonical: 'function' },
  { parent: ['issue', 'failure_frame'], alias: 'line', canonical: 'lineno' },
  { parent: [], alias: 'repo_operation_limit', canonical: 'repo_op_limit' },
];

function normalizeAliases(row: Record<string, unknown>, findings: Finding[]): Record<string, unknown> {
  let out = row;
  for (const { parent, alias, canonical } of aliases) {
    const object = getAt(out, parent);
    if (!isRecord(object) || !(alias in object)) continue;
    const path = [...parent, alias];
    const dotted = formatKeyPath(path);
    if (canonical in object) {
      findings.push(
        finding({
          code: 'task/alias',
          severity: 'warning',
          message: `\`${dotted}\` is ignored because \`${canonical}\` is also given; remove one of them.`,
          path,
          target: 'key',
          fixes: [{ title: `Remove \`${alias}\``, preferred: true, edits: [{ op: 'remove', path }] }],
        }),
      );
      const rest = { ...object };
      delete rest[alias];
      out = withValueAt(out, parent, rest);
      continue;
    }
    findings.push(
      finding({
        code: 'task/alias',
        severity: 'info',
        message: `\`${alias}\` is an alias of \`${canonical}\` and is read as \`${canonical}\`; rename it to the canonical name.`,
        path,
        target: 'key',
        fixes: [{ title: `Rename \`${alias}\` to \`${canonical}\``, preferred: true, edits: [{ op: 'rename', path, newKey: canonical }] }],
      }),
    );
    out = withValueAt(out, parent, renamed(object, alias, canonical));
  }
  return out;
}

interface Mount {
  readonly host: string;
  readonly container: string;
  readonly mode: 'ro' | 'rw';
}

/**
 * Converts the legacy mount forms into mount objects. A mount without a mode is read-write, as
 * Docker's default is, because the agent edits the mounted repository. Entries that are not
 * understood are kept as they are so that the schema reports them at their place.
 */
function convertMounts(mounts: unknown): unknown[] {
  const list: unknown[] = Array.isArray(mounts)
    ? mounts
    : isRecord(mounts)
      ? Object.entries(mounts).map(([host, container]) => (typeof container === 'string' ? `${host}:${container}` : { host, container }))
      : [];
  return list.map((entry) => {
    if (typeof entry !== 'string' || !mountStringPattern.test(entry)) return entry;
    const [host = '', container = '', mode] = entry.split(':');
    const mount: Mount = { host, container, mode: mode === 'ro' ? 'ro' : 'rw' };
    return mount;
  });
}

function firstContainerPath(mounts: readonly unknown[]): string | undefined {
  for (const mount of mounts) {
    if (isRecord(mount) && typeof mount['container'] === 'string') return mount['container'];
  }
  return undefined;
}

function stringEnv(env: unknown): Record<string, string> {
  if (!isRecord(env)) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}

/** A row is in the flat legacy shape when it has no `sandbox` but a top-level image or `instance`. */
export function isLegacyShape(row: Record<string, unknown>): boolean {
  return !('sandbox' in row) && ('instance' in row || 'docker_image' in row);
}

/**
 * Rewrites a flat legacy row as a canonical one. The workdir is, in order: an explicit `workdir`
 * (in `instance` or at the top), the container side of the first mount (the repository is what
 * gets mounted), else `/repo`. `commands.test` becomes `sandbox.test_command`; `commands.build`
 * has no equivalent (build steps belong in the image) and is dropped, which the message says.
 */
export function legacyToCanonical(row: Record<string, unknown>): { value: Record<string, unknown>; dropped: string[]; workdir: string } {
  const { docker_image: image, instance, workdir: topWorkdir, ...rest } = row;
  const inst = isRecord(instance) ? instance : {};
  const { mounts, commands, env, workdir: instWorkdir, issue, max_steps: maxSteps, ...instRest } = inst;
  const dropped = Object.keys(instRest).map((key) => `instance.${key}`);
  const mountList = convertMounts(mounts);
  const workdir = [instWorkdir, topWorkdir].find((w): w is string => typeof w === 'string') ?? firstContainerPath(mountList) ?? legacyDefaultWorkdir;
  // The image goes first so that the rewritten line reads in the order a person looks for things.
  const sandbox: Record<string, unknown> = image === undefined ? {} : { docker_image: image };
  Object.assign(sandbox, { workdir, mounts: mountList, env: stringEnv(env) });
  if (isRecord(commands)) {
    if (commands['test'] !== undefined) sandbox['test_command'] = commands['test'];
    for (const key of Object.keys(commands)) if (key !== 'test') dropped.push(`instance.commands.${key}`);
  }
  const { task_id: taskId, ...others } = rest;
  const value: Record<string, unknown> = taskId === undefined ? { sandbox } : { task_id: taskId, sandbox };
  Object.assign(value, others);
  if (value['issue'] === undefined && issue !== undefined) value['issue'] = issue;
  if (value['max_steps'] === undefined && maxSteps !== undefined) value['max_steps'] = maxSteps;
  return { value, dropped, workdir };
}

function legacyFinding(row: Record<string, unknown>, canonical: Record<string, unknown>, dropped: readonly string[], workdir: string): Finding {
  const where = 'instance' in row ? 'instance' : 'docker_image';
  const droppedNote =
    dropped.length > 0
      ? ` ${dropped.map((d) => `\`${d}\``).join(', ')} ha${dropped.length === 1 ? 's' : 've'} no equivalent and ${dropped.length === 1 ? 'is' : 'are'} dropped.`
      : '';
  return finding({
    code: 'task/legacy-shape',
    severity: 'warning',
    message:
      'This row uses the flat legacy shape (top-level `docker_image` and `instance`), which no runner reads; ' +
      `it is read as a nested \`sandbox\` with workdir \`${workdir}\`.${droppedNote}`,
    path: [where],
    target: 'key',
    fixes: [{ title: 'Rewrite the row with a nested `sandbox`', preferred: true, edits: [{ op: 'replaceRoot', value: canonical }] }],
  });
}

/** Normalises one parsed line. Values that are not objects come back unchanged. */
export function normalizeTask(raw: unknown): Normalized {
  if (!isRecord(raw)) return { value: raw, findings: [] };
  const findings: Finding[] = [];
  const value = normalizeAliases(raw, findings);
  if (!isLegacyShape(value)) return { value, findings };
  const { value: canonical, dropped, workdir } = legacyToCanonical(value);
  return { value: canonical, findings: [legacyFinding(raw, canonical, dropped, workdir), ...findings] };
}
