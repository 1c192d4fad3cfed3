/**
 * Everything the server keeps about each open document, in one object per document: its kind, the
 * version it was opened at, the last check and disk findings of an experiment config, the line
 * results of a dataset, and its scheduling state. Closing the document drops all of it at once.
 */
import type { ConfigCheck } from '../config/index.js';
import type { Finding } from '../protocol/index.js';
import type { DocKind } from './documentKind.js';
import { emptyLineCache, type LineCache } from './jsonlService.js';
import { newScheduleState, type ScheduleState } from './scheduler.js';

/** The disk rules' findings and the inputs they were computed from; they rerun only when these change. */
export interface DiskFindings {
  readonly key: string;
  readonly findings: readonly Finding[];
}

export interface OpenDocument {
  readonly uri: string;
  /** The change event that an open also fires carries this version, and the open already validated it. */
  readonly openedVersion: number;
  /** Settled from the folder's glob settings when first needed; forgotten when the settings change. */
  kind: DocKind | undefined;
  /** The last check of an experiment config, with the version it belongs to. */
  check: { readonly version: number; readonly check: ConfigCheck } | undefined;
  disk: DiskFindings | undefined;
  /** A dataset's line results from its last validation, reused for lines whose text did not change. */
  lines: LineCache;
  readonly schedule: ScheduleState;
}

export class DocumentStore {
  private readonly documents = new Map<string, OpenDocument>();

  /** Starts the state of a document the editor opened, replacing any left from an earlier open. */
  open(uri: string, version: number): OpenDocument {
    const doc: OpenDocument = {
      uri,
      openedVersion: version,
      kind: undefined,
      check: undefined,
      disk: undefined,
      lines: emptyLineCache,
      schedule: newScheduleState(),
    };
    this.documents.set(uri, doc);
    return doc;
  }

  get(uri: string): OpenDocument | undefined {
    return this.documents.get(uri);
  }

  /** Forgets a closed document and returns its last state, so the caller can cancel its pending work. */
  close(uri: string): OpenDocument | undefined {
    const doc = this.documents.get(uri);
    this.documents.delete(uri);
    return doc;
  }

  all(): OpenDocument[] {
    return [...this.documents.values()];
  }

  /**
   * Kinds follow the glob settings, so they are settled again; disk findings are dropped because
   * the disk checks may have been turned off, and they run again when they are on.
   */
  settingsChanged(): void {
    for (const doc of this.documents.values()) {
      doc.kind = undefined;
      doc.disk = undefined;
    }
  }
}
