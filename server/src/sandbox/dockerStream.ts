/**
 * Splits Docker's multiplexed attach stream (used when an exec has no TTY) into stdout and stderr.
 * Each frame is an 8-byte header (stream type, three zero bytes, payload length as big-endian
 * uint32) followed by the payload. Parsing it here, rather than piping through
 * `modem.demuxStream`, lets the session see each chunk as it arrives without extra streams.
 */
export type StreamHandler = (stream: 'stdout' | 'stderr', chunk: Buffer) => void;

export class DockerFrameParser {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onChunk: StreamHandler) {}

  push(data: Buffer): void {
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    while (buf.length >= 8) {
      const type = buf[0];
      const size = buf.readUInt32BE(4);
      if (buf.length < 8 + size) break;
      const payload = buf.subarray(8, 8 + size);
      if (type === 1) this.onChunk('stdout', payload);
      else if (type === 2) this.onChunk('stderr', payload);
      buf = buf.subarray(8 + size);
    }
    // Copy the remainder so that a large socket chunk is not kept alive by a small tail.
    this.pending = Buffer.from(buf);
  }
}

/**
 * Finds an end-of-command marker in one output stream and passes everything before it on.
 * The marker is `<prefix><digits><terminator>`; the scanner holds back just enough bytes to
 * recognise a marker split across chunks, so memory stays bounded whatever the command prints.
 */
export class MarkerScanner {
  private held: Buffer = Buffer.alloc(0);
  private done = false;
  private readonly prefix: Buffer;

  constructor(
    prefix: string,
    private readonly terminator: number,
    private readonly onData: (chunk: Buffer) => void,
    private readonly onMarker: (value: string) => void,
  ) {
    this.prefix = Buffer.from(prefix, 'latin1');
  }

  get finished(): boolean {
    return this.done;
  }

  /** Bytes after the marker belong to no command and are dropped. */
  push(chunk: Buffer): void {
    if (this.done) return;
    const buf = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const at = buf.indexOf(this.prefix);
    if (at >= 0) {
      const end = buf.indexOf(this.terminator, at + this.prefix.length);
      if (end >= 0) {
        if (at > 0) this.onData(buf.subarray(0, at));
        this.done = true;
        this.held = Buffer.alloc(0);
        this.onMarker(buf.subarray(at + this.prefix.length, end).toString('latin1'));
        return;
      }
      // The marker started but its value has not fully arrived: hold from the marker on.
      if (at > 0) this.onData(buf.subarray(0, at));
      this.held = Buffer.from(buf.subarray(at));
      return;
    }
    // Hold back a tail as long as the prefix, in case the marker is split across chunks.
    const keep = Math.min(buf.length, this.prefix.length - 1);
    const emit = buf.length - keep;
    if (emit > 0) this.onData(buf.subarray(0, emit));
    this.held = Buffer.from(buf.subarray(emit));
  }
}
