/**
 * Checks on a task that a JSON Schema cannot say well: that the sandbox has somewhere to get the
 * repository from, that a SWE-bench image is used with the folder its repository is in, and that a
 * task graded from a local copy names the commit it starts from. They
 * run on every line, so each is a few property reads.
 */
import { posix } from 'node:path';
import { dockerSocketPaths, type Finding } from '../protocol/index.js';
import { legacyDockerBackends } from './schema.js';
import { isRecord } from '../util/isRecord.js';

/** SWE-bench's evaluation images keep the repository in `/testbed` (their scripts `cd /testbed`). */
export const swebenchWorkdir = '/testbed';

function missingImage(): Finding {
  return {
    related: [],
    fixes: [],
    code: 'task/missing-image',
    severity: 'error',
    message: 'The sandbox has no `docker_image` and no `local_repo`, so there is nothing to run the task in; add one of them.',
    path: ['sandbox'],
    target: 'key',
  };
}

function workdirMismatch(image: string, workdir: string): Finding {
  // A literal rather than `finding()`: these are built for every line of a converted dataset.
  return {
    related: [],
    code: 'task/workdir-mismatch',
    severity: 'warning',
    message:
      `SWE-bench image \`${image}\` keeps the repository in \`${swebenchWorkdir}\`, but \`sandbox.workdir\` is \`${workdir}\`; ` +
      'commands would run in a folder without the repository (the original converter wrote `/repo`).',
    cause: `\`sandbox.workdir\` is \`${workdir}\` with a SWE-bench image, which keeps the repository in \`${swebenchWorkdir}\`; commands would run in a folder without the repository.`,
    path: ['sandbox', 'workdir'],
    fixes: [
      { title: `Set the workdir to \`${swebenchWorkdir}\``, preferred: true, edits: [{ op: 'set', path: ['sandbox', 'workdir'], value: swebenchWorkdir }] },
    ],
  };
}

function legacyBackend(backend: string): Finding {
  return {
    related: [],
    code: 'task/legacy-backend',
    severity: 'hint',
    message: `Backend \`${backend}\` is the original system's name for a Docker sandbox and is read as \`docker\`.`,
    path: ['sandbox', 'backend'],
    fixes: [{ title: 'Change the backend to `docker`', preferred: true, edits: [{ op: 'set', path: ['sandbox', 'backend'], value: 'docker' }] }],
  };
}

function noBaseCommit(): Finding {
  return {
    related: [],
    fixes: [],
    code: 'task/no-base-commit',
    severity: 'warning',
    message:
      'The task is graded on FAIL_TO_PASS/PASS_TO_PASS from a local_repo but names no `sandbox.base_commit`, so it runs on whatever commit that repository is on: a copy at a later commit can grade an empty patch as resolved. Add the commit the task starts from.',
    path: ['sandbox'],
    target: 'key',
  };
}

function noPythonEnv(): Finding {
  return {
    related: [],
    fixes: [],
    code: 'task/no-python-env',
    severity: 'warning',
    message:
      "The task is a SWE-bench task with a local_repo but no `sandbox.python_env`: on the local backend its tests run with the host's Python, pytest and packages, which can grade a correct patch as unresolved or the other way round. Convert the row again with `gp dataset prepare swebench --from FILE --repos DIR`: rows without a harness spec get their python_env from SWE-bench's own specification tables by repository and version (with the repository's install as python_env.setup, and --repos for repositories whose packages are a requirements file), and the summary says what it could not make. Then run `gp env build`.",
    path: ['sandbox'],
    target: 'key',
  };
}

/** Whether mounting `host` (normalised, absolute) hands the task the host: `/`, a Docker socket or a folder holding one. */
function neverMounted(host: string): boolean {
  return host === '/' || host.endsWith('/docker.sock') || dockerSocketPaths.some((socket) => socket.startsWith(`${host}/`));
}

/** The host side of each mount in any of the three forms, with the key path of the mount. */
function hostMounts(mounts: unknown): { host: string; path: (string | number)[] }[] {
  if (Array.isArray(mounts)) {
    return mounts.flatMap((m, i) => {
      if (typeof m === 'string') return [{ host: m.split(':')[0] ?? '', path: ['sandbox', 'mounts', i] }];
      if (isRecord(m) && typeof m['host'] === 'string') return [{ host: m['host'], path: ['sandbox', 'mounts', i, 'host'] }];
      return [];
    });
  }
  if (isRecord(mounts)) return Object.keys(mounts).map((host) => ({ host, path: ['sandbox', 'mounts', host] }));
  return [];
}

/**
 * Every host mount, said with what a run will do: a task file comes from whoever made the dataset,
 * and a mount opens the host to it. `/` and the Docker socket are errors (never allowed); any other
 * is a warning, since a run refuses it unless the user allowed its folder.
 */
function mountFindings(mounts: unknown): Finding[] {
  return hostMounts(mounts).map(({ host, path }) => {
    const normal = posix.normalize(host).replace(/(.)\/+$/, '$1');
    const never = host.startsWith('/') && neverMounted(normal);
    return {
      related: [],
      fixes: [],
      code: never ? 'task/mount-never' : 'task/host-mount',
      severity: never ? 'error' : 'warning',
      message: never
        ? `This mounts \`${host}\` from the host, which would give the task the whole machine (the file system or the Docker socket); runs always refuse it. Remove the mount.`
        : `This mounts \`${host}\` from the host into the container. Runs refuse it unless the folder lies under \`sandbox.allowed_mount_roots\` in the experiment config (or \`--allow-mount-root\`); allow it only if you trust this dataset, or remove the mount.`,
      path,
    } satisfies Finding;
  });
}

/** Findings for a parsed entry; entries without a sandbox object get none (the schema reports that). */
export function semanticFindings(value: unknown): Finding[] {
  const sandbox = isRecord(value) ? value['sandbox'] : undefined;
  if (!isRecord(sandbox)) return [];
  const out: Finding[] = [];
  const image = sandbox['docker_image'];
  const workdir = sandbox['workdir'];
  const backend = sandbox['backend'];
  if (image === undefined && sandbox['local_repo'] === undefined) out.push(missingImage());
  if (typeof image === 'string' && image.startsWith('sweb.eval.') && typeof workdir === 'string' && workdir !== swebenchWorkdir) {
    out.push(workdirMismatch(image, workdir));
  }
  if (typeof backend === 'string' && legacyDockerBackends.has(backend)) out.push(legacyBackend(backend));
  out.push(...mountFindings(sandbox['mounts']));
  // A task converted from SWE-bench or R2E-Gym has a base commit upstream; run from a local clone
  // without it, it is graded on whatever commit the clone is on. (A plain folder of our own samples
  // is its own base, so hand-written tasks are not warned.)
  const graded = isRecord(value) && (value['FAIL_TO_PASS'] !== undefined || value['PASS_TO_PASS'] !== undefined);
  const converted = sandbox['swebench_spec'] !== undefined || sandbox['r2e_ds_json'] !== undefined;
  if (graded && converted && typeof sandbox['local_repo'] === 'string' && sandbox['base_commit'] === undefined) out.push(noBaseCommit());
  // The same task's tests, run from the local clone, would use the host's Python and packages.
  const fromSwebench =
    sandbox['swebench_spec'] !== undefined || (isRecord(value) && typeof value['data_source'] === 'string' && /swe-?bench/i.test(value['data_source']));
  if (graded && fromSwebench && typeof sandbox['local_repo'] === 'string' && sandbox['python_env'] === undefined) out.push(noPythonEnv());
  return out;
}
