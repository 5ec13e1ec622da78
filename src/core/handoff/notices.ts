/**
 * The outbox of ticket notices. A ticket change (opening, claim, release, take-over, close, cancel,
 * time-out, reminder, rating) and the notices it owes (the ticket message and the user's notice when
 * the ticket opens, ticket message edits, posts in the ticket thread and the user's thread, the Cancel
 * button's removal, the rating prompt) are written in one atomic store step
 * (`compareAndSetWithIntents`); only then are the notices carried out, each marked done after it. A
 * restart (or a crash) between the two loses nothing: on start, and every few seconds on every
 * instance, pending notices are carried out again.
 *
 * Order per ticket: the opening notices have stable ids (`<ticket>:open`, `<ticket>:notice`), and a
 * notice that needs what they post (the ticket thread, the ticket message, the user's notice) waits
 * while they are pending: it stays pending for a later drain, and is not counted as a failure.
 *
 * Never twice: each notice has a stable id. While one instance carries a notice out it holds a lease
 * named after it (renewed while the platform call runs), and one process never runs the same notice
 * twice at once. An edit is idempotent (it shows the ticket as it is now). A post records the message
 * it made before it is marked done, and a replay that finds the record does not post again. What
 * remains: a crash after the platform accepted a post but before the record was written (one store
 * write, milliseconds) posts that notice again on replay.
 *
 * A `mail` notice hands the ticket's e-mail to the mail outbox (owed once under a stable id, so a
 * replay owes nothing twice); a `tell` notice speaks privately to one agent (notify), which cannot be
 * recorded, so a crash in that call may repeat it once; carried out late (after a restart), it is
 * dropped if the offer was claimed or passed on meanwhile.
 *
 * It decides nothing and calls nothing back: what a ticket change owes was decided by decide.ts;
 * what a notice posted is recorded on the ticket through tickets.ts; a ticket message given up is
 * handed back to Handoffs (`unposted`), which cancels the ticket as the bridge.
 */
import { z } from 'zod';
import type { Json, OutboxIntent, StoredIntent } from '../../state/store';
import { type CoreContext, surfaceAt } from '../context';
import { messageRefSchema, placeSchema } from '../conversations/model';
import type { MessageRef, OutMessage, Place } from '../surface';
import { NOTICE_BOX, noticeIntents, noticeSchema, type Notice, openingId, userNoticeId } from './notice';
import { oweTicketMail } from './hours/ticket-mails';
import { quietly, startTicket, ticketView } from './ticket-view';
import { TicketStore } from './tickets';

/** What a post made, recorded before the notice is marked done (a replay finds it and does not post). */
const postedSchema = z.object({ posted: messageRefSchema.nullable() });
/** What the ticket message's post made, recorded the same way. */
const openedSchema = z.object({ root: messageRefSchema, thread: placeSchema });
type Opened = z.infer<typeof openedSchema>;

/**
 * A notice that must wait for its ticket's opening (the ticket message, the user's notice) to go out
 * first: left pending, not counted as a failure, carried out by a later drain.
 */
class NotYet extends Error {}

/** Logged when a change made before (a redelivered event) is met again: nothing is done twice. */
export const REDONE_LINE = 'handoff: a change seen before (redelivered); only its pending notices are carried out';

/** Long enough for a platform call held back by rate limits; renewed meanwhile. */
const LEASE_MS = 60_000;
/** A done notice's id is remembered this long, so a replayed write cannot queue it again. */
const DONE_TTL_MS = 7 * 24 * 3600 * 1000;
/**
 * A notice that keeps failing (a deleted channel) is given up after this many tries, counted in the
 * store (`noticetries:<id>`), so a restart or another instance goes on counting instead of starting over.
 */
const MAX_ATTEMPTS = 8;
/** A notice's count of failed tries outlives any retry of it. */
const TRIES_TTL_MS = DONE_TTL_MS;
const triesKey = (id: string): string => `noticetries:${id}`;
const DRAIN_BATCH = 200;

/** Where a ticket's messages are, as far as they are posted. */
interface TicketPlaces {
  thread?: Place;
  userNotice?: MessageRef;
}

