/**
 * Checks for the programs and Python modules that tests run on the host. A missing one fails the
 * test with the Debian package to install and the setup scripts that install it, rather than with a
 * bare ENOENT or a Python traceback, and never turns into a skipped test: test/integration/setup.sh
 * (which `npm test` runs before the integration layer) and .ci/run install each of them.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const installHint = 'test/integration/setup.sh, which npm test runs before the integration layer, installs it, and so does .ci/run';

/** Throws unless `program`, an absolute path, is an executable file. */
export function assertHostProgram(program: string, debianPackage: string): void {
  try {
    accessSync(program, constants.X_OK);
  } catch {
    throw new Error(`${program} is missing or not executable: install Debian's ${debianPackage} package; ${installHint}.`);
  }
}

/** Throws unless the `python3` in PATH imports `module`. */
export function assertPythonModule(module: string, debianPackage: string): void {
  const probe = spawnSync('python3', ['-c', `import ${module}`], { encoding: 'utf8' });
  if (probe.status === 0) return;
  const why =
    probe.error !== undefined
      ? `python3 could not be run (${probe.error.message})`
      : `python3 cannot import ${module}: ${probe.stderr.trim().split('\n').at(-1) ?? ''}`;
  throw new Error(
    `${why}. Install Debian's ${debianPackage} package; ${installHint}. For a python3 that is not Debian's (pyenv, a virtual environment), run python3 -m pip install ${module} instead.`,
  );
}
