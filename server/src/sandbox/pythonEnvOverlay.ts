/**
 * A working copy's own install on top of its task's shared environment (`python_env.setup`: the
 * repository's `pip install -e .` from SWE-bench's specification).
 *
 * The shared venv is one per specification and many working copies use it at once, so the
 * repository is never installed into it: an editable install there would point every task at one
 * working copy, and a compiled build would race with the next. Each working copy gets a small venv
 * of its own instead (`venv --without-pip`, milliseconds), made from the same interpreter, whose
 * site-packages holds a `.pth` naming the shared venv's site-packages. Python's `site` reads that
 * file at start-up, so the shared packages come after the overlay's own: `python -m pip` runs the
 * shared pip, installs into the overlay (pip installs into `sys.prefix`), and finds the shared
 * packages already satisfied. What the install adds (the editable hook, the entry points sqlfluff
 * loads its rules through, console scripts) lands in the overlay; extensions of compiled
 * repositories (astropy, scikit-learn) are built in the working copy itself, as the harness does.
 *
 * The shared venv's console scripts (`pytest`) start the shared interpreter, which would not see
 * the overlay, so they are copied into the overlay's `bin` with the overlay's interpreter in their
 * first line. Alternatives considered: `--system-site-packages` layers a venv on the base
 * interpreter, not on another venv; `pip install --prefix` would need the prefix on PYTHONPATH,
 * where `.pth` files (the editable hook) are not read.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { SandboxError } from './sandbox.js';

export interface VenvPaths {
  venv: string;
  bin: string;
}

function python(bin: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((done, fail) => {
    execFile(join(bin, 'python'), args, { timeout: timeoutMs, encoding: 'utf8', env: { ...process.env, PYTHONNOUSERSITE: '1' } }, (error, stdout, stderr) => {
      if (error === null) done(stdout);
      else
        fail(
          new SandboxError(
            `${join(bin, 'python')} ${args.join(' ')} failed: ${(stderr || error.message).trim().split('\n').slice(-5).join('\n')}`,
            'env-missing',
          ),
        );
    });
  });
}

const sitePackages = "import sysconfig; p = sysconfig.get_paths(); print(p['purelib']); print(p['platlib'])";

/** Makes the overlay venv at `dir` on top of `shared`; returns its paths. */
export async function makeOverlayVenv(shared: VenvPaths, dir: string): Promise<VenvPaths> {
  const overlay = { venv: dir, bin: join(dir, 'bin') };
  await python(shared.bin, ['-m', 'venv', '--without-pip', dir]);
  const sharedSites = [...new Set((await python(shared.bin, ['-c', sitePackages])).trim().split('\n'))];
  const [ownSite] = (await python(overlay.bin, ['-c', sitePackages])).trim().split('\n');
  if (ownSite === undefined || ownSite === '') throw new SandboxError(`The overlay venv ${dir} reports no site-packages folder.`, 'env-missing');
  await writeFile(join(ownSite, '_graph_planner_shared_env.pth'), `${sharedSites.join('\n')}\n`);
  await copyScripts(shared.bin, overlay.bin);
  return overlay;
}

/** The shared venv's console scripts, pointed at the overlay's interpreter. */
async function copyScripts(from: string, to: string): Promise<void> {
  const have = new Set(await readdir(to));
  const shebang = new RegExp(`^#!${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/python[0-9.]*`);
  for (const name of await readdir(from)) {
    if (have.has(name) || (await lstat(join(from, name))).isSymbolicLink()) continue;
    const text = await readFile(join(from, name), 'utf8').catch(() => undefined);
    if (text === undefined || !shebang.test(text)) continue;
    await writeFile(join(to, name), text.replace(shebang, `#!${join(to, 'python')}`), { mode: 0o755 });
  }
}
