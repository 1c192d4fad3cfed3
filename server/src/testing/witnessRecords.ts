/**
 * Reading the runner witness's records out of a test run's output (runnerWitness.ts starts the
 * witness): each record is one line `GPWITNESS1 <base64 JSON> <HMAC-SHA256 hex>`, written by the
 * witness to its own copy of the stderr the runner started with. The records are removed from
 * both streams before anything parses the log, verified under the run's one-time key, and turned
 * into the verdict the test-run record keeps. A record that does not verify was printed by
 * something else in the run, which no honest test does.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ExecResult } from '../protocol/sandbox.js';
import { witnessRecordSchema, type RunnerWitness, type WitnessRecord } from '../protocol/testReport.js';

/** A record with the line breaks the witness puts around it; a forged one may sit anywhere on a line. */
const recordPattern = /\n?GPWITNESS1 (\S*) (\S*)\n?/g;

/** Names of what changed kept in a record; the count is always whole. */
const keptNames = 20;

export interface WitnessKey {
  /** The key as the witness reads it from its file: hex text, used as bytes. */
  readonly key: string;
  /** The run's id, which every record of this run carries. */
  readonly run: string;
}

export interface TakenRecords {
  /** The result without the records, its byte counts lowered by what was removed. */
  readonly result: ExecResult;
  readonly records: readonly WitnessRecord[];
  /** Records that did not verify under the key, or were of another run. */
  readonly forged: number;
}

function verified(data: string, mac: string, witness: WitnessKey): WitnessRecord | undefined {
  const expected = createHmac('sha256', Buffer.from(witness.key, 'utf8')).update(data, 'utf8').digest();
  const given = Buffer.from(mac, 'hex');
  if (!/^[0-9a-f]{64}$/.test(mac) || given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = witnessRecordSchema.safeParse(json);
  return parsed.success && parsed.data.run === witness.run ? parsed.data : undefined;
}

function take(text: string, witness: WitnessKey, records: WitnessRecord[]): { text: string; forged: number } {
  let forged = 0;
  const kept = text.replace(recordPattern, (_whole: string, data: string, mac: string) => {
    const record = verified(data, mac, witness);
    if (record === undefined) forged += 1;
    else records.push(record);
    // The witness writes a line break before and after its record; without them the log is as
    // the command wrote it, a line it left unfinished included.
    return '';
  });
  return { text: kept, forged };
}

/** Removes the witness's records from a run's output and verifies them. */
export function takeWitnessRecords(result: ExecResult, witness: WitnessKey): TakenRecords {
  const records: WitnessRecord[] = [];
  const out = take(result.stdout, witness, records);
  const err = take(result.stderr, witness, records);
  const stdoutBytes = Math.max(0, result.stdoutBytes - (Buffer.byteLength(result.stdout) - Buffer.byteLength(out.text)));
  const stderrBytes = Math.max(0, result.stderrBytes - (Buffer.byteLength(result.stderr) - Buffer.byteLength(err.text)));
  return { result: { ...result, stdout: out.text, stderr: err.text, stdoutBytes, stderrBytes }, records, forged: out.forged + err.forged };
}

/** pytest or unittest started by the command itself, so a witness that never started means something kept it out. */
export interface RunnerFacts {
  readonly runsRunnerDirectly: boolean;
  readonly timedOut: boolean;
}

function empty(state: RunnerWitness['state'], reason?: string): RunnerWitness {
  return {
    state,
    ...(reason === undefined ? {} : { reason }),
    started: false,
    armed: false,
    ended: false,
    blockedPlugins: [],
    changed: [],
    changedCount: 0,
    inside: [],
    forged: 0,
  };
}

/** The witness's state for a run that did not ask for it, with why. */
export function witnessNotRequested(reason: string): RunnerWitness {
  return empty('not-requested', reason);
}

/** Why a witness that reported is not clean, or undefined when it is. */
function tampering(start: WitnessRecord, armed: WitnessRecord | undefined, end: WitnessRecord | undefined, facts: RunnerFacts): string | undefined {
  const inside = armed?.inside ?? [];
  if (inside.length > 0) return `the runner was loaded from inside the repository or before the witness (${inside.join(', ')})`;
  if (end === undefined) {
    return facts.timedOut
      ? undefined
      : `the witness in ${start.runner}'s process (pid ${start.pid}) started but never reported its end: the process was ended without exiting normally (os._exit, a signal) or the witness's channel was closed`;
  }
  if (start.runner === 'pytest' && end.plugin !== true) return 'pytest ran without the witness plugin (was it disabled with -p no:gp_witness?)';
  const count = end.changedCount ?? 0;
  if (count > 0) {
    const names = (end.changed ?? []).slice(0, 5).join(', ');
    return `the runner's own code changed during the run: ${names}${count > 5 ? ` and ${count - 5} more` : ''}`;
  }
  return undefined;
}

/**
 * The verdict of a run that asked for the witness. A run is tampered when a record was forged,
 * when more than one process claimed the key, when the runner changed or was loaded from the
 * repository, when pytest ran without the plugin, when the witness went silent before its end
 * (unless the run hit its time limit), or when the command runs pytest or unittest itself and
 * no witness started at all (the runner was shadowed or the witness kept out).
 */
export function witnessVerdict(records: readonly WitnessRecord[], forged: number, facts: RunnerFacts): RunnerWitness {
  const starts = records.filter((r) => r.event === 'start');
  const start = starts[0];
  if (forged > 0) {
    const base = start === undefined ? empty('tampered') : verdictOf(start, records, facts);
    return { ...base, state: 'tampered', forged, reason: `${forged} witness record(s) in the output did not verify: something in the run printed them` };
  }
  if (start === undefined) {
    return facts.runsRunnerDirectly
      ? empty(
          'tampered',
          'the test command runs the test runner itself but the witness never started: the runner was shadowed or the witness was kept from loading',
        )
      : empty(
          facts.timedOut ? 'cut' : 'not-started',
          facts.timedOut
            ? 'the run reached its time limit'
            : 'no process of the command started pytest or unittest with the witness (the command does not start them itself)',
        );
  }
  if (starts.length > 1 || new Set(records.map((r) => r.pid)).size > 1) {
    return { ...verdictOf(start, records, facts), state: 'tampered', reason: "more than one process reported with the run's one-time key" };
  }
  return verdictOf(start, records, facts);
}

function verdictOf(start: WitnessRecord, records: readonly WitnessRecord[], facts: RunnerFacts): RunnerWitness {
  const armed = records.find((r) => r.event === 'armed');
  const end = records.find((r) => r.event === 'end');
  const reason = tampering(start, armed, end, facts);
  const state: RunnerWitness['state'] = reason !== undefined ? 'tampered' : end === undefined ? 'cut' : 'clean';
  const changed = end?.changed ?? [];
  return {
    state,
    ...(reason === undefined ? (state === 'cut' ? { reason: 'the run reached its time limit before the witness could end' } : {}) : { reason }),
    runner: start.runner,
    started: true,
    armed: armed !== undefined,
    ended: end !== undefined,
    blockedPlugins: armed?.blocked ?? [],
    changed: changed.slice(0, keptNames),
    changedCount: end?.changedCount ?? 0,
    inside: armed?.inside ?? [],
    forged: 0,
  };
}
