/**
 * The queue worker: each conversation's queue is answered in push order by one worker across
 * instances. The worker holds the thread's lease in the store while it drains (renewed as it goes),
 * so a second instance leaves the thread alone, and one that dies holding it is replaced within a
 * sweep of the lease running out. What an item means is not its business: it hands each one to
 * `handle` and acks it afterwards.
 */
import { oldLayoutMayRemain, readOld } from '../../state/old-layout';
import { setMaxListeners } from 'node:events';
import type { Json, QueueItem } from '../../state/store';
import { recordedTenant } from '../tenants/tenant';
import type { CoreContext } from '../context';
import { FencedOut, HeldLease } from '../held-lease';
import { leaseTimings } from '../leases';
import {
  conversationSchema,
  convKeys,
  convRef,
  infraKeys,
  legacyKeys,
  parseStored,
  pendingSchema,
  toJson,
  type Conversation,
  type ConvQueueItem,
  type ConvRef,
} from './model';
import { convView, loadConversation } from './records';

/** A queue item handed over, with the queue it came from: the tenant's, or one left in the old global layout. */
export interface TakenItem {
  raw: QueueItem;
  legacy: boolean;
  /**
   * The thread's lease as this worker holds it: every write of the item's progress goes through it
   * (refused once another instance holds the thread), and so does every platform call for it.
   */
  lease: HeldLease;
}

/**
 * The due index of conversations with queued work: each is due when its drainer's lease may have run
 * out (a sweep that finds the lease held moves it to that lease's end; a drained queue leaves it).
 */
export const PENDING_INDEX = 'convpending';

/** Conversations a sweep looks at in one pass (the rest are due on the next). */
const DUE_PER_SWEEP = 500;

/**
 * A conversation has queued work: its pending mark (naming the tenant whose part holds the queue) and
 * its place in the due index, due a lease from now (its drainer renews the lease until then).
 */
export async function notePending(ctx: CoreContext, ref: ConvRef): Promise<void> {
  await ctx.store.set(infraKeys.pending(ref.id), toJson(ref.tenant));
  await ctx.store.schedule(PENDING_INDEX, ref.id, ctx.now() + leaseTimings(ctx.config.leaseTtlMs).ttlMs);
}

