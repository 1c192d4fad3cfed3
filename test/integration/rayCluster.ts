/**
 * A real two-node Ray 2.60 cluster on this machine for integration tests: a head and a worker, two
 * raylets, each advertising its own `gp_sandbox_slots`, started with the trainer environment's Ray
 * (python/setup.sh). Both nodes share this machine's Docker daemon.
 *
 * Other Ray clusters may run on the same machine (other test files, other people), so nothing here
 * uses `ray stop`, which stops every Ray process of the user: each node gets a unique temp dir and
 * free ports, `ray start` runs in a process group of its own (the daemons it leaves behind keep
 * that group), and `stop()` signals those processes, the ones whose command line names the temp
 * dir, and all their descendants (Ray's workers take process groups of their own), then removes
 * the temp dir.
 *
 *     const cluster = await startTwoNodeCluster({ headSlots: 3, workerSlots: 2 });
 *     // cluster.address: http://127.0.0.1:PORT (the dashboard, for --ray); cluster.gcsAddress: 127.0.0.1:PORT
 *     await cluster.stop();
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { trainerPython } from '../../server/src/cluster/index.js';

export interface StartedNode {
  readonly nodeId: string;
  readonly slots: number;
  readonly head: boolean;
}

export interface TwoNodeCluster {
  /** The head's dashboard, `http://127.0.0.1:PORT`: what `--ray` takes. */
  readonly address: string;
  /** The head's GCS, `127.0.0.1:PORT`: what `ray start --address` and `ray.init(address=…)` take. */
  readonly gcsAddress: string;
  /** Head first. */
  readonly nodes: readonly StartedNode[];
  readonly tempDir: string;
  /** The Python whose Ray runs the cluster. */
  readonly python: string;
  /** Stops both nodes (only the processes this cluster started) and removes its temp dir. */
  stop(): Promise<void>;
}

export interface TwoNodeOptions {
  readonly headSlots: number;
  readonly workerSlots: number;
  /** CPUs each node offers Ray (default 1: the tasks that matter here ask for none). */
  readonly numCpus?: number;
  readonly python?: string;
  /** For each `ray start` and for the nodes to show up (default 180 s; two cores are slow). */
  readonly timeoutMs?: number;
}

const rayCli = ['-m', 'ray.scripts.scripts'];

/** Ports the kernel hands out now: in the ephemeral range, above Ray's worker ports (10002-19999). */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    servers.push(server);
    ports.push(address.port);
  }
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/** Runs `ray start …` in a new process group; resolves with that group's id once it has returned. */
function rayStart(python: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [...rayCli, 'start', ...args], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && child.pid !== undefined) resolve(child.pid);
      else reject(new Error(`ray start ${args.join(' ')} exited ${code ?? 'by a signal'}:\n${output.slice(-3000)}`));
    });
  });
}

interface StateNode {
  node_id: string;
  state: string;
  is_head_node: boolean;
  resources_total: Record<string, number>;
}

async function aliveNodes(dashboard: string): Promise<StateNode[]> {
  const answer = await fetch(`${dashboard}/api/v0/nodes?limit=100`);
  if (!answer.ok) return [];
  const body = (await answer.json()) as { data?: { result?: { result?: StateNode[] } } };
  return (body.data?.result?.result ?? []).filter((n) => n.state === 'ALIVE');
}

interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly cmdline: string;
}

function processes(): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      // After the last ')': the command name may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // Gone already.
    }
  }
  return found;
}

/**
 * This cluster's processes: those in the process groups its `ray start`s made, those whose command
 * line names its temp dir, and their descendants (Ray's workers take process groups of their own).
 */
function clusterProcesses(groups: readonly number[], dir: string): number[] {
  const all = processes();
  const ours = new Set(all.filter((p) => groups.includes(p.pgid) || p.cmdline.includes(dir)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!ours.has(p.pid) && ours.has(p.ppid)) {
        ours.add(p.pid);
        grew = true;
      }
    }
  }
  return [...ours];
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // Already gone.
  }
}

