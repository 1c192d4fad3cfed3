/**
 * Data files the tests and benchmarks read, all inside the repository under `test/fixtures/`
 * (test/fixtures/README.md says where each came from), so that a fresh clone runs them with nothing
 * beside it. Large files are stored gzipped; the code under test reads many of them through paths
 * that take plain files only (task loading, registration, the image collector), so a gzipped
 * fixture is unpacked once into `.cache/fixtures/` of the repository and its plain path handed out.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

const repoRoot = resolve(__dirname, '..', '..');
const fixturesDir = join(repoRoot, 'test', 'fixtures');
const cacheDir = join(repoRoot, '.cache', 'fixtures');

/**
 * The plain path of `test/fixtures/<name>`: the file itself when it is stored as is, or the
 * unpacked copy of `<name>.gz`. The copy's name carries a hash of the gzipped bytes, so an updated
 * fixture never meets a stale copy, and it is written under a temporary name and renamed, so test
 * processes that unpack the same fixture at once never read a half-written file.
 */
export function fixturePath(name: string): string {
  const plain = join(fixturesDir, name);
  if (existsSync(plain)) return plain;
  const packed = `${plain}.gz`;
  if (!existsSync(packed)) throw new Error(`Fixture ${name} is missing: neither ${plain} nor ${packed} exists (test/fixtures/README.md lists the fixtures).`);
  const bytes = readFileSync(packed);
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const unpacked = join(cacheDir, `${digest}-${basename(name)}`);
  if (existsSync(unpacked)) return unpacked;
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${unpacked}.${process.pid}.partial`;
  writeFileSync(partial, gunzipSync(bytes));
  renameSync(partial, unpacked);
  return unpacked;
}

/** The text of `test/fixtures/<name>` (unpacked when stored gzipped). */
export function fixtureText(name: string): string {
  return readFileSync(fixturePath(name), 'utf8');
}

/** The non-blank lines of a JSONL fixture, each parsed. */
export function fixtureJsonl(name: string): Record<string, unknown>[] {
  return fixtureText(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The 300 rows of SWE-bench Lite's test split, as Hugging Face publishes them (gold patches included). */
export const swebenchLiteFixture = 'swebench/swebench_lite_test.jsonl';
/** The 499 tasks of SWE-bench Verified's test split in the original system's task format. */
export const swebenchVerifiedFixture = 'swebench/swebench_verified_tasks.jsonl';
/** The original system's Docker image manifest for the same 499 Verified tasks. */
export const swebenchVerifiedImagesFixture = 'swebench/swebench_verified_docker_images.txt';
