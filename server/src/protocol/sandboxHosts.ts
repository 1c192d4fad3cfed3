/**
 * Sandbox hosts (docs/sandbox-hosts.md): one `gp sandbox-host` per Ray node that offers sandboxes,
 * each owning its node's Docker daemon and the episodes it runs, and one front door (the
 * environment service of `gp train --ray`, or `gp eval --ray` itself) that routes episodes to
 * them. These are the bodies between the two: what a host is told when it starts, how it
 * registers, and what it sends back when an episode ends. Every request carries a bearer token.
 */
import { z } from 'zod';
import { backendChoiceSchema } from './backendChoice.js';
import { closeReplySchema, healthReplySchema, serviceErrorSchema } from './envService.js';
import { trajectoryEndSchema } from './runs.js';

/** The Ray custom resource a node advertises its sandbox slots under (`ray start --resources`). */
export const sandboxSlotsResource = 'gp_sandbox_slots';

/**
 * What every host of a run is started with: written by the front door (0600), read by the Ray
 * job's driver and handed to each host through Ray, so a node needs no shared folder with the
 * launching machine. The registry's token is a secret: it never goes into a job's submission.
 */
export const hostSpecSchema = z.object({
  run_name: z.string().min(1),
  /** Where hosts register, and the token they register with. */
  registry: z.object({ url: z.string().url(), token: z.string().min(16) }),
  /** The run's resolved experiment config (YAML): every host runs episodes exactly as configured. */
  config_text: z.string(),
  /** The tasks episodes may be created for, one JSON task per line, their paths made absolute. */
  tasks_text: z.string(),
  /** `gp train --smoke`'s scripted policy: the host serves its replies (GET /episodes/{id}/policy). */
  scripted_policy: z.boolean().default(false),
  /** The experiment's planner prompt as the agent loop is told to send it. */
  prompt: z.object({ system_prompt: z.string(), observation_budget: z.number().int().positive().optional() }).optional(),
  /** Past this, from its creation, a host ends an episode itself. */
  episode_deadline_ms: z.number().int().positive(),
  /** How a node starts our CLI: the node executable and `dist/cli.js`. */
  cli: z.array(z.string()).min(1),
  /** Where hosts listen: loopback (every node on one machine), or the node's own address (a cluster of machines). */
  listen: z.enum(['loopback', 'node']).default('loopback'),
  /** Restarts Ray gives a host whose process died (its episodes are lost either way). */
  max_restarts: z.number().int().min(0).default(2),
});
export type HostSpec = z.infer<typeof hostSpecSchema>;

/** POST /hosts at the registry: a host that has started and takes episodes. */
export const hostRegistrationSchema = z.object({
  id: z.string().min(1).max(200),
  /** The Ray node it runs on. */
  node: z.string().min(1).max(200),
  /** Where the front door reaches it. */
  url: z.string().url(),
  token: z.string().min(16),
  /** Episodes it runs at once: its node's `gp_sandbox_slots`. */
  slots: z.number().int().min(0),
  /** The task images its Docker daemon holds, for routing an episode where no pull is needed. */
  images: z.array(z.string()).max(100_000),
  pid: z.number().int(),
});
export type HostRegistration = z.infer<typeof hostRegistrationSchema>;

/** GET /health of a host: a host is an environment service, so its health is the service's. */
export const hostHealthSchema = healthReplySchema;

/** One file an episode wrote, relative to the run folder, its bytes in base64. */
export const episodeFileSchema = z.object({ path: z.string().min(1).max(1000), data: z.string() });
export type EpisodeFile = z.infer<typeof episodeFileSchema>;

/**
 * POST /episodes/{id}/close at a host, answered to the front door: what the client is told (the
 * close reply, or the error of an episode the infrastructure failed), with the episode's end line
 * and every file it wrote, so the front door writes them into the run folder from this one answer.
 * The host removes its copy once it has answered.
 */
export const hostCloseReplySchema = z.object({
  outcome: z.union([closeReplySchema, serviceErrorSchema]),
  /** Absent when the episode failed before its end line was written. */
  end: trajectoryEndSchema.omit({ type: true }).optional(),
  files: z.array(episodeFileSchema),
});
export type HostCloseReply = z.infer<typeof hostCloseReplySchema>;

/** POST /runs at a host: run one whole episode with the run's own agent (`gp eval --ray`). */
export const runEpisodeBodySchema = z.object({
  episode_id: z.string().min(1).max(300),
  task_id: z.string().min(1),
  attempt: z.number().int().min(1),
});
export type RunEpisodeBody = z.infer<typeof runEpisodeBodySchema>;

/** The answer to POST /runs: how the episode ended, where its records are, and the files themselves. */
export const runEpisodeReplySchema = z.object({
  end: trajectoryEndSchema.omit({ type: true }),
  trajectory: z.string(),
  instance_report: z.string().optional(),
  /** Which backend its sandbox opened on, and why when `auto` fell back (absent when none opened). */
  backend: backendChoiceSchema.optional(),
  files: z.array(episodeFileSchema),
});
export type RunEpisodeReply = z.infer<typeof runEpisodeReplySchema>;
