/**
 * What a dataset preparation counts as it goes: rows read, tasks converted, rows skipped by reason
 * (with the first few of each kept as examples; the counts say how many there were) and the notes
 * the conversions made. `gp dataset prepare` of every kind reports through it.
 */
import type { ConversionNote, SkipReason } from '../protocol/datasetPrepare.js';

export class PrepareTally {
  rowsRead = 0;
  converted = 0;
  readonly skippedByReason: Partial<Record<SkipReason, number>> = {};
  readonly examples: { place: string; reason: SkipReason; message: string }[] = [];
  readonly notes: Partial<Record<ConversionNote, number>> = {};

  get skipped(): number {
    return Object.values(this.skippedByReason).reduce((a, b) => a + b, 0);
  }

  skip(place: string, reason: SkipReason, message: string): void {
    this.skippedByReason[reason] = (this.skippedByReason[reason] ?? 0) + 1;
    if (this.examples.filter((e) => e.reason === reason).length < 5) this.examples.push({ place, reason, message });
  }

  /** The report's counting fields, as `prepareReportSchema` names them. */
  reportFields(): {
    rows_read: number;
    converted: number;
    skipped: number;
    skipped_by_reason: Partial<Record<SkipReason, number>>;
    skipped_examples: { place: string; reason: SkipReason; message: string }[];
    notes: Partial<Record<ConversionNote, number>>;
  } {
    return {
      rows_read: this.rowsRead,
      converted: this.converted,
      skipped: this.skipped,
      skipped_by_reason: this.skippedByReason,
      skipped_examples: this.examples,
      notes: this.notes,
    };
  }

  note(notes: readonly ConversionNote[]): void {
    for (const n of notes) this.notes[n] = (this.notes[n] ?? 0) + 1;
  }
}
