/**
 * The grader-facing surface of a task (server/src/testing/graderSurface.ts decides it): which rule a
 * change of a patch broke, and the facts about a task's environment the rule reads, as the facts
 * command (testing/graderFacts.ts) prints them from inside the sandbox. Read by the guard, `gp task
 * test --patch`, `gp dataset verify` (a verdict names the protected paths of its gold patch) and the
 * environment service.
 */
import { z } from 'zod';

/**
 * - `task-tests`: the task's own test files (by its ids of any style, its test patch, its test command);
 * - `runner-config`: a file the installed pytest reads as configuration, `conftest.py` anywhere;
 * - `startup-hook`: `sitecustomize.py`, `usercustomize.py`, run by Python's `site` at start-up;
 * - `package-metadata`: `*.dist-info`, `*.egg-info`, `*.egg-link`, `entry_points.txt`, `__editable__*`, `.pth`;
 * - `shadow`: a new top-level module at a folder on the test run's path, named like a standard or installed one.
 */
export const graderRules = ['task-tests', 'runner-config', 'startup-hook', 'package-metadata', 'shadow'] as const;
export const graderRuleSchema = z.enum(graderRules);
export type GraderRule = z.infer<typeof graderRuleSchema>;

/** One grader-facing change of a patch: the path, the rule and why it matters, in a sentence. */
export const graderFindingSchema = z.object({
  path: z.string(),
  rule: graderRuleSchema,
  reason: z.string(),
});
export type GraderFinding = z.infer<typeof graderFindingSchema>;

/** What the facts command prints (one JSON object); parsed here, at the edge, before the rule trusts it. */
export const environmentFactsSchema = z.object({
  /** The interpreter's version, `3.11.7`. */
  python: z.string(),
  /** Top-level standard-library names: `sys.stdlib_module_names`, or the stdlib folder's listing before 3.10. */
  stdlib: z.array(z.string()),
  /** How `stdlib` was found: `stdlib_module_names` or `listing`. */
  stdlib_from: z.enum(['stdlib_module_names', 'listing']),
  /** Top-level module names importable from the path entries outside the repository (site-packages). */
  installed: z.array(z.string()),
  /** The installed pytest, when there is one: its version and the configuration file names its `findpaths.py` names. */
  pytest: z.object({ version: z.string(), config_names: z.array(z.string()) }).nullable(),
});
export type EnvironmentFacts = z.infer<typeof environmentFactsSchema>;
