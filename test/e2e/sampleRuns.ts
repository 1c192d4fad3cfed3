/**
 * Real runs for the editor's tests: `gp rollout` of the sample tasks in a session's workspace with
 * the built CLI, as a person would run it in the terminal.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, type Session } from './harness.js';

/** The run folders under the workspace's `outputs/`, by name. */
export function runs(s: Session): string[] {
  const out = join(s.workspace, 'outputs');
  return existsSync(out) ? readdirSync(out).sort() : [];
}

/**
 * Runs `gp rollout` of the sample tasks (`extra` narrows or changes it); returns the new run
 * folder's name. Without embeddings: the .vsix does not carry onnxruntime-node, so a replay or a
 * fork the viewer starts (the installed extension's CLI) could not run them, and would rightly
 * report that the hints differ.
 */
export function sampleRollout(s: Session, extra: readonly string[] = []): string {
  const before = new Set(runs(s));
  const result = spawnSync(
    process.execPath,
    [
      join(repoRoot, 'dist/cli.js'),
      'rollout',
      'datasets/sample/tasks.jsonl',
      '--config',
      'configs/experiments/sample.yaml',
      '--set',
      'env.semantic_search=off',
      ...extra,
    ],
    { cwd: s.workspace, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(result.status, 0, `gp rollout failed:\n${result.stdout}\n${result.stderr}`);
  const made = runs(s).filter((r) => !before.has(r));
  assert.equal(made.length, 1, `one new run folder: ${made.join(', ')}`);
  return made[0] ?? '';
}
