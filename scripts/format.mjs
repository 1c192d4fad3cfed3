// Formats the project's code, or with --check (what `npm run lint` runs) fails naming each file that
// is not formatted: Prettier (.prettierrc.json) for TypeScript and JavaScript, ruff (ruff.toml) for
// Python. ruff is a pinned binary from PyPI that scripts/setup-ruff.sh installs once per machine.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

const check = process.argv.includes('--check');
const code = ['{server,extension,webview,test,bench,scripts}/**/*.{ts,mjs}', '*.mjs'];
const ruffVersion = '0.17.6';
const ruff = join(process.env.GP_RUFF_DIR ?? join(homedir(), '.cache', 'graph-planner', `ruff-${ruffVersion}`), 'ruff');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  return r.status === 0;
}

let ok = run('bash', ['scripts/setup-ruff.sh']);
ok = run(process.execPath, ['node_modules/prettier/bin/prettier.cjs', check ? '--check' : '--write', '--log-level', check ? 'warn' : 'log', ...code]) && ok;
ok = run(ruff, ['format', ...(check ? ['--check'] : []), '.']) && ok;
if (!ok) {
  console.error(check ? 'Some files are not formatted: run `npm run format`, then commit.' : 'Formatting failed; see above.');
  process.exit(1);
}
