/**
 * Parquet files for tests and benchmarks, shaped like the public datasets: SWE-bench rows (every
 * column a string, as the Hugging Face files have them) made from the real rows in
 * `test/fixtures/swebench/swebench_lite_test.jsonl.gz`, and R2E-Gym rows with the columns of the published
 * dataset cards (docs/upstream-contracts.md#r2e-gym-dataset-columns), generated deterministically because no R2E-Gym data
 * can be downloaded here. Written with hyparquet-writer, the library the product registers with.
 */
import { parquetWriteFile } from 'hyparquet-writer';
import { fixtureJsonl, swebenchLiteFixture } from './fixtures.js';
import { seededRandom } from '../../server/src/util/seededRandom.js';

/** The column types the fixtures need: strings, 64-bit integers, booleans and lists of strings. */
export type FixtureColumnType = 'STRING' | 'INT64' | 'BOOLEAN' | 'STRING_LIST';

export interface FixtureColumn {
  readonly name: string;
  readonly type: FixtureColumnType;
}

type SchemaElement = Record<string, unknown>;

function schemaFor(columns: readonly FixtureColumn[]): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  for (const { name, type } of columns) {
    if (type === 'STRING') schema.push({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
    else if (type === 'INT64') schema.push({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
    else if (type === 'BOOLEAN') schema.push({ name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' });
    else {
      schema.push(
        { name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      );
    }
  }
  return schema;
}

function cell(value: unknown, type: FixtureColumnType): unknown {
  if (value === undefined || value === null) return null;
  if (type === 'INT64') return BigInt(value as number);
  return value;
}

/**
 * Writes `rows` as a parquet file with the given columns (a row's missing key is a null), in row
 * groups of `rowGroupSize` rows (default 1,000, like Hugging Face's converted files' small groups).
 */
export function writeFixtureParquet(
  path: string,
  rows: readonly Record<string, unknown>[],
  columns: readonly FixtureColumn[],
  options: { rowGroupSize?: number } = {},
): void {
  const columnData = columns.map(({ name, type }) => ({ name, data: rows.map((row) => cell(row[name], type)) }));
  // hyparquet-writer's types describe its column data loosely; the schema above fixes the types.
  const write = parquetWriteFile as (options: Record<string, unknown>) => void;
  write({ filename: path, schema: schemaFor(columns), columnData, rowGroupSize: options.rowGroupSize ?? 1000 });
}

/** SWE-bench's Hugging Face columns (docs/upstream-contracts.md#swe-bench-dataset-fields): all strings. */
export const swebenchColumns: readonly FixtureColumn[] = [
  'repo',
  'instance_id',
  'base_commit',
  'patch',
  'test_patch',
  'problem_statement',
  'hints_text',
  'created_at',
  'version',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
  'environment_setup_commit',
].map((name) => ({ name, type: 'STRING' as const }));

/** The 300 real SWE-bench Lite rows of the repository's fixture, as parsed objects. */
export function swebenchLiteRows(): Record<string, unknown>[] {
  return fixtureJsonl(swebenchLiteFixture);
}

/** R2E-Gym's columns (docs/upstream-contracts.md#r2e-gym-dataset-columns). */
export const r2eColumns: readonly FixtureColumn[] = [
  { name: 'repo_name', type: 'STRING' },
  { name: 'docker_image', type: 'STRING' },
  { name: 'commit_hash', type: 'STRING' },
  { name: 'parsed_commit_content', type: 'STRING' },
  { name: 'execution_result_content', type: 'STRING' },
  { name: 'modified_files', type: 'STRING_LIST' },
  { name: 'modified_entity_summaries', type: 'STRING_LIST' },
  { name: 'relevant_files', type: 'STRING_LIST' },
  { name: 'num_non_test_files', type: 'INT64' },
  { name: 'num_non_test_func_methods', type: 'INT64' },
  { name: 'num_non_test_lines', type: 'INT64' },
  { name: 'prompt', type: 'STRING' },
  { name: 'problem_statement', type: 'STRING' },
  { name: 'expected_output_json', type: 'STRING' },
];

const r2eRepos = ['pandas', 'numpy', 'pillow', 'orange3', 'aiohttp', 'tornado', 'scrapy', 'pyramid', 'datalad', 'coveragepy'];

/**
 * `count` R2E-Gym-shaped rows with realistic sizes (a few kilobytes of issue text, commit content
 * and test results each). Row `i` is the same for any `count`, and every row has a distinct
 * commit, so content-derived ids are distinct.
 */
export function r2eShapedRows(count: number, seed = 7): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const next = seededRandom(seed * 1_000_003 + i);
    const repo = r2eRepos[i % r2eRepos.length] ?? 'pandas';
    const commit = Array.from({ length: 40 }, () => Math.floor(next() * 16).toString(16)).join('');
    const file = `${repo}/core/module_${Math.floor(next() * 50)}.py`;
    const tests = Array.from({ length: 8 + Math.floor(next() * 24) }, (_, t) => `tests/test_module.py::TestCase::test_case_${t}`);
    const expected = Object.fromEntries(tests.map((t, k) => [t, k === 0 ? 'FAILED' : 'PASSED']));
    const body = `[ISSUE]\nCalling ${repo}.function_${i}() with an empty input raises IndexError.\n\n${'The function should return an empty result instead of raising. '.repeat(20 + Math.floor(next() * 20))}\n[/ISSUE]`;
    rows.push({
      repo_name: repo,
      docker_image: `namanjain12/${repo}_final:${commit}`,
      commit_hash: commit,
      parsed_commit_content: JSON.stringify({
        old_commit_hash: `${commit.slice(1)}0`,
        new_commit_hash: commit,
        file_diffs: [{ header: { file: { path: file } }, hunks: [{ lines: Array.from({ length: 40 }, (_, l) => `+    line ${l} of the fix`) }] }],
      }),
      execution_result_content: JSON.stringify({
        old_commit_res_map: expected,
        new_commit_res_map: Object.fromEntries(tests.map((t) => [t, 'PASSED'])),
        test_file_codes: ['x = 1\n'.repeat(100)],
      }),
      modified_files: [file],
      modified_entity_summaries: [`function_${i} in ${file}`],
      relevant_files: [file, `${repo}/core/__init__.py`],
      num_non_test_files: 1,
      num_non_test_func_methods: 1 + Math.floor(next() * 3),
      num_non_test_lines: 5 + Math.floor(next() * 40),
      prompt: `Write an issue for the commit ${commit} of ${repo}.`,
      problem_statement: body,
      expected_output_json: JSON.stringify(expected),
    });
  }
  return rows;
}
