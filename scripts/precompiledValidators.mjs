// The esbuild plugin that puts precompiled JSON Schema validators into the bundles: each module
// listed here (it exports `validatorSpecs` and the validators compiled from them, see
// server/src/util/ajvValidators.ts) is replaced by ajv's standalone source for the same specs, so a
// bundle loads ready-made validators instead of compiling them at every start.
import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';

const modules = ['server/src/config/experimentValidators.ts'];

/** The plugin, with the standalone sources generated once (through tsx, since the specs are TypeScript). */
export function precompiledValidators(root) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'emitValidators.ts'), ...modules.map((m) => join(root, m))], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`scripts/emitValidators.ts failed (${run.status ?? run.signal}): ${run.stderr}`);
  const sources = new Map(Object.entries(JSON.parse(run.stdout)));
  const filter = new RegExp(`/(${modules.map((m) => basename(m).replace(/\./g, '\\.')).join('|')})$`);
  return {
    name: 'precompiled-validators',
    setup(build) {
      build.onLoad({ filter }, (args) => {
        const contents = sources.get(args.path);
        return contents === undefined ? undefined : { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}
