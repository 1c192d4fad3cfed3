/**
 * The channel the language client writes its message trace to, whose level follows the
 * `graphPlanner.trace` setting.
 *
 * Since vscode-languageclient 10 the client traces only while its trace channel's log level is
 * Trace, and it writes each line with `trace()`, which a log channel drops at any other level. The
 * setting is what the settings block of package.json documents, so this adapter reports Trace while the setting is on and
 * writes trace lines at info level into the shared "Graph Planner" channel.
 */
import * as vscode from 'vscode';

export class TraceChannel implements vscode.LogOutputChannel {
  private enabled: boolean;
  private readonly levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
  readonly onDidChangeLogLevel = this.levelChanged.event;

  constructor(
    private readonly channel: vscode.LogOutputChannel,
    enabled: boolean,
  ) {
    this.enabled = enabled;
  }

  get name(): string {
    return this.channel.name;
  }

  get logLevel(): vscode.LogLevel {
    return this.enabled ? vscode.LogLevel.Trace : this.channel.logLevel;
  }

  /** Turns tracing on or off; the client listens to the level change and tells the server. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    this.levelChanged.fire(this.logLevel);
  }

  trace(message: string, ...args: unknown[]): void {
    if (this.enabled) this.channel.info(message, ...args);
  }

  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(message, ...args);
  }

  info(message: string, ...args: unknown[]): void {
    this.channel.info(message, ...args);
  }

  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(message, ...args);
  }

  error(error: string | Error, ...args: unknown[]): void {
    this.channel.error(error, ...args);
  }

  append(value: string): void {
    this.channel.append(value);
  }

  appendLine(value: string): void {
    this.channel.appendLine(value);
  }

  replace(value: string): void {
    this.channel.replace(value);
  }

  clear(): void {
    this.channel.clear();
  }

  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === 'boolean' || columnOrPreserveFocus === undefined) {
      this.channel.show(columnOrPreserveFocus);
    } else {
      this.channel.show(columnOrPreserveFocus, preserveFocus);
    }
  }

  hide(): void {
    this.channel.hide();
  }

  /** Disposes only the level event: the shared channel belongs to the extension, not to a client. */
  dispose(): void {
    this.levelChanged.dispose();
  }
}
