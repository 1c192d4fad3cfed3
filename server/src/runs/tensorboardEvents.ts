/**
 * TensorBoard event files beside `metrics.jsonl` (issue 23, "observability for long runs"), so
 * TensorBoard, and every tool that reads its files, follows a training run as it goes. The file is
 * TensorFlow's record format: per record its length (uint64, little-endian), the masked CRC-32C of
 * the length, the bytes, and their masked CRC-32C; each record one `Event` protocol buffer
 * (`tensorboard/compat/proto/event.proto`: `wall_time` 1, `step` 2, `file_version` 3, `summary` 5;
 * `summary.proto`: `Summary.value` 1, `Value.tag` 1, `Value.simple_value` 2). Only scalars are
 * written, so the few protocol-buffer fields are encoded here rather than pulling in a protobuf
 * library and TensorFlow's schemas; test/integration/tensorboard.test.ts reads the files back with
 * the real `tensorboard` package. Records are appended whole, one call each; each attempt of a run
 * writes a file of its own, so a torn last record (a crash) never sits before a later one.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** CRC-32C (Castagnoli), the checksum TensorFlow's record format uses. */
const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The record format stores CRCs rotated and offset, so a CRC of data holding CRCs stays strong. */
function maskedCrc(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

function varint(value: number): number[] {
  const out: number[] = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

function lengthDelimited(field: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(bytes.length)]), bytes]);
}

/** One `Summary.Value` with a tag and a float. */
function scalarValue(tag: string, value: number): Buffer {
  const float = Buffer.alloc(5);
  float[0] = (2 << 3) | 5;
  float.writeFloatLE(value, 1);
  return Buffer.concat([lengthDelimited(1, Buffer.from(tag, 'utf8')), float]);
}

/** An `Event` with its wall time and step, and either the file version or a summary. */
export function encodeEvent(wallTimeS: number, step: number, body: { fileVersion: string } | { scalars: Readonly<Record<string, number>> }): Buffer {
  const wall = Buffer.alloc(9);
  wall[0] = (1 << 3) | 1;
  wall.writeDoubleLE(wallTimeS, 1);
  const parts: Buffer[] = [wall, Buffer.from([2 << 3, ...varint(Math.max(0, Math.trunc(step)))])];
  if ('fileVersion' in body) parts.push(lengthDelimited(3, Buffer.from(body.fileVersion, 'utf8')));
  else {
    const values = Object.entries(body.scalars)
      .filter(([, v]) => Number.isFinite(v))
      .map(([tag, v]) => lengthDelimited(1, scalarValue(tag, v)));
    parts.push(lengthDelimited(5, Buffer.concat(values)));
  }
  return Buffer.concat(parts);
}

/** One record of TensorFlow's record format around `data`. */
export function encodeRecord(data: Uint8Array): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(data.length));
  const lengthCrc = Buffer.alloc(4);
  lengthCrc.writeUInt32LE(maskedCrc(length));
  const dataCrc = Buffer.alloc(4);
  dataCrc.writeUInt32LE(maskedCrc(data));
  return Buffer.concat([length, lengthCrc, data, dataCrc]);
}

/** Appends scalar events to one event file in `dir`, named as TensorFlow's writers name theirs. */
export class TensorBoardWriter {
  readonly path: string;
  private started: Promise<void> | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    now: Date = new Date(),
  ) {
    this.path = join(dir, `events.out.tfevents.${Math.floor(now.getTime() / 1000)}.${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}`);
  }

  /** Writes the step's numeric values as scalars, tagged with their names (Verl's `critic/score/mean`, …). */
  scalars(step: number, values: Readonly<Record<string, number>>, wallTimeS: number = Date.now() / 1000): Promise<void> {
    this.started ??= mkdir(this.dir, { recursive: true }).then(() =>
      appendFile(this.path, encodeRecord(encodeEvent(wallTimeS, 0, { fileVersion: 'brain.Event:2' }))),
    );
    const started = this.started;
    // One record per call, in call order: appends never interleave, and one failed write (a full
    // disk) fails its own call, not every later one.
    const written = this.chain.then(async () => {
      await started;
      await appendFile(this.path, encodeRecord(encodeEvent(wallTimeS, step, { scalars: values })));
    });
    this.chain = written.catch(() => undefined);
    return written;
  }
}
