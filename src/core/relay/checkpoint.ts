/**
 * An answer's in-flight record (inflight.ts) as its run keeps it: every write goes under the answer's
 * lease (fenced: refused once another instance holds it), in order, one after another.
 *
 * What recovery does with the record decides when it is written. A change of its shape (a message
 * posted, a native stream started or stopped, a message finished) or of the text of a message that is
 * edited (recovery's edit sends the recorded text: a stale one would take back words the user saw)
 * is written at once. The growth of a live native stream's text is written only when the lease's
 * renewal is due, and that write renews the lease: recovery stops a stream left open keeping what it
 * shows (the stream has the text), so its recorded text matters only when the stream is already gone.
 * A streamed answer costs one write per renewal period while it grows, instead of one per append.
 */
import type { Logger } from 'pino';
import type { StateStore } from '../../state/store';
import { FencedOut, type HeldLease } from '../held-lease';
import { type InflightRecord, inflightKey, recordToJson } from './inflight';

export interface CheckpointDeps {
  store: StateStore;
  lease: HeldLease;
  answerKey: string;
  log: Logger;
  /** The record as the answer stands now. */
  record: () => InflightRecord;
  /** Dropped or fenced out: nothing more is written (recovery or nobody finishes the answer). */
  dropped: () => boolean;
}

type Shown = InflightRecord['messages'];

/** What of the messages must be recorded at once: all but a live native stream's text. */
function shapeOf(messages: Shown): string {
  return JSON.stringify(messages.map((m) => (m.native ? { ...m, text: undefined } : m)));
}

export class InflightCheckpoint {
  private chain: Promise<void>;
  /** The messages as last written (JSON): unchanged ones are not written again. */
  private saved: string | undefined;
  private savedShape: string | undefined;
  /** A write of a shape change, sent once the current turn's changes are in (one write for them all). */
  private pending: NodeJS.Immediate | undefined;

  /** `after`: what the first write waits for (the record's index entry: see relay.ts). */
  constructor(
    private readonly deps: CheckpointDeps,
    after: Promise<void>,
  ) {
    this.chain = after;
    // The lease's renewal carries the text that grew since the last write (the write renews it).
    deps.lease.beforeRenew = () => this.flush();
  }

  /**
   * The first record (nothing shown yet), written at once, just after the lease was taken and the
   * answer indexed (`after`). Not fenced: it is no progress, and until it and the index entry exist
   * no other instance can know of the answer, so none can hold its lease and have written a record
   * this one would overwrite. Were the lease lost by then (a stall past it: checked here), the record
   * is not written; lost just after, a sweep marks the answer and this run's next write is refused.
   */
  start(): void {
    const rec = this.deps.record();
    this.saved = JSON.stringify(rec.messages);
    this.savedShape = shapeOf(rec.messages);
    const { lease, store } = this.deps;
    this.chain = this.chain
      .then(() => {
        lease.check();
        return store.set(inflightKey(this.deps.answerKey), recordToJson(rec));
      })
      .catch((err: unknown) => {
        if (!(err instanceof FencedOut)) this.deps.log.warn({ err }, 'could not save the in-flight record');
      });
  }

  /**
   * A message changed on the platform. A shape change is written after the current turn, so the
   * answer's last change and its end (which deletes the record) cost the end's step alone.
   */
  changed(): void {
    if (this.pending || this.deps.dropped()) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      if (this.deps.dropped()) return;
      const messages = this.deps.record().messages;
      if (shapeOf(messages) !== this.savedShape) this.writeNow();
    });
  }

  /** The lease's renewal is due: true when a write of the grown text went instead (it renews). */
  flush(): boolean {
    if (this.deps.dropped()) return false;
    if (JSON.stringify(this.deps.record().messages) === this.saved) return false;
    this.writeNow();
    return true;
  }

  /**
   * The answer ends: a write not sent yet is dropped (the end's fenced step deletes the record, or a
   * lost lease leaves it to recovery), and the writes sent are waited for.
   */
  async end(): Promise<void> {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    this.deps.lease.beforeRenew = undefined;
    await this.chain;
  }

  private writeNow(): void {
    const rec = this.deps.record();
    this.saved = JSON.stringify(rec.messages);
    this.savedShape = shapeOf(rec.messages);
    const { lease } = this.deps;
    const write = [{ op: 'set' as const, key: inflightKey(this.deps.answerKey), value: recordToJson(rec) }];
    this.chain = this.chain
      // Under the answer's lease: a write after it was lost is refused (and stops the answer).
      .then(() => lease.write(write))
      .catch((err: unknown) => {
        if (!(err instanceof FencedOut)) this.deps.log.warn({ err }, 'could not save the in-flight record');
      });
  }
}