export class QueueWorker {
  /** Threads this process is draining; `again` records a wakeup that arrived meanwhile. */
  private readonly draining = new Map<string, { again: boolean }>();
  private readonly work = new Set<Promise<void>>();
  private stopping = false;
  /** The pending marks were walked once (the first sweep). */
  private walked = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly ctx: CoreContext,
    private readonly handle: (conv: ConvRef, item: TakenItem) => Promise<void>,
    /** RETENTION_DAYS (a conversation found in the old layout is moved with it). */
    private readonly retentionMs: number,
  ) {
    // Every answer in flight listens for the worker's stop (answer-turn.ts) and removes its listener
    // when it ends: many at once are expected, not a leak.
    setMaxListeners(0, this.abort.signal);
  }

  /** Aborts when the worker stops for good: the answers in flight stop with it (marked, with Retry). */
  get stopSignal(): AbortSignal {
    return this.abort.signal;
  }

  async enqueue(conv: Conversation, item: ConvQueueItem): Promise<void> {
    const ref = convRef(conv);
    // Marked before the push: a crash between leaves a mark without work (a sweep drops it), never
    // work without a mark.
    await notePending(this.ctx, ref);
    await convView(this.ctx.store, ref).push(convKeys.queue(conv.id), toJson(item));
    this.kick(ref);
  }

  /**
   * Drains queues left with work (by a restart, or an instance that died holding the lease): those
   * the pending index has due (their drainer's lease may have run out), not every pending mark. The
   * first sweep also walks the marks once (those written before the index, by an older version).
   */
  async sweep(): Promise<void> {
    if (this.stopping) return;
    const { store } = this.ctx;
    const now = this.ctx.now();
    const due = (await store.due(PENDING_INDEX, now, DUE_PER_SWEEP)).map((e) => e.member);
    const walked = this.walked
      ? []
      : (await store.keys(infraKeys.pendingPrefix)).map((key) => key.slice(infraKeys.pendingPrefix.length));
    this.walked = true;
    const { ttlMs } = leaseTimings(this.ctx.config.leaseTtlMs);
    for (const convId of new Set([...due, ...walked])) {
      // Being drained here (its lease renewed): looked at again a lease from now.
      if (this.draining.has(convId)) {
        await store.schedule(PENDING_INDEX, convId, now + ttlMs);
        continue;
      }
      const lease = await store.leaseInfo(infraKeys.lease(convId));
      if (lease && lease.expiresAt > now) {
        await store.schedule(PENDING_INDEX, convId, lease.expiresAt);
        continue;
      }
      const ref = await this.pendingRef(convId, await store.get(infraKeys.pending(convId)));
      if (!ref || (await this.queued(ref)) === 0) {
        await store.delete(infraKeys.pending(convId));
        await store.unschedule(PENDING_INDEX, convId);
        continue;
      }
      await store.schedule(PENDING_INDEX, convId, now + ttlMs);
      this.kick(ref);
    }
  }

  /**
   * The conversation a pending mark names: its tenant is the mark's value. A mark from before the
   * tenants' parts names none: the conversation's old record (moved on this read) says whose it is.
   */
  private async pendingRef(convId: string, value: Json | undefined): Promise<ConvRef | undefined> {
    const mark = parseStored(pendingSchema, value);
    if (mark && mark !== 1)
      return { tenant: recordedTenant({ surface: mark.surface, workspace: mark.id }), id: convId };
    const old = parseStored(conversationSchema, await readOld(this.ctx.store, legacyKeys.conversation(convId)));
    const conv = old ? await loadConversation(this.ctx.store, convRef(old), this.retentionMs) : undefined;
    return conv ? convRef(conv) : undefined;
  }

  /** Items waiting: in the tenant's queue and in one left in the old layout. */
  private async queued(ref: ConvRef): Promise<number> {
    const { store } = this.ctx;
    const own = await convView(store, ref).length(convKeys.queue(ref.id));
    return oldLayoutMayRemain(store) ? own + (await store.length(legacyKeys.queue(ref.id))) : own;
  }

  /** Stops taking work; waits for the answers in flight for at most `withinMs` (a real timer's duration). */
  async stop(withinMs: number): Promise<void> {
    this.stopping = true;
    const pending = Promise.allSettled([...this.work]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, withinMs));
    });
    await Promise.race([pending, timeout]);
    if (timer) clearTimeout(timer);
    // Whatever is still streaming is stopped; the relay marks it interrupted with a Retry button.
    this.abort.abort();
    await Promise.race([pending, new Promise<void>((resolve) => setTimeout(resolve, 1000).unref())]);
  }

  /** Resolves when this process has no queue work running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private kick(ref: ConvRef): void {
    const convId = ref.id;
    const running = this.draining.get(convId);
    if (running) {
      running.again = true;
      return;
    }
    if (this.stopping) return;
    const state = { again: false };
    this.draining.set(convId, state);
    const job = this.drainLoop(ref, state)
      .catch((err: unknown) => this.ctx.log.error({ err, convId }, 'conversation: drain failed'))
      .finally(() => {
        this.work.delete(job);
      });
    this.work.add(job);
  }

  private async drainLoop(ref: ConvRef, state: { again: boolean }): Promise<void> {
    try {
      for (;;) {
        state.again = false;
        const got = await this.drainOnce(ref);
        if (!got || this.stopping) return;
        if (got === 'drained') {
          // Its mark went with the last ack: a push of this process meanwhile is marked again.
          if (!state.again) return;
          await notePending(this.ctx, ref);
          continue;
        }
        // Re-check after releasing: a push that landed between our last peek and the release must not wait.
        if ((await this.queued(ref)) === 0 && !state.again) {
          await this.ctx.store.delete(infraKeys.pending(ref.id));
          await this.ctx.store.unschedule(PENDING_INDEX, ref.id);
          if ((await this.queued(ref)) === 0) return;
          // A push landed meanwhile: marked again, so a crash from here on still leaves it found.
          await notePending(this.ctx, ref);
        }
      }
    } finally {
      this.draining.delete(ref.id);
    }
  }

  /**
   * The next item: first what is left in the old layout's queue (pushed before the upgrade, so older
   * than anything in the tenant's), then the tenant's own.
   */
  private async next(ref: ConvRef, legacyLeft: boolean, lease: HeldLease): Promise<TakenItem | undefined> {
    if (legacyLeft) {
      const raw = await this.ctx.store.peek(legacyKeys.queue(ref.id));
      if (raw) return { raw, legacy: true, lease };
    }
    const raw = await convView(this.ctx.store, ref).peek(convKeys.queue(ref.id));
    return raw ? { raw, legacy: false, lease } : undefined;
  }

  /**
   * Holds the thread's lease and answers its queue in order. False when another instance holds it,
   * or took it while this one answered (this one stalled past the lease): then it stops at once.
   * 'drained' when the last ack emptied the queue and, in the same step, took its pending mark and
   * due entry out and let the lease go; true when it stopped otherwise (the lease let go).
   */
  private async drainOnce(ref: ConvRef): Promise<boolean | 'drained'> {
    const { store, config } = this.ctx;
    const convId = ref.id;
    // Held at most a lease (INSTANCE_LEASE_S) without renewal: a dead instance's thread is taken over soon.
    const timings = leaseTimings(config.leaseTtlMs);
    // The renewals keep the conversation's pending entry at the lease's end (noted a lease from its
    // push, so about now + a lease): no sweep reads this lease while it is renewed.
    const due = { index: PENDING_INDEX, member: convId, dueAt: this.ctx.now() + timings.ttlMs, now: this.ctx.now };
    const lease = await HeldLease.take(store, infraKeys.lease(convId), config.instanceId, timings, due);
    if (!lease) return false;
    let drained = false;
    try {
      // Looked at once per drain: nothing is pushed to the old layout's queue any more.
      let legacyLeft = oldLayoutMayRemain(store) && (await store.length(legacyKeys.queue(convId))) > 0;
      while (!this.stopping) {
        const item = await this.next(ref, legacyLeft, lease);
        if (!item) break;
        const id = item.raw.id;
        try {
          await this.handle(ref, item);
          // Acked under the lease: a worker that lost the thread leaves the item to the new holder.
          if (await this.ack(ref, item, lease)) {
            drained = true;
            return 'drained';
          }
        } catch (err) {
          if (!(err instanceof FencedOut) && !lease.lost.aborted) throw err;
          this.ctx.log.warn(
            {
              convId,
              item: id,
              token: lease.fence.token,
              why: lease.lost.reason instanceof Error ? lease.lost.reason.message : undefined,
            },
            LOST_LEASE_LINE,
          );
          return false;
        }
        legacyLeft = item.legacy;
      }
    } finally {
      // Let go already when the queue drained with its last ack.
      if (!drained) await lease.release();
    }
    return true;
  }

  /**
   * Acks the item under the thread's lease; the tenant's queue left empty, its end goes in the same
   * step (its pending mark and due entry out, the lease let go): true then. An item of the old
   * layout's queue is acked alone (the tenant's queue may hold more).
   */
  private async ack(ref: ConvRef, item: TakenItem, lease: HeldLease): Promise<boolean> {
    const { id } = item.raw;
    if (item.legacy) {
      await lease.write([{ op: 'ack', queue: legacyKeys.queue(ref.id), id }]);
      return false;
    }
    const ack = convView(this.ctx.store, ref).ackWrite(convKeys.queue(ref.id), id);
    if (ack.op !== 'ack') throw new Error('a queue ack is an ack');
    return lease.writeOrFinish([ack], ack.queue, [
      { op: 'delete', key: infraKeys.pending(ref.id) },
      { op: 'unschedule', index: PENDING_INDEX, member: ref.id },
    ]);
  }
}

/** Logged once when a worker finds it lost its thread's lease and stops. */
export const LOST_LEASE_LINE =
  "conversation: lost the thread lease; stopped answering (the thread is another instance's now)";