export async function startTwoNodeCluster(options: TwoNodeOptions): Promise<TwoNodeCluster> {
  const python = options.python ?? trainerPython(undefined);
  const timeoutMs = options.timeoutMs ?? 180_000;
  // Short: Ray's Unix sockets live under it, and a socket path may hold only 107 bytes.
  const tempDir = mkdtempSync('/tmp/gp-ray-');
  const { RAY_ADDRESS: _ignored, ...inherited } = process.env;
  const env = { ...inherited, RAY_USAGE_STATS_ENABLED: '0' };
  const [gcs, dashboard, client, ...rest] = await freePorts(15);
  const perNode = (ports: readonly number[]) => {
    const [agent, agentGrpc, runtimeEnv, metrics, nodeManager, objectManager] = ports.map(String);
    return [
      '--dashboard-agent-listen-port',
      agent,
      '--dashboard-agent-grpc-port',
      agentGrpc,
      '--runtime-env-agent-port',
      runtimeEnv,
      '--metrics-export-port',
      metrics,
      '--node-manager-port',
      nodeManager,
      '--object-manager-port',
      objectManager,
    ].map((w) => w ?? '');
  };
  const common = [
    '--node-ip-address',
    '127.0.0.1',
    '--num-cpus',
    String(options.numCpus ?? 1),
    '--object-store-memory',
    String(100 * 1024 * 1024),
    '--temp-dir',
    tempDir,
    '--disable-usage-stats',
  ];
  const slots = (n: number) => ['--resources', JSON.stringify({ gp_sandbox_slots: n })];
  const groups: number[] = [];
  const stop = async (): Promise<void> => {
    // The whole tree is taken before any signal: a worker orphaned by its raylet's exit is still ours.
    const pids = clusterProcesses(groups, tempDir);
    for (const pid of pids) signal(pid, 'SIGTERM');
    // GCS may take its time over SIGTERM; a test cluster keeps nothing worth the wait.
    const deadline = Date.now() + 5_000;
    const alive = () => pids.filter((pid) => existsSync(`/proc/${pid}`));
    while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const killed = [...new Set([...alive(), ...clusterProcesses(groups, tempDir)])];
    for (const pid of killed) signal(pid, 'SIGKILL');
    // Gone before stop() returns, so a cluster started next does not share the machine with this one.
    const reaped = Date.now() + 10_000;
    while (killed.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < reaped) await new Promise((r) => setTimeout(r, 100));
    rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    const address = `http://127.0.0.1:${dashboard ?? 0}`;
    const gcsAddress = `127.0.0.1:${gcs ?? 0}`;
    groups.push(
      await rayStart(
        python,
        [
          '--head',
          '--port',
          String(gcs),
          '--dashboard-host',
          '127.0.0.1',
          '--dashboard-port',
          String(dashboard),
          '--ray-client-server-port',
          String(client),
          ...perNode(rest.slice(0, 6)),
          ...common,
          ...slots(options.headSlots),
        ],
        env,
        timeoutMs,
      ),
    );
    groups.push(await rayStart(python, ['--address', gcsAddress, ...perNode(rest.slice(6, 12)), ...common, ...slots(options.workerSlots)], env, timeoutMs));
    const until = Date.now() + timeoutMs;
    let nodes: StateNode[] = [];
    while ((nodes = await aliveNodes(address).catch(() => [])).length < 2) {
      if (Date.now() > until) throw new Error(`the Ray cluster in ${tempDir} shows ${nodes.length} alive node(s) after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const started = nodes
      .map((n) => ({ nodeId: n.node_id, slots: n.resources_total['gp_sandbox_slots'] ?? 0, head: n.is_head_node }))
      .sort((a, b) => Number(b.head) - Number(a.head));
    return { address, gcsAddress, nodes: started, tempDir, python, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
