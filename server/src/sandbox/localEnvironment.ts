/**
 * The environment a task's command gets on the local backend. It runs on this machine, in the
 * user's own session, so passing `process.env` on would hand every token and key there (`HF_TOKEN`,
 * a model API key, cloud credentials) to a test suite someone else wrote, and into the run's test
 * logs. Only what Python, git and test runners need is passed, by name; `HOME` is the sandbox's own
 * folder, so `~/.ssh`, `~/.aws` and `~/.netrc` are not where a command looks for them.
 */

/** Variables passed on by name: where programs are, the locale and terminal, certificates, toolchains. */
const passedNames = new Set([
  'PATH',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'TMPDIR',
  'SHELL',
  'USER',
  'LOGNAME',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'JAVA_HOME',
  'GOROOT',
  'GOPATH',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'NODE_PATH',
]);

/** Variables passed by prefix: the locale's categories. */
const passedPrefixes = ['LC_'];

/** The host variables a task's command may see, with `HOME` pointing at `home`. */
export function localCommandEnvironment(inherited: NodeJS.ProcessEnv, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value === undefined) continue;
    if (passedNames.has(name) || passedPrefixes.some((p) => name.startsWith(p))) env[name] = value;
  }
  env['HOME'] = home;
  return env;
}
