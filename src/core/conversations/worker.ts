/**
 * The queue worker: each conversation's queue is answered in push order by one worker across
 * instances. The worker holds the thread's lease in the store while it drains (renewed as it goes),
 * so a second instance leaves the thread alone, and one that dies holding it is replaced within a
 * sweep of the lease running out. What an item means is not its business: it hands each one to
 * `handle` and acks it afterwards.
 */
import type { QueueItem } from '../../state/store';
import type { CoreContext } from '../context';
import { leaseTimings } from '../leases';
import { keys, toJson, type Conversation, type ConvQueueItem } from './model';

export class QueueWorker {
  /** Threads this process is draining; `again` records a wakeup that arrived meanwhile. */
  private readonly draining = new Map<string, { again: boolean }>();
  private readonly work = new Set<Promise<void>>();
  private stopping = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly ctx: CoreContext,
    private readonly handle: (convId: string, item: QueueItem) => Promise<void>,
  ) {}

  /** Aborts when the worker stops for good: the answers in flight stop with it (marked, with Retry). */
  get stopSignal(): AbortSignal {
    return this.abort.signal;
  }

  async enqueue(conv: Conversation, item: ConvQueueItem): Promise<void> {
    await this.ctx.store.push(keys.queue(conv.id), toJson(item));
    await this.ctx.store.set(keys.pending(conv.id), 1);
    this.kick(conv.id);
  }

  /** Drains queues left with work (by a restart, or an instance that died holding the lease). */
  async sweep(): Promise<void> {
    if (this.stopping) return;
    for (const key of await this.ctx.store.keys(keys.pendingPrefix)) {
      const convId = key.slice(keys.pendingPrefix.length);
      if (this.draining.has(convId)) continue;
      if ((await this.ctx.store.length(keys.queue(convId))) === 0) {
        await this.ctx.store.delete(key);
        continue;
      }
      this.kick(convId);
    }
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

  private kick(convId: string): void {
    const running = this.draining.get(convId);
    if (running) {
      running.again = true;
      return;
    }
    if (this.stopping) return;
    const state = { again: false };
    this.draining.set(convId, state);
    const job = this.drainLoop(convId, state)
      .catch((err: unknown) => this.ctx.log.error({ err, convId }, 'conversation: drain failed'))
      .finally(() => {
        this.work.delete(job);
      });
    this.work.add(job);
  }

  private async drainLoop(convId: string, state: { again: boolean }): Promise<void> {
    const queue = keys.queue(convId);
    try {
      for (;;) {
        state.again = false;
        const got = await this.drainOnce(convId);
        if (!got || this.stopping) return;
        // Re-check after releasing: a push that landed between our last peek and the release must not wait.
        if ((await this.ctx.store.length(queue)) === 0 && !state.again) {
          await this.ctx.store.delete(keys.pending(convId));
          if ((await this.ctx.store.length(queue)) === 0) return;
        }
      }
    } finally {
      this.draining.delete(convId);
    }
  }

  /** Holds the thread's lease and answers its queue in order. False when another instance holds it. */
  private async drainOnce(convId: string): Promise<boolean> {
    const { store, config } = this.ctx;
    const lease = keys.lease(convId);
    // Held at most a lease (INSTANCE_LEASE_S) without renewal: a dead instance's thread is taken over soon.
    const { ttlMs, renewMs } = leaseTimings(config.leaseTtlMs);
    if (!(await store.acquireLease(lease, config.instanceId, ttlMs))) return false;
    const renew = setInterval(() => {
      store
        .renewLease(lease, config.instanceId, ttlMs)
        .then((ok) => {
          if (!ok) this.ctx.log.warn({ convId }, 'conversation: lost the thread lease (this instance stalled)');
        })
        .catch((err: unknown) => this.ctx.log.warn({ err, convId }, 'lease renewal failed'));
    }, renewMs);
    renew.unref();
    try {
      while (!this.stopping) {
        const item = await store.peek(keys.queue(convId));
        if (!item) break;
        await this.handle(convId, item);
        await store.ack(keys.queue(convId), item.id);
      }
    } finally {
      clearInterval(renew);
      await store.releaseLease(lease, config.instanceId);
    }
    return true;
  }
}
