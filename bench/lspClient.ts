/**
 * A tiny LSP client over stdio for the benchmarks: it spawns a language server, speaks JSON-RPC
 * with Content-Length framing (vscode-jsonrpc, the transport under vscode-languageserver), answers
 * the server's requests (`workspace/configuration` from a settings object, registrations with
 * null), syncs documents with full text and lets a caller wait for the `publishDiagnostics` push
 * that answers an edit. It is deliberately not vscode-languageclient: that one needs the editor.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { ConfigurationParams, Diagnostic, InitializeParams, InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { withDeadline } from '../server/src/util/deadline.js';

/** How to start one server. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/**
 * The client-side settings, keyed by top-level section (`yaml`, `graphPlanner`, …). A request for
 * `a.b` walks into the object, as VS Code does; an unknown section answers null.
 */
export type ClientSettings = Readonly<Record<string, unknown>>;

/** One diagnostics push as it arrived, stamped with the client's clock. */
export interface DiagnosticsPush {
  readonly uri: string;
  readonly version: number | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** `performance.now()` when the notification was dispatched to us. */
  readonly receivedAt: number;
}

interface Waiter {
  readonly uri: string;
  readonly accept: (push: DiagnosticsPush) => boolean;
  readonly resolve: (push: DiagnosticsPush) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** A diagnostics wait that can be registered before the message that triggers it is sent. */
export interface PendingDiagnostics {
  readonly promise: Promise<DiagnosticsPush>;
}

const stderrKeep = 4000;

export class LspClient {
  /** `performance.now()` just before the process was spawned. */
  readonly spawnedAt: number;
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly connection: MessageConnection;
  private readonly waiters = new Set<Waiter>();
  private stderrTail = '';
  private exited: string | null = null;

  private constructor(
    server: ServerCommand,
    private readonly settings: ClientSettings,
  ) {
    this.spawnedAt = performance.now();
    this.child = spawn(server.command, [...server.args], { cwd: server.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-stderrKeep);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = `exited with ${code ?? signal ?? 'unknown status'}`;
      this.failAll(new Error(`${server.command} ${server.args.join(' ')} ${this.exited}; stderr: ${this.stderrTail}`));
    });
    // A write to a server that has just died raises EPIPE on stdin; the exit handler reports it.
    this.child.stdin.on('error', () => undefined);
    this.connection = createMessageConnection(new StreamMessageReader(this.child.stdout), new StreamMessageWriter(this.child.stdin));
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.onDiagnostics({ uri: params.uri, version: params.version, diagnostics: params.diagnostics, receivedAt: performance.now() });
    });
    this.connection.onRequest('workspace/configuration', (params: ConfigurationParams) => params.items.map((item) => this.lookup(item.section)));
    // Registrations, progress tokens and message boxes need an answer but no action from a benchmark;
    // an unanswered request would make some servers wait or log errors that slow them down.
    this.connection.onRequest(() => null);
    this.connection.onNotification(() => undefined);
    this.connection.listen();
  }

  static start(server: ServerCommand, settings: ClientSettings): LspClient {
    return new LspClient(server, settings);
  }

  get stderr(): string {
    return this.stderrTail;
  }

  async initialize(rootUri: string): Promise<InitializeResult> {
    const params: InitializeParams = {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'bench' }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false },
          publishDiagnostics: { relatedInformation: true, versionSupport: true },
        },
      },
    };
    const result = await this.connection.sendRequest<InitializeResult>('initialize', params);
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  async open(uri: string, text: string, version: number): Promise<void> {
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version, text } });
  }

  /** Sends a full-text change and returns `performance.now()` taken just before the send. */
  async change(uri: string, text: string, version: number): Promise<number> {
    const sentAt = performance.now();
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return sentAt;
  }

  /**
   * Registers a wait for the first push on `uri` that `accept` takes. Register before sending the
   * message that causes the push, so a fast server cannot answer before anyone listens.
   */
  expectDiagnostics(uri: string, accept: (push: DiagnosticsPush) => boolean, timeoutMs: number): PendingDiagnostics {
    const promise = new Promise<DiagnosticsPush>((resolve, reject) => {
      if (this.exited !== null) {
        reject(new Error(`server ${this.exited}; stderr: ${this.stderrTail}`));
        return;
      }
      const waiter: Waiter = {
        uri,
        accept,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`no matching diagnostics for ${uri} within ${timeoutMs} ms; stderr: ${this.stderrTail}`));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
    return { promise };
  }

  /** Asks the server to shut down and exit, and kills it if it has not gone within two seconds. */
  async stop(): Promise<void> {
    if (this.exited === null) {
      const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      try {
        await withDeadline(this.connection.sendRequest('shutdown'), 2000, 'no shutdown answer');
        await this.connection.sendNotification('exit');
      } catch {
        // A server that does not answer shutdown is killed below; the benchmark has its numbers already.
      }
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
      await gone;
      clearTimeout(timer);
    }
    this.failAll(new Error('client stopped'));
    this.connection.dispose();
  }

  private onDiagnostics(push: DiagnosticsPush): void {
    for (const waiter of this.waiters) {
      if (waiter.uri === push.uri && waiter.accept(push)) {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
        waiter.resolve(push);
      }
    }
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.waiters.clear();
  }

  private lookup(section: string | undefined): unknown {
    if (section === undefined) return this.settings;
    let value: unknown = this.settings;
    for (const part of section.split('.')) {
      if (typeof value !== 'object' || value === null || !(part in value)) return null;
      value = (value as Record<string, unknown>)[part];
    }
    return value;
  }
}
