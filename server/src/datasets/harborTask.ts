/**
 * Reading one Harbor task folder (docs/field-formats.md, "Harbor task folders"): `task.toml`, the
 * instruction, the environment's Dockerfile, the verifier's `tests/test.sh` and the optional
 * oracle `solution/solve.sh`. Only the keys a conversion needs are checked (the task's name, the
 * agent's and verifier's timeouts, the environment's image and resources, its network mode); the
 * rest of `task.toml` is kept as it was. A problem names the file, and for `task.toml` the line and
 * column (smol-toml's own positions, or the key path for a value of the wrong type), and what to
 * do. `harborPrepare.ts` converts what it reads into task entries.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { timerSeconds } from '../protocol/durations.js';
import { tomlKeyPosition } from './tomlPosition.js';

const seconds = timerSeconds();

/** The part of `task.toml` a conversion reads; every other key passes through untouched. */
export const harborTaskTomlSchema = z
  .object({
    schema_version: z.string().optional(),
    version: z.string().optional(),
    task: z
      .object({ name: z.string().min(1).optional(), description: z.string().optional() })
      .passthrough()
      .optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    agent: z.object({ timeout_sec: seconds.optional() }).passthrough().optional(),
    verifier: z
      .object({ timeout_sec: seconds.optional(), environment_mode: z.enum(['shared', 'separate']).optional() })
      .passthrough()
      .optional(),
    environment: z
      .object({
        docker_image: z.string().min(1).optional(),
        build_timeout_sec: seconds.optional(),
        cpus: z.number().positive().optional(),
        memory_mb: z.number().int().positive().optional(),
        storage_mb: z.number().int().positive().optional(),
        gpus: z.number().int().min(0).optional(),
        network_mode: z.enum(['no-network', 'public', 'allowlist']).optional(),
        allow_internet: z.boolean().optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type HarborTaskToml = z.infer<typeof harborTaskTomlSchema>;

export interface HarborTask {
  readonly dir: string;
  readonly config: HarborTaskToml;
  readonly instruction: string;
  /** `environment/Dockerfile`, when the task builds its image rather than naming one. */
  readonly dockerfile: string | undefined;
  /** `tests/test.sh`: the verifier, which writes the reward (testing/harborReward.ts). */
  readonly verifier: string;
  /** `solution/solve.sh`, the oracle, when the task has one. */
  readonly solution: string | undefined;
}

export type HarborTaskRead = { readonly ok: true; readonly task: HarborTask } | { readonly ok: false; readonly problems: readonly string[] };

/** Reads the task folder `dir`; every problem found is said, each with its file. */
export async function readHarborTask(dir: string): Promise<HarborTaskRead> {
  const problems: string[] = [];
  const tomlPath = join(dir, 'task.toml');
  let config: HarborTaskToml | undefined;
  let text: string | undefined;
  try {
    text = await readFile(tomlPath, 'utf8');
  } catch {
    problems.push(`${tomlPath}: missing; a Harbor task folder has a task.toml beside its instruction.md`);
  }
  if (text !== undefined) {
    try {
      const parsed = harborTaskTomlSchema.safeParse(parse(text));
      if (parsed.success) config = parsed.data;
      else {
        for (const issue of parsed.error.issues.slice(0, 5)) {
          const at = tomlKeyPosition(text, issue.path as (string | number)[]);
          problems.push(
            `${tomlPath}${at === undefined ? '' : `:${at.line}:${at.column}`}: ${issue.path.join('.')}: ${issue.message}; fix the value or remove the key`,
          );
        }
      }
    } catch (error) {
      if (error instanceof TomlError) problems.push(`${tomlPath}:${error.line}:${error.column}: not valid TOML (${error.message.split('\n')[0] ?? ''})`);
      else throw error;
    }
  }
  const instructionPath = join(dir, 'instruction.md');
  const instruction = await readFile(instructionPath, 'utf8').catch(() => undefined);
  if (instruction === undefined) problems.push(`${instructionPath}: missing; the instruction is what the agent is asked to do`);
  else if (instruction.trim() === '') problems.push(`${instructionPath}: empty; write what the agent is asked to do`);
  const verifier = join(dir, 'tests', 'test.sh');
  if (!existsSync(verifier)) problems.push(`${verifier}: missing; the verifier writes the task's reward, so a task without it cannot be graded`);
  const dockerfile = join(dir, 'environment', 'Dockerfile');
  const hasDockerfile = existsSync(dockerfile);
  if (config !== undefined && !hasDockerfile && config.environment?.docker_image === undefined)
    problems.push(`${dir}: neither environment/Dockerfile nor [environment] docker_image in task.toml; name the image the task runs in`);
  const solution = join(dir, 'solution', 'solve.sh');
  if (problems.length > 0 || config === undefined || instruction === undefined) return { ok: false, problems };
  return {
    ok: true,
    task: { dir, config, instruction, dockerfile: hasDockerfile ? dockerfile : undefined, verifier, solution: existsSync(solution) ? solution : undefined },
  };
}
