/**
 * A lease this process holds for its work (a thread's queue, an answer in flight), with the fencing
 * token of its acquisition. Every write of the work's progress goes through `write`, which the store
 * refuses once another acquisition holds the lease (or it ran out), and every platform call of the
 * work through `port`, which refuses once the lease may have run out. So a holder that stalls past
 * its lease (a long pause, a frozen process) stops at once when it wakes: the work is the new
 * holder's alone, and `lost` tells the rest of the work to stop.
 *
 * Whether the lease may have run out is judged here without asking the store: the store judges the
 * lease's expiry by a real clock, so the deadline (a renewal's send time plus the lease) is measured
 * on this process's monotonic clock, never on the bridge's injectable one, which a test may stop or
 * move. A real timer at the deadline marks the lease lost as soon as the process runs again.
 */
import { performance } from 'node:perf_hooks';
import type { DueMove, Fence, FencedWrite, StateStore } from '../state/store';
import type { LeaseTimings } from './leases';
import type { SurfacePort } from './surface';
import { gatedPort } from './tenants/left-port';

/** What work that lost its lease fails with: nothing was written or sent. */
export class FencedOut extends Error {
  constructor(why: string) {
    super(`lost the lease: ${why}`);
    this.name = 'FencedOut';
  }
}

/**
 * The entry of a due index that a sweep reads to find this work if its holder dies (scheduled by the
 * caller, due at `dueAt` on the bridge's clock `now`): the renewals keep it due at the lease's end.
 */
export interface HeldDue {
  index: string;
  member: string;
  dueAt: number;
  now: () => number;
}

export class HeldLease {
  private readonly controller = new AbortController();
  /** Monotonic ms (performance.now) after which the store may count the lease as run out. */
  private deadline: number;
  private renewTimer: NodeJS.Timeout;
  private expiryTimer: NodeJS.Timeout | undefined;
  /** Let go on purpose: nothing more is written under it, and that is no loss. */
  private released = false;

  /** Takes the lease `name` for `owner`; undefined when another owner holds it. */
  static async take(
    store: StateStore,
    name: string,
    owner: string,
    timings: Pick<LeaseTimings, 'ttlMs' | 'renewMs'>,
    due?: HeldDue,
  ): Promise<HeldLease | undefined> {
    const sentAt = performance.now();
    const fence = await store.acquireFencedLease(name, owner, timings.ttlMs);
    return fence ? new HeldLease(store, fence, timings, sentAt, due) : undefined;
  }

  private constructor(
    private readonly store: StateStore,
    readonly fence: Fence,
    private readonly timings: Pick<LeaseTimings, 'ttlMs' | 'renewMs'>,
    sentAt: number,
    private readonly due: HeldDue | undefined,
  ) {
    this.deadline = sentAt + timings.ttlMs;
    this.armExpiry();
    this.renewTimer = this.renewEvery();
  }

  /**
   * Asked when a renewal is due: true when the work sent a fenced write of its progress instead
   * (`write` renews the lease when it lands), so the renewal itself is not sent.
   */
  beforeRenew: (() => boolean) | undefined;

  private renewEvery(): NodeJS.Timeout {
    const timer = setInterval(() => this.renew(), this.timings.renewMs);
    timer.unref();
    return timer;
  }

  /** Aborts when the lease is lost (ran out, taken, a write refused): the work stops. */
  get lost(): AbortSignal {
    return this.controller.signal;
  }

  /** Still held as far as this process can tell (no store call). */
  get held(): boolean {
    if (this.controller.signal.aborted || this.released) return false;
    if (performance.now() >= this.deadline) this.lose('it ran out before it was renewed');
    return !this.controller.signal.aborted;
  }

  /** Throws FencedOut unless still held. */
  check(): void {
    if (!this.held) throw this.reason();
  }

  /**
   * The writes, only while this acquisition holds the lease (the store checks the token). The write
   * renews the lease in the same step (and moves its due entry when due), and the next renewal is
   * then a whole period away: work whose progress is written often sends no renewals of its own.
   */
  async write(writes: FencedWrite[]): Promise<void> {
    this.check();
    const sentAt = performance.now();
    const move = this.dueMove();
    const renew = { ttlMs: this.timings.ttlMs, ...(move ? { move } : {}) };
    if (await this.store.writeFenced(this.fence, writes, renew)) {
      this.renewed(sentAt);
      return;
    }
    this.lose('the store refused a write: another instance holds it');
    throw this.reason();
  }

