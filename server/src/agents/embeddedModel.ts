/**
 * The embedded model server: llama.cpp's OpenAI-compatible server (llama-cpp-python, built once per
 * machine by scripts/setup-model-server.sh) serving the small instruction-tuned model that
 * scripts/setup-language-model.sh installs (SmolLM2-135M-Instruct, GGUF). It exists so that any
 * machine can check the whole model pipeline (prompt, reply, parse, step, report) end to end with
 * a real model and no GPU; it does not solve tasks. ARCHITECTURE.md says why this server and not
 * node-llama-cpp.
 *
 * The server listens on loopback only and demands a bearer token drawn fresh for each start. The
 * settings go to it in a private config file, not on its command line, so the token never shows
 * in the process list; `HOST` and `PORT`, which the server would prefer over the file, are removed
 * from its environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileSha256 } from '../util/fileHash.js';

/** The model file the setup installs, and its pinned hash (scripts/setup-language-model.sh). */
export const embeddedModelFile = 'SmolLM2-135M-Instruct.Q4_1.gguf';
export const embeddedModelSha256 = 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53';

/** The one line that installs what the embedded backend needs, for every "not installed" message. */
export const embeddedSetupCommand = 'bash scripts/setup-language-model.sh && bash scripts/setup-model-server.sh';

export class EmbeddedModelError extends Error {
  override readonly name = 'EmbeddedModelError';
  constructor(
    readonly code: 'not-installed' | 'hash-mismatch' | 'exited' | 'start-timeout' | 'bad-option',
    message: string,
  ) {
    super(message);
  }
}

/** Where the setup scripts put the model and the server, honouring the same variables they do. */
export function embeddedModelPaths(env: NodeJS.ProcessEnv = process.env): { model: string; python: string } {
  const cache = join(env['HOME'] ?? homedir(), '.cache', 'graph-planner');
  const modelDir = env['GP_LANGUAGE_MODEL_DIR'] ?? join(cache, 'models', 'smollm2-135m-instruct-q4_1');
  const venv = env['GP_MODEL_SERVER_VENV'] ?? join(cache, 'model-server-venv');
  return { model: join(modelDir, embeddedModelFile), python: join(venv, 'bin', 'python') };
}

export interface EmbeddedModelOptions {
  /** The GGUF file; default: the one the setup installed (then its hash must be the pinned one). */
  model?: string;
  /** The server's Python; default: the setup's virtual environment. */
  python?: string;
  /** The loopback port; 0 or absent picks a free one. */
  port?: number;
  contextSize: number;
  /** CPU threads; absent uses every core. */
  threads?: number;
  /** The bearer token; absent draws a fresh one. */
  apiKey?: string;
  /** How long the model may take to load (default 120 s). */
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Called once if the server exits before `close()`, with the last lines it wrote. */
  onUnexpectedExit?: (message: string) => void;
}