export class TicketNotices {
  /**
   * Notices this process holds right now (a lease is per instance id, not per call), each with the
   * timer that renews its lease until it is let go.
   */
  private readonly inFlight = new Map<string, NodeJS.Timeout>();
  /** Tickets whose message could never be posted, for Handoffs to call off (see `unposted`). */
  private readonly givenUp: string[] = [];

  constructor(
    private readonly ctx: CoreContext,
    private readonly tickets: TicketStore = new TicketStore(ctx),
  ) {}

  /**
   * Tickets whose ticket message was given up since the last call: the outbox decides nothing about
   * them (it calls nothing back); Handoffs cancels them as the bridge.
   */
  unposted(): string[] {
    return this.givenUp.splice(0);
  }

  /**
   * Intents for the notices of one change, with ids that stay theirs for life. `stableId` names a
   * change that may be made again (a platform event redelivered, a queue item replayed): its notices
   * get the same ids each time, so the outbox keeps them once.
   */
  intents(notices: Notice[], stableId?: string): OutboxIntent[] {
    return noticeIntents(notices, stableId);
  }

  /**
   * A change made before under `stableId` (see `intents`): its notices, carried out now if still
   * pending. False when no change was ever made under that id.
   */
  async redo(ticketId: string, stableId: string): Promise<boolean> {
    const first = await this.ctx.store.intent(NOTICE_BOX, `${ticketId}:${stableId}:0`);
    if (!first) return false;
    const again: OutboxIntent[] = [];
    for (let i = 0; ; i++) {
      const stored = i === 0 ? first : await this.ctx.store.intent(NOTICE_BOX, `${ticketId}:${stableId}:${i}`);
      if (!stored) break;
      if (stored.state === 'pending') again.push({ id: stored.id, value: stored.value });
    }
    this.ctx.log.info({ ticket: ticketId, change: stableId, pending: again.length }, REDONE_LINE);
    await this.deliver(again);
    return true;
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
    if (this.ctx.config.testPauses?.beforeNotices) return 0;
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
    if (err instanceof NotYet) {
      this.ctx.log.debug({ notice: id }, 'handoff: a ticket notice waits for its ticket message');
      return;
    }
    // Read and written only on a failure: a notice that goes through costs no count.
    const { store } = this.ctx;
    const counted = await store.get(triesKey(id)).catch(() => undefined);
    const tries = (typeof counted === 'number' ? counted : 0) + 1;
    await store.set(triesKey(id), tries, TRIES_TTL_MS).catch(() => undefined);
    if (tries < MAX_ATTEMPTS) {
      this.ctx.log.warn({ err, notice: id, tries }, 'handoff: a ticket notice failed; it is tried again');
      return;
    }
    this.ctx.log.error({ err, notice: id, tries }, 'handoff: a ticket notice keeps failing; given up');
    await store.delete(triesKey(id)).catch(() => undefined);
    const stored = await this.ctx.store.intent(NOTICE_BOX, id).catch(() => undefined);
    await this.ctx.store.completeIntent(NOTICE_BOX, id, DONE_TTL_MS).catch(() => undefined);
    const notice = noticeSchema.safeParse(stored?.value);
    if (notice.success && notice.data.kind === 'open') this.givenUp.push(notice.data.ticketId);
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
        const ref = await this.postOnce(stored, notice.place, notice.msg);
        if (ref && notice.keep === 'userNotice')
          await this.tickets.update(notice.ticketId, (t) => (t.userNotice ? undefined : { ...t, userNotice: ref }));
        return;
      }
      case 'toThread': {
        const thread = (await this.placesOf(notice.ticketId, 'thread', openingId))?.thread;
        if (thread) await this.postOnce(stored, thread, notice.msg);
        return;
      }
      case 'open': {
        const recorded = openedSchema.safeParse(stored.result);
        let opened: Opened;
        if (recorded.success)
          opened = recorded.data; // posted before a restart
        else {
          opened = await startTicket(this.ctx, this.tickets, notice.ticketId, notice.channel, notice.title);
          await this.ctx.store.recordIntentResult(NOTICE_BOX, stored.id, opened as unknown as Json);
        }
        const link = await quietly(
          this.ctx,
          () => surfaceAt(this.ctx, opened.root.place).directory.permalink(opened.root),
          'ticket permalink',
        );
        await this.tickets.posted(notice.ticketId, opened.root, opened.thread, link);
        return;
      }
      case 'refresh': {
        // The edit waits for the ticket message: shown then as the ticket is (a change made meanwhile included).
        if (!(await this.placesOf(notice.ticketId, 'thread', openingId))?.thread) return;
        const shown = await ticketView(this.ctx, this.tickets, notice.ticketId);
        if (shown) await surfaceAt(this.ctx, shown.root.place).edit(shown.root, shown.msg);
        return;
      }
      case 'editNotice': {
        const ref = (await this.placesOf(notice.ticketId, 'userNotice', userNoticeId))?.userNotice;
        if (ref) await surfaceAt(this.ctx, ref.place).edit(ref, notice.msg);
        return;
      }
      case 'strip':
        await surfaceAt(this.ctx, notice.place).directory.stripButtons(notice.place, notice.actions);
        return;
      case 'mail': {
        // After the ticket message (its link goes in the e-mail); owed once under a stable id.
        await this.placesOf(notice.ticketId, 'thread', openingId);
        const t = await this.tickets.load(notice.ticketId);
        if (t) await oweTicketMail(this.ctx, t, notice.reason);
        return;
      }
      case 'tell': {
        const thread = (await this.placesOf(notice.ticketId, 'thread', openingId))?.thread;
        const t = await this.tickets.load(notice.ticketId);
        // Carried out late (a restart, a slow drain): an offer taken or passed on meanwhile is not told.
        if (!thread || t?.status !== 'open' || t.offeredTo?.id !== notice.to.id) return;
        const text = t.ticketLink ? `${notice.msg.text} ${t.ticketLink}` : notice.msg.text;
        await surfaceAt(this.ctx, thread).notify(thread, notice.to, { ...notice.msg, text });
        return;
      }
    }
  }

  /** Posts once: a post recorded before a restart is not made again. */
  private async postOnce(stored: StoredIntent, place: Place, msg: OutMessage): Promise<MessageRef | undefined> {
    const recorded = postedSchema.safeParse(stored.result);
    if (recorded.success) return recorded.data.posted ?? undefined;
    const ref = await surfaceAt(this.ctx, place).post(place, msg);
    await this.ctx.store.recordIntentResult(NOTICE_BOX, stored.id, { posted: ref ?? null } as unknown as Json);
    return ref;
  }

  /**
   * The ticket's places, once `which` is posted. While the notice that posts it is still pending, this
   * notice waits (NotYet); once that one is done or gone without it, there is nothing to wait for.
   */
  private async placesOf(
    ticketId: string,
    which: keyof TicketPlaces,
    poster: (ticketId: string) => string,
  ): Promise<TicketPlaces | undefined> {
    const t = await this.tickets.load(ticketId);
    const places: TicketPlaces | undefined = t && {
      ...(t.thread ? { thread: t.thread } : {}),
      ...(t.userNotice ? { userNotice: t.userNotice } : {}),
    };
    if (!places || places[which]) return places;
    if ((await this.ctx.store.intent(NOTICE_BOX, poster(ticketId)))?.state === 'pending') throw new NotYet();
    return places;
  }

  /**
   * Test hook (crash tests, BRIDGE_TEST_PAUSE_BEFORE_NOTICES=1): stops after a ticket change and its
   * notices were written, before any notice goes out, so a test can SIGKILL the process exactly there.
   * Never set in production.
   */
  private async pauseForTests(intents: OutboxIntent[]): Promise<void> {
    if (!this.ctx.config.testPauses?.beforeNotices) return;
    this.ctx.log.warn(
      { notices: intents.map((i) => i.id) },
      'test hook: paused between a ticket change and its notices',
    );
    await new Promise<never>(() => undefined);
  }
}
