/**
 * The benchmark's instances: SWE-bench Lite's 300 test rows (`test/fixtures/swebench/`), each
 * repository's project on the package index, the selection a run asks for, and the groups that
 * share one release (and so one graph).
 */
import { z } from 'zod';
import { fixtureJsonl, swebenchLiteFixture } from '../test/support/fixtures.js';

const instanceSchema = z.object({
  repo: z.string(),
  instance_id: z.string(),
  patch: z.string(),
  problem_statement: z.string(),
  version: z.string(),
});
export type Instance = z.infer<typeof instanceSchema>;

/** The package-index project that publishes each repository's releases. */
export const indexProjects: Readonly<Record<string, string>> = {
  'django/django': 'Django',
  'sympy/sympy': 'sympy',
  'scikit-learn/scikit-learn': 'scikit-learn',
  'matplotlib/matplotlib': 'matplotlib',
  'sphinx-doc/sphinx': 'Sphinx',
  'pytest-dev/pytest': 'pytest',
  'astropy/astropy': 'astropy',
  'pydata/xarray': 'xarray',
  'pylint-dev/pylint': 'pylint',
  'psf/requests': 'requests',
  'mwaskom/seaborn': 'seaborn',
  'pallets/flask': 'Flask',
};

/** The fixture's rows in its order; a row without the fields used here is a broken fixture, so it throws. */
export function loadInstances(): Instance[] {
  return fixtureJsonl(swebenchLiteFixture).map((row) => instanceSchema.parse(row));
}

/** Whether `repo` (`owner/name`) is one of `wanted`, given as `owner/name` or `name`. */
export function repoWanted(repo: string, wanted: ReadonlySet<string> | null): boolean {
  return wanted === null || wanted.has(repo) || wanted.has(repo.slice(repo.indexOf('/') + 1));
}

/** The instances of the wanted repositories, the first `limit` of them in the fixture's order. */
export function selectInstances(all: readonly Instance[], repos: ReadonlySet<string> | null, limit: number | null): Instance[] {
  const chosen = all.filter((i) => repoWanted(i.repo, repos));
  return limit === null ? chosen : chosen.slice(0, limit);
}

export interface InstanceGroup {
  readonly repo: string;
  readonly version: string;
  readonly instances: readonly Instance[];
}

/** Instances by (repository, version), in order of first appearance. */
export function groupInstances(instances: readonly Instance[]): InstanceGroup[] {
  const groups = new Map<string, { repo: string; version: string; instances: Instance[] }>();
  for (const instance of instances) {
    const key = `${instance.repo}@${instance.version}`;
    const group = groups.get(key) ?? { repo: instance.repo, version: instance.version, instances: [] };
    group.instances.push(instance);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The issue as the graph takes it: the first non-empty line is the title, the rest the body. */
export function issueOf(problemStatement: string): { title: string; body: string } {
  const lines = problemStatement.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return { title: '', body: '' };
  return {
    title: (lines[first] ?? '').trim(),
    body: lines
      .slice(first + 1)
      .join('\n')
      .trim(),
  };
}
