/**
 * A task's Python environment from SWE-bench's environment scripts (datasets/swebenchEnv.ts), on
 * the script shapes the Verified fixture's specs use, and the conda lines the local backend drops
 * (testing/condaLines.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonEnvFromSpec, requirementLines } from '../../server/src/datasets/swebenchEnv.js';
import { withoutCondaActivation } from '../../server/src/testing/condaLines.js';
import { fixtureJsonl } from '../support/fixtures.js';

test('a pinned pip line: the conda Python version and every pin', () => {
  const env = pythonEnvFromSpec({
    env_script_list: [
      'source /opt/miniconda3/bin/activate',
      'conda create -n testbed python=3.9  -y',
      'conda activate testbed',
      'python -m pip install attrs==23.1.0 pytest==7.4.0 numpy==1.25.2',
    ],
  });
  assert.deepEqual(env, { python: '3.9', packages: ['attrs==23.1.0', 'pytest==7.4.0', 'numpy==1.25.2'] });
});

test('a requirements heredoc, then more pip lines; options, comments and editable installs dropped', () => {
  const env = pythonEnvFromSpec({
    env_script_list: [
      'source /opt/miniconda3/bin/activate',
      'conda create -n testbed python=3.11 -y',
      "cat <<'EOF_59812759871' > $HOME/requirements.txt\nalabaster==0.7.13\n# docs\njinja2 >= 2.9.2\npylibmc; sys.platform != 'win32'\n-e .\n\nEOF_59812759871",
      'conda activate testbed && python -m pip install -r $HOME/requirements.txt',
      'rm $HOME/requirements.txt',
      'python -m pip install --no-deps setuptools==70.0.0 -e . "Jinja2==3.1.2"',
    ],
  });
  // The later pin of a name replaces the earlier requirement, in its place.
  assert.deepEqual(env, { python: '3.11', packages: ['alabaster==0.7.13', 'Jinja2==3.1.2', "pylibmc; sys.platform != 'win32'", 'setuptools==70.0.0'] });
});

test('conda packages on the create line become pip requirements, a later pin wins', () => {
  const env = pythonEnvFromSpec({
    env_script_list: ['conda create -n testbed python=3.6 numpy scipy=1.5 cython pytest -y', 'python -m pip install cython numpy==1.19.2'],
  });
  assert.deepEqual(env, { python: '3.6', packages: ['numpy==1.19.2', 'scipy==1.5.*', 'cython', 'pytest'] });
});

test('an environment.yml is reported as conda-only rather than guessed', () => {
  const env = pythonEnvFromSpec({
    env_script_list: [
      "cat <<'EOF_1' > environment.yml\nname: testbed\nEOF_1",
      'conda create -c conda-forge -n testbed python=3.10 -y',
      'conda env update -f environment.yml',
      'python -m pip install numpy==1.23.0',
    ],
  });
  assert.equal(env?.incomplete, 'conda-environment-file');
  assert.equal(env?.python, '3.10');
});

test('every spec of the Verified fixture gives a Python version, and only matplotlib and xarray need conda (an environment.yml)', async () => {
  const rows = await fixtureJsonl('swebench/swebench_verified_tasks.jsonl');
  const condaOnly = new Set<string>();
  for (const row of rows as Array<{ sandbox: { swebench_spec: Record<string, unknown> } }>) {
    const spec = row.sandbox.swebench_spec;
    const env = pythonEnvFromSpec(spec);
    assert.ok(env?.python !== undefined && /^3\.\d+$/.test(env.python), `${String(spec['repo'])} ${String(spec['version'])}`);
    if (env.incomplete !== undefined) condaOnly.add(String(spec['repo']));
  }
  assert.deepEqual([...condaOnly].sort(), ['matplotlib/matplotlib', 'pydata/xarray']);
});

test('requirement lines keep markers and drop trailing comments', () => {
  assert.deepEqual(requirementLines('astroid==2.6.5  # Pinned\npytest~=6.2\n--index-url x\n'), ['astroid==2.6.5', 'pytest~=6.2']);
});

test('the local backend drops conda activation lines and only those', () => {
  const script = [
    '. /opt/miniconda3/bin/activate && conda activate testbed',
    'source /opt/miniconda3/bin/activate',
    'conda activate testbed',
    'git apply -v - <<EOF',
    'pytest -rA tests/x.py',
    'echo done && conda activate testbed',
  ].join('\n');
  const out = withoutCondaActivation(script);
  assert.equal(out.removed, 3);
  assert.equal(out.command, ['git apply -v - <<EOF', 'pytest -rA tests/x.py', 'echo done && conda activate testbed'].join('\n'));
  assert.deepEqual(withoutCondaActivation('pytest -rA'), { command: 'pytest -rA', removed: 0 });
});
