/**
 * The outbox of ticket notices. A ticket change (claim, release, take-over, close, cancel, time-out,
 * reminder, rating) and the notices it owes (ticket message edit, posts in the ticket thread and the
 * user's thread, the Cancel button's removal, the rating prompt) are written in one atomic store step
 * (`compareAndSetWithIntents`); only then are the notices carried out, each marked done after it. A
 * restart (or a crash) between the two loses nothing: on start, and every few seconds on every
 * instance, pending notices are carried out again.
 *
 * Never twice: each notice has a stable id. While one instance carries a notice out it holds a lease
 * named after it (renewed while the platform call runs), and one process never runs the same notice
 * twice at once. An edit is idempotent (it shows the ticket as it is now). A post records the message
 * it made before it is marked done, and a replay that finds the record does not post again. What
 * remains: a crash after the platform accepted a post but before the record was written (one store
 * write, milliseconds) posts that notice again on replay.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Json, OutboxIntent, StoredIntent } from '../../state/store';
import type { CoreContext } from '../context';
import { messageRefSchema, placeSchema } from '../conversations/model';
import type { MessageRef, OutMessage, Place, SurfacePort } from '../surface';

export const NOTICE_BOX = 'handoff-notices';

const buttonSchema = z.object({
  action: z.string(),
  label: z.string(),
  value: z.string(),
  style: z.enum(['primary', 'danger']).optional(),
});
const noticeMessageSchema = z.object({
  text: z.string(),
  markdown: z.boolean().optional(),
  buttons: z.array(buttonSchema).optional(),
});

const noticeSchema = z.discriminatedUnion('kind', [
  /** A new message (in the ticket thread or the user's thread). */
  z.object({ kind: z.literal('post'), ticketId: z.string(), place: placeSchema, msg: noticeMessageSchema }),
  /** The ticket message shown as the ticket is now. */
  z.object({ kind: z.literal('refresh'), ticketId: z.string() }),
  /** A message replaced (the user's notice losing its Cancel button). */
  z.object({ kind: z.literal('edit'), ticketId: z.string(), ref: messageRefSchema, msg: noticeMessageSchema }),
]);
export type Notice = z.infer<typeof noticeSchema>;

/** What a post made, recorded before the notice is marked done (a replay finds it and does not post). */
const postedSchema = z.object({ posted: messageRefSchema.nullable() });

/** Long enough for a platform call held back by rate limits; renewed meanwhile. */
const LEASE_MS = 60_000;
/** A done notice's id is remembered this long, so a replayed write cannot queue it again. */
const DONE_TTL_MS = 7 * 24 * 3600 * 1000;
/** A notice that keeps failing (a deleted channel) is given up after this many tries by one process. */
const MAX_ATTEMPTS = 8;
const DRAIN_BATCH = 200;

export interface NoticeDeps {
  ctx: CoreContext;
  /** The ticket message as the ticket is now: where it is and what it shows (undefined: no message yet). */
  renderTicket(ticketId: string): Promise<{ root: MessageRef; msg: OutMessage } | undefined>;
}

export class TicketNotices {
  /**
   * Notices this process holds right now (a lease is per instance id, not per call), each with the
   * timer that renews its lease until it is let go.
   */
  private readonly inFlight = new Map<string, NodeJS.Timeout>();
  private readonly attempts = new Map<string, number>();

  constructor(private readonly deps: NoticeDeps) {}

  private get ctx(): CoreContext {
    return this.deps.ctx;
  }

  /** Intents for the notices of one change, with ids that stay theirs for life. */
  intents(notices: Notice[]): OutboxIntent[] {
    const change = randomBytes(6).toString('hex');
    return notices.map((n, i) => ({ id: `${n.ticketId}:${change}:${i}`, value: n as unknown as Json }));
  }

  /**
   * Carries out the notices of a change just written, in their order. Their leases are all taken
   * first, so a drain (here or on another instance) cannot send a later notice before an earlier one.
   */
  async deliver(intents: OutboxIntent[]): Promise<void> {
    if (intents.length === 0) return;
    await this.pauseForTests(intents);
    const held: string[] = [];
    for (const { id } of intents) if (await this.hold(id)) held.push(id);
    for (const id of held) await this.carryOutHeld(id);
  }