export interface EmbeddedModelServer {
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:43117/v1`. */
  readonly baseUrl: string;
  /** The model name requests carry. */
  readonly model: string;
  readonly apiKey: string;
  readonly modelPath: string;
  readonly sha256: string;
  readonly contextSize: number;
  readonly threads: number | undefined;
  readonly pid: number;
  /** Resolves when the server process has exited, for whatever reason. */
  readonly exited: Promise<void>;
  /** Stops the server: SIGTERM, then SIGKILL after a grace period. */
  close(): Promise<void>;
}

/** A free loopback port (the small race with another process taking it first is reported as a start failure). */
async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

async function mustExist(path: string, what: string): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new EmbeddedModelError(
      'not-installed',
      `the embedded ${what} is not installed: ${path} does not exist. Install it once per machine with: ${embeddedSetupCommand}`,
    );
  }
}

/** The last lines a process wrote, kept for the message when it dies. */
function tail(child: ChildProcess, keep = 12): () => string {
  const lines: string[] = [];
  const add = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line.length > 300 ? `${line.slice(0, 297)}...` : line);
      if (lines.length > keep) lines.shift();
    }
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => lines.join('\n');
}

async function answers(baseUrl: string, apiKey: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export async function startEmbeddedModel(options: EmbeddedModelOptions): Promise<EmbeddedModelServer> {
  const env = options.env ?? process.env;
  const installed = embeddedModelPaths(env);
  const modelPath = options.model ?? installed.model;
  const python = options.python ?? installed.python;
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1))
    throw new EmbeddedModelError('bad-option', `threads must be a positive integer, not ${options.threads}`);
  await mustExist(modelPath, options.model === undefined ? 'model' : 'model file');
  await mustExist(python, 'model server');
  const sha256 = await fileSha256(modelPath);
  if (options.model === undefined && sha256 !== embeddedModelSha256) {
    throw new EmbeddedModelError(
      'hash-mismatch',
      `${modelPath} has sha256 ${sha256}, not the pinned ${embeddedModelSha256}; it is damaged or replaced. Delete it and run: ${embeddedSetupCommand}`,
    );
  }
  const port = options.port !== undefined && options.port > 0 ? options.port : await freePort();
  const apiKey = options.apiKey ?? randomBytes(24).toString('hex');
  const model = basename(modelPath).replace(/\.gguf$/i, '');
  const dir = await mkdtemp(join(tmpdir(), 'gp-model-'));
  const configFile = join(dir, 'server.json');
  const settings = {
    host: '127.0.0.1',
    port,
    api_key: apiKey,
    // Parallel episodes send requests at once; llama.cpp's default would cut one off for the next.
    interrupt_requests: false,
    // logits_all is the server's default and keeps a vocabulary-wide row of logits for every prompt
    // token, which only prompt log-probabilities need; without it a call ran about 20% slower than
    // llama.cpp driven directly (bench/modelFigures.ts, model-server-tokens-per-s).
    models: [
      {
        model: modelPath,
        model_alias: model,
        n_ctx: options.contextSize,
        logits_all: false,
        ...(options.threads === undefined ? {} : { n_threads: options.threads, n_threads_batch: options.threads }),
        verbose: false,
      },
    ],
  };
  await writeFile(configFile, JSON.stringify(settings), { mode: 0o600 });
  const childEnv: NodeJS.ProcessEnv = { ...env };
  for (const name of ['HOST', 'PORT', 'CONFIG_FILE', 'API_KEY']) delete childEnv[name];
  const child = spawn(python, ['-m', 'llama_cpp.server', '--config_file', configFile], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv });
  const lastLines = tail(child);
  let closing = false;
  let exitMessage: string | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exitMessage = `the embedded model server (pid ${child.pid ?? '?'}) exited with ${signal ?? `code ${code ?? '?'}`}`;
      if (!closing) options.onUnexpectedExit?.(`${exitMessage}${lastLines() ? `; its last output:\n${lastLines()}` : ''}`);
      resolveExit();
    });
    child.once('error', (error) => {
      exitMessage = `the embedded model server could not start (${error.message})`;
      resolveExit();
    });
  });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const close = async (): Promise<void> => {
    closing = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const graceful = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!graceful) child.kill('SIGKILL');
    }
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  try {
    for (;;) {
      if (exitMessage !== undefined) {
        throw new EmbeddedModelError(
          'exited',
          `${exitMessage} before it answered. ${python.endsWith('/bin/python') ? `A broken or partial build is rebuilt by deleting ${python.slice(0, -'/bin/python'.length)} and running ${embeddedSetupCommand}; if` : 'If'} it says the address is in use, give another --port, or none so that a free one is chosen${lastLines() ? `. Its last output:\n${lastLines()}` : '.'}`,
        );
      }
      if (await answers(baseUrl, apiKey)) break;
      if (Date.now() > deadline) {
        throw new EmbeddedModelError(
          'start-timeout',
          `the embedded model server did not answer on ${baseUrl} within ${Math.round((options.startTimeoutMs ?? 120_000) / 1000)} s; the machine may be too busy to load the model: try again when it is quieter, or give it fewer threads${lastLines() ? `. Its last output:\n${lastLines()}` : '.'}`,
        );
      }
      await sleep(200);
    }
  } catch (error) {
    await close();
    throw error;
  }
  // The server has read its settings; the token need not stay on disk.
  await rm(dir, { recursive: true, force: true });
  return { baseUrl, model, apiKey, modelPath, sha256, contextSize: options.contextSize, threads: options.threads, pid: child.pid ?? 0, exited, close };
}