  /** `surface` as the work may use it: every platform call refused once the lease may be lost. */
  port(surface: SurfacePort): SurfacePort {
    return gatedPort(
      surface,
      () => this.check(),
      () => !this.held,
    );
  }

  /**
   * The work's last writes and the lease's release in one step (one round trip). Refused (the lease
   * is another's now, or ran out): nothing is written, and the lease is left to whoever holds it.
   */
  async finish(writes: FencedWrite[]): Promise<boolean> {
    if (!this.held) {
      await this.release();
      return false;
    }
    this.stopTimers();
    this.released = true;
    const done = (await this.store.writeFenced(this.fence, [...writes, { op: 'release' }]).catch(() => false)) === true;
    if (!done) await this.store.releaseLease(this.fence.lease, this.fence.owner).catch(() => undefined);
    return done;
  }

  /**
   * The writes, then in the same step, only if `queue` is empty, the `drained` writes and the lease's
   * release (a queue's last ack and its end: no push can land between the check and the release).
   * True when the lease went with them; false when `queue` has items (the lease still held). Throws
   * FencedOut when refused (nothing written).
   */
  async writeOrFinish(writes: FencedWrite[], queue: string, drained: FencedWrite[]): Promise<boolean> {
    this.check();
    const batch: FencedWrite[] = [...writes, { op: 'ifEmpty', queue }, ...drained, { op: 'release' }];
    const outcome = await this.store.writeFenced(this.fence, batch);
    if (outcome === 'stopped') return false;
    if (outcome) {
      this.stopTimers();
      this.released = true;
      return true;
    }
    this.lose('the store refused a write: another instance holds it');
    throw this.reason();
  }

  /** Stops renewing and lets the lease go (if still this owner's). */
  async release(): Promise<void> {
    this.stopTimers();
    this.released = true;
    await this.store.releaseLease(this.fence.lease, this.fence.owner).catch(() => undefined);
  }

  private renew(): void {
    if (!this.held) return;
    if (this.beforeRenew?.()) return;
    // Renewed before the deadline, or not at all: a lease that may have run out may be another's now.
    const sentAt = performance.now();
    this.store.renewLease(this.fence.lease, this.fence.owner, this.timings.ttlMs, this.dueMove()).then(
      (ok) => {
        if (!ok) this.lose('another instance took it');
        else if (!this.controller.signal.aborted) {
          this.deadline = sentAt + this.timings.ttlMs;
          this.armExpiry();
        }
      },
      // A renewal that failed (the store unreachable) proves nothing: the deadline decides.
      () => undefined,
    );
  }

  /**
   * A write sent at `sentAt` renewed the lease: the deadline moves, and the next renewal is a whole
   * period after it (never later than the timer's would have been: renewals stay a period apart).
   */
  private renewed(sentAt: number): void {
    if (this.controller.signal.aborted || this.released) return;
    this.deadline = Math.max(this.deadline, sentAt + this.timings.ttlMs);
    this.armExpiry();
    clearInterval(this.renewTimer);
    this.renewTimer = this.renewEvery();
  }

  /**
   * The due entry's move, when it would fall due before the renewal after next (with half a renewal's
   * slack for the timers' drift): one move every other renewal, each to this renewal's lease end, so
   * the entry is never later than the lease's end (a dead holder's work is found as soon as before)
   * and a sweep never finds live work due.
   */
  private dueMove(): DueMove | undefined {
    const due = this.due;
    if (!due) return undefined;
    const now = due.now();
    if (due.dueAt - now >= this.timings.renewMs * 1.5) return undefined;
    due.dueAt = now + this.timings.ttlMs;
    return { index: due.index, member: due.member, dueAt: due.dueAt };
  }

  private armExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(
      () => {
        if (this.held) this.armExpiry();
      },
      Math.max(1, this.deadline - performance.now()),
    );
    this.expiryTimer.unref();
  }

  private lose(why: string): void {
    // A renewal that raced the release finds the lease gone: let go on purpose, no loss.
    if (this.controller.signal.aborted || this.released) return;
    this.stopTimers();
    this.controller.abort(new FencedOut(why));
  }

  private reason(): FencedOut {
    const r: unknown = this.controller.signal.reason;
    return r instanceof FencedOut ? r : new FencedOut('lost');
  }

  private stopTimers(): void {
    clearInterval(this.renewTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
  }
}