  /** Every pending notice, oldest first: on start (a replay after a restart) and periodically (an instance that died). */
  async drain(): Promise<number> {
    if (process.env.BRIDGE_TEST_PAUSE_BEFORE_NOTICES === '1') return 0;
    const pending = await this.ctx.store.pendingIntents(NOTICE_BOX, DRAIN_BATCH);
    let done = 0;
    for (const intent of pending) if ((await this.hold(intent.id)) && (await this.carryOutHeld(intent.id))) done++;
    return done;
  }

  /** Takes a notice for this process: not in flight here, and its lease is ours. */
  private async hold(id: string): Promise<boolean> {
    if (this.inFlight.has(id)) return false;
    const { store, config } = this.ctx;
    const lease = this.leaseName(id);
    // Renewed from the start: a notice may wait behind earlier ones held back by rate limits.
    const renew = setInterval(() => {
      store.renewLease(lease, config.instanceId, LEASE_MS).catch(() => undefined);
    }, LEASE_MS / 3);
    renew.unref();
    this.inFlight.set(id, renew);
    try {
      if (await store.acquireLease(lease, config.instanceId, LEASE_MS)) return true;
    } catch (err) {
      this.ctx.log.warn({ err, notice: id }, 'handoff: could not take a ticket notice');
    }
    clearInterval(renew);
    this.inFlight.delete(id);
    return false;
  }

  /** Carries out a held notice and lets it go. True when it is done (now or already). */
  private async carryOutHeld(id: string): Promise<boolean> {
    const { store, config } = this.ctx;
    try {
      // Read again under the lease: another instance may have finished it meanwhile.
      const stored = await store.intent(NOTICE_BOX, id);
      if (stored?.state !== 'pending') return stored?.state === 'done';
      await this.perform(stored);
      await store.completeIntent(NOTICE_BOX, id, DONE_TTL_MS);
      this.attempts.delete(id);
      return true;
    } catch (err) {
      await this.failed(id, err);
      return false;
    } finally {
      clearInterval(this.inFlight.get(id));
      this.inFlight.delete(id);
      await store.releaseLease(this.leaseName(id), config.instanceId).catch(() => undefined);
    }
  }

  private async failed(id: string, err: unknown): Promise<void> {
    const tries = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, tries);
    if (tries < MAX_ATTEMPTS) {
      this.ctx.log.warn({ err, notice: id, tries }, 'handoff: a ticket notice failed; it is tried again');
      return;
    }
    this.ctx.log.error({ err, notice: id, tries }, 'handoff: a ticket notice keeps failing; given up');
    this.attempts.delete(id);
    await this.ctx.store.completeIntent(NOTICE_BOX, id, DONE_TTL_MS).catch(() => undefined);
  }

  private leaseName(id: string): string {
    return `notice:${id}`;
  }

  private async perform(stored: StoredIntent): Promise<void> {
    const parsed = noticeSchema.safeParse(stored.value);
    if (!parsed.success) {
      this.ctx.log.error({ notice: stored.id }, 'handoff: an unreadable ticket notice is dropped');
      return;
    }
    const notice = parsed.data;
    switch (notice.kind) {
      case 'post': {
        if (postedSchema.safeParse(stored.result).success) return; // posted before a restart
        const ref = await this.surface(notice.place).post(notice.place, notice.msg);
        await this.ctx.store.recordIntentResult(NOTICE_BOX, stored.id, { posted: ref ?? null } as unknown as Json);
        return;
      }
      case 'refresh': {
        const shown = await this.deps.renderTicket(notice.ticketId);
        if (shown) await this.surface(shown.root.place).edit(shown.root, shown.msg);
        return;
      }
      case 'edit':
        await this.surface(notice.ref.place).edit(notice.ref, notice.msg);
        return;
    }
  }

  private surface(place: Place): SurfacePort {
    const surface = this.ctx.surfaces.get(place.surface);
    if (!surface) throw new Error(`surface ${place.surface} is not running`);
    return surface;
  }

  /**
   * Test hook (crash tests, BRIDGE_TEST_PAUSE_BEFORE_NOTICES=1): stops after a ticket change and its
   * notices were written, before any notice goes out, so a test can SIGKILL the process exactly there.
   * Never set in production.
   */
  private async pauseForTests(intents: OutboxIntent[]): Promise<void> {
    if (process.env.BRIDGE_TEST_PAUSE_BEFORE_NOTICES !== '1') return;
    this.ctx.log.warn(
      { notices: intents.map((i) => i.id) },
      'test hook: paused between a ticket change and its notices',
    );
    await new Promise<never>(() => undefined);
  }
}
