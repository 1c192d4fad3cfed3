/**
 * Reading Harbor task folders (datasets/harborTask.ts) on two real, public tasks
 * (test/fixtures/formats/harbor-tasks/, sources and licences in test/fixtures/formats/README.md),
 * and on broken copies of them: each problem names its file, and for task.toml its line and column.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readHarborTask } from '../../server/src/datasets/harborTask.js';

const fixtures = 'test/fixtures/formats/harbor-tasks';
const dir = mkdtempSync(join(tmpdir(), 'gp-harbor-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a task naming a pre-built image: its name, timeouts, network mode and verifier', async () => {
  const read = await readHarborTask(join(fixtures, 'simple-task'));
  assert.ok(read.ok, read.ok ? '' : read.problems.join('\n'));
  const { task } = read;
  assert.equal(task.config.task?.name, 'harbor-test/simple-task');
  assert.equal(task.config.environment?.docker_image, 'python:3.11-slim');
  assert.equal(task.config.environment?.network_mode, 'no-network');
  assert.equal(task.config.verifier?.timeout_sec, 60);
  assert.equal(task.config.agent?.timeout_sec, 120);
  assert.ok(task.instruction.trim().length > 0);
  assert.ok(task.verifier.endsWith(join('tests', 'test.sh')));
  assert.ok(task.solution?.endsWith(join('solution', 'solve.sh')));
});

test('Harbor’s own template task: its empty instruction is the one problem; filled in, it reads with its Dockerfile and float timeouts', async () => {
  const template = await readHarborTask(join(fixtures, 'template-task'));
  assert.equal(template.ok, false);
  if (!template.ok)
    assert.deepEqual(
      template.problems.map((p) => p.replace(/^.*instruction\.md: /, '')),
      ['empty; write what the agent is asked to do'],
    );
  const filled = join(dir, 'filled');
  cpSync(join(fixtures, 'template-task'), filled, { recursive: true });
  writeFileSync(join(filled, 'instruction.md'), 'Make the tests pass.\n');
  const read = await readHarborTask(filled);
  assert.ok(read.ok, read.ok ? '' : read.problems.join('\n'));
  assert.equal(read.task.config.schema_version, '1.4');
  assert.equal(read.task.config.verifier?.timeout_sec, 900);
  assert.ok(read.task.dockerfile?.endsWith(join('environment', 'Dockerfile')));
});

test('broken folders: TOML errors at their line and column, wrong types by key, missing files by name', async () => {
  const bad = join(dir, 'bad-toml');
  cpSync(join(fixtures, 'simple-task'), bad, { recursive: true });
  writeFileSync(join(bad, 'task.toml'), '[task]\nname = "x"\n[verifier]\ntimeout_sec = = 3\n');
  const toml = await readHarborTask(bad);
  assert.equal(toml.ok, false);
  if (!toml.ok) assert.match(toml.problems[0] ?? '', /task\.toml:4:\d+: not valid TOML/);

  const typed = join(dir, 'bad-type');
  cpSync(join(fixtures, 'simple-task'), typed, { recursive: true });
  writeFileSync(join(typed, 'task.toml'), '[environment]\ndocker_image = "img"\ncpus = "two"\nnetwork_mode = "internet"\n');
  const types = await readHarborTask(typed);
  assert.equal(types.ok, false);
  if (!types.ok) {
    assert.ok(
      types.problems.some((p) => /task\.toml:3:1: environment\.cpus: /.test(p)),
      types.problems.join('\n'),
    );
    assert.ok(
      types.problems.some((p) => /task\.toml:4:1: environment\.network_mode: /.test(p)),
      types.problems.join('\n'),
    );
  }

  // A time limit no timer can hold (Node fires it after 1 ms) is an error at its line, not a run
  // that is recorded as not gradable every time.
  const forever = join(dir, 'forever');
  cpSync(join(fixtures, 'simple-task'), forever, { recursive: true });
  writeFileSync(join(forever, 'task.toml'), '[task]\nname = "x"\n\n[verifier]\n  timeout_sec = 99999999999999\n[agent]\n"timeout_sec" = 1e400\n');
  const huge = await readHarborTask(forever);
  assert.equal(huge.ok, false);
  if (!huge.ok) {
    assert.ok(
      huge.problems.some((p) => /task\.toml:5:3: verifier\.timeout_sec: must be at most 2147483 seconds \(24\.8 days\)/.test(p)),
      huge.problems.join('\n'),
    );
    assert.ok(
      huge.problems.some((p) => /task\.toml:7:1: agent\.timeout_sec: /.test(p)),
      huge.problems.join('\n'),
    );
  }

  const bare = join(dir, 'bare');
  cpSync(join(fixtures, 'simple-task'), bare, { recursive: true });
  rmSync(join(bare, 'tests'), { recursive: true });
  rmSync(join(bare, 'environment'), { recursive: true });
  writeFileSync(join(bare, 'instruction.md'), '  \n');
  writeFileSync(join(bare, 'task.toml'), '[task]\nname = "x"\n');
  const missing = await readHarborTask(bare);
  assert.equal(missing.ok, false);
  if (!missing.ok) {
    assert.ok(missing.problems.some((p) => /instruction\.md: empty/.test(p)));
    assert.ok(missing.problems.some((p) => /tests\/test\.sh: missing/.test(p)));
    assert.ok(missing.problems.some((p) => /neither environment\/Dockerfile nor \[environment\] docker_image/.test(p)));
  }
});
