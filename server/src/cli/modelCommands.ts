/**
 * `gp model serve`: the embedded model (agents/embeddedModel.ts) on loopback until Ctrl-C, for a
 * person who wants to talk to it, point another tool at it, or run several commands against one
 * server. Runs with `backends.planner_backend: embedded` start and stop their own instead.
 */
import { EmbeddedModelError, embeddedSetupCommand, startEmbeddedModel } from '../agents/index.js';
import { parseCommandArgs, usageError } from './args.js';
import { intFlag, type Io } from './output.js';

export const modelServeUsage = `gp model serve [--port N] [--ctx TOKENS] [--threads N] [--model FILE] [--api-key-env NAME]
      Serve the embedded model (SmolLM2-135M-Instruct on this machine's CPU, installed once per
      machine by: ${embeddedSetupCommand}) as an OpenAI-compatible chat endpoint on
      127.0.0.1 (--port, default a free one), with a context of --ctx tokens (default 8192) and
      --threads CPU threads (default every core). Prints the model's path and sha256, the base
      URL and the bearer token every request must carry: a fresh one, or the value of the
      environment variable --api-key-env names. --model serves another GGUF file instead. Stops
      cleanly on Ctrl-C.`;

export const modelServeOptions = {
  port: { type: 'string' },
  ctx: { type: 'string' },
  threads: { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
} as const;

const command = { name: 'model serve', usage: modelServeUsage };

export async function modelServe(argv: readonly string[], io: Io, signal: AbortSignal | undefined): Promise<number> {
  const args = parseCommandArgs(command, argv, modelServeOptions, io);
  if (!args.ok) return args.exit;
  const v = args.values;
  const port = intFlag('--port', v.port, args.errors);
  if (port !== undefined && port > 65535) args.errors.push(`--port needs a port number (1-65535), not ${port}.`);
  const contextSize = intFlag('--ctx', v.ctx, args.errors) ?? 8192;
  if (contextSize < 512) args.errors.push(`--ctx needs at least 512 tokens, not ${contextSize}.`);
  const threads = intFlag('--threads', v.threads, args.errors);
  let apiKey: string | undefined;
  const keyEnv = v['api-key-env'];
  if (keyEnv !== undefined) {
    apiKey = process.env[keyEnv];
    if (apiKey === undefined || apiKey === '') args.errors.push(`--api-key-env ${keyEnv}: that environment variable is not set.`);
  }
  if (args.positionals.length > 0) args.errors.push(`unexpected argument '${args.positionals[0]}'.`);
  if (args.errors.length > 0) return usageError(command, io, args.errors);
  let ended: string | undefined;
  let server;
  try {
    server = await startEmbeddedModel({
      contextSize,
      ...(port === undefined ? {} : { port }),
      ...(threads === undefined ? {} : { threads }),
      ...(v.model === undefined ? {} : { model: v.model }),
      ...(apiKey === undefined ? {} : { apiKey }),
      onUnexpectedExit: (message) => {
        ended = message;
      },
    });
  } catch (error) {
    if (!(error instanceof EmbeddedModelError)) throw error;
    io.err(`gp model serve: ${error.message}`);
    return error.code === 'not-installed' || error.code === 'hash-mismatch' || error.code === 'bad-option' ? 2 : 1;
  }
  io.out(`model:    ${server.modelPath}`);
  io.out(`sha256:   ${server.sha256}`);
  io.out(`serving:  ${server.baseUrl} (model "${server.model}", context ${server.contextSize} tokens, ${server.threads ?? 'all'} threads, pid ${server.pid})`);
  io.out(
    keyEnv === undefined ? `api key:  ${server.apiKey} (send it as Authorization: Bearer; it changes on every start)` : `api key:  the value of $${keyEnv}`,
  );
  io.out('Press Ctrl-C to stop.');
  const stopped =
    signal === undefined ? new Promise<void>(() => undefined) : new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
  await Promise.race([stopped, server.exited]);
  if (ended !== undefined) {
    io.err(`gp model serve: ${ended}`);
    await server.close();
    return 1;
  }
  io.err('Stopping the embedded model server.');
  await server.close();
  io.err('Stopped.');
  return 0;
}
