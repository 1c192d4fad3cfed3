/**
 * Keeps at most a fixed number of bytes of one output stream and counts the rest. A command that
 * prints 100 MB must not make the engine hold 100 MB: bytes past the limit are counted and
 * dropped as they arrive, and the kept text ends with a marker that says how much was cut.
 */
import { StringDecoder } from 'node:string_decoder';

export class OutputCapture {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private total = 0;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly limit: number,
    /** Receives the kept part of each chunk as text, for live display. */
    private readonly onText?: (text: string) => void,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.keptBytes;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    // A subarray shares the socket's buffer; copy so the kept bytes do not pin a larger chunk.
    this.kept.push(Buffer.from(part));
    this.keptBytes += part.length;
    if (this.onText) {
      const text = this.decoder.write(part);
      if (text.length > 0) this.onText(text);
    }
  }

  get bytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.keptBytes;
  }

  /** The kept text, with a marker naming the dropped byte count when the stream was cut. */
  text(): string {
    const body = Buffer.concat(this.kept).toString('utf8');
    if (!this.truncated) return body;
    return `${body}\n[graph-planner: output truncated, ${this.total - this.keptBytes} more bytes dropped (limit ${this.limit} bytes per stream)]\n`;
  }
}
