/**
 * Conversations: the thread <-> chat session map, what comes in (a `/ask`, a thread message, a
 * Retry), dedupe of redelivered messages, and what each queue item means. The queue worker
 * (worker.ts) answers each thread's items in order across instances; one turn is answered by
 * answer-turn.ts.
 */
import type { CoreContext, TenantScope } from '../context';
import type { Handoffs } from '../handoff/handoffs';
import type { Actor, Attachment, BridgeRequest, IncomingMessage, Invocation, Place, SurfacePort } from '../surface';
import { RETRY_TTL_MS, TurnAnswerer } from './answer-turn';
import { type AskInProgress, beginAsk, takeLostAsks } from './ask-intents';
import {
  convKeys,
  convRef,
  convRefAt,
  legacyKeys,
  parseStored,
  queueItemSchema,
  retryRecordSchema,
  type Conversation,
  type ConvQueueItem,
  type ConvRef,
} from './model';
import { convView, loadConversation, readOld, retryDone, retryRecordOf } from './records';
import { sessionOf, sessionsOf } from './sessions';
import { FreshConversations } from './activity';
import { AskedScopes, type HeldAsk } from './asked-scopes';
import { loggedFailure, sentence } from '../user-messages';
import type { AnswerRelay } from './relay-port';
import { answerRequest } from './answer-request';
import { giveUpItem, givenUpOnLastFailure } from './given-up';
import { type ItemProgress, startItem } from './started';
import { appendTurn, DEFAULT_RETENTION_MS } from './transcript';
import { QueueWorker, type TakenItem } from './worker';
import { shownAsText, untrusted } from '../text/untrusted';
import type { RequestTenant } from '../tenants/tenant';
import { NOT_CONNECTED } from '../tenants/directory';
import { scopeOf } from '../tenants/scope';
import { ListingCatalogue } from '../listings/named';
import { beginTenantWork } from '../tenants/leave';
import type { TenantWork } from '../tenants/tenant-work';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a pressed Retry counts as queued at most (a crashed worker's mark must not block it forever). */
const RETRYING_TTL_MS = 10 * 60_000;

export class Conversations {
  private readonly knownSurfaces = new Map<string, SurfacePort>();
  private readonly fresh = new FreshConversations();
  private readonly asked: AskedScopes;
  private readonly worker: QueueWorker;
  /** The listings answers may name, one catalogue per chatbot client (a tenant's own, or the default). */
  private readonly catalogues = new WeakMap<TenantScope['chatbot']['client'], ListingCatalogue>();
  /** A sweep is finishing lost `/ask`s: the next one does not start beside it. */
  private resuming = false;

  constructor(
    private readonly ctx: CoreContext,
    private readonly relay: AnswerRelay,
    private readonly handoffs: Handoffs,
  ) {
    this.asked = new AskedScopes(() => ctx.now());
    this.worker = new QueueWorker(ctx, (conv, item) => this.handleItem(conv, item), this.retentionMs);
  }

  /** A turn's answerer, in the scope of the tenant its request carries; undefined when it has no chatbot. */
  private async turnsFor(tenant: RequestTenant, held?: HeldAsk): Promise<TurnAnswerer | undefined> {
    const ctx = held?.scope ?? (await scopeOf(this.ctx, tenant));
    if (!ctx) return undefined;
    const catalogue = this.catalogues.get(ctx.chatbot.client) ?? new ListingCatalogue(ctx);
    this.catalogues.set(ctx.chatbot.client, catalogue);
    return new TurnAnswerer({
      ctx,
      catalogue,
      relay: this.relay,
      handoffs: this.handoffs,
      session: sessionsOf(ctx, this.retentionMs, held?.noSessionYet === true),
      addTurn: (conv, turn) => appendTurn(ctx, convRef(conv), turn, this.retentionMs),
      stopSignal: this.worker.stopSignal,
    });
  }

  // ---- entry points ------------------------------------------------------------------------------

  /** `/ask <question>` (with its files, if any): a new thread whose root names the user and quotes the question. */
  async startFromCommand(
    inv: Invocation,
    question: string,
    attachments: Attachment[] = [],
    scope?: TenantScope,
  ): Promise<Conversation> {
    this.remember(inv.surface);
    // Written down first: an instance that dies before the question is queued leaves it to another.
    const { place, actor } = inv;
    const ask = await beginAsk(this.ctx, { surface: inv.surface.name, place, actor, question, attachments });
    try {
      return await this.postAndQueue(inv.surface, ask, scope);
    } finally {
      await ask.end();
    }
  }

  /**
   * The root that names the user and quotes the question (unless an earlier instance posted it), then
   * the queue. `scope`: the `/ask` request's own, held for the answer to its question (asked-scopes.ts).
   */
  private async postAndQueue(surface: SurfacePort, ask: AskInProgress, scope?: TenantScope): Promise<Conversation> {
    const { place, actor, question, attachments = [] } = ask.intent;
    let { root: rootRef, thread } = ask.intent;
    if (!rootRef || !thread) {
      const quoted = question
        .split('\n')
        .map((l) => `> ${shownAsText(untrusted(l))}`)
        .join('\n');
      // The question is the user's: quoted as text (no link or markup of theirs goes live).
      const root = { text: `${surface.mention(actor)} asked:\n${quoted}`, markdown: true };
      const title = question.replace(/\s+/g, ' ').trim().slice(0, 80) || 'Question';
      ({ thread, root: rootRef } = await surface.startThread(place, root, title));
      await ask.rooted(rootRef, thread);
    }
    const conv = await this.ensureConversation(thread, actor);
    await this.setRecent(convRef(conv).tenant, thread, actor.id, conv.id);
    const msgId = `ask:${rootRef.id}`;
    if (scope) this.asked.hold(scope, conv, convRef(conv), msgId, this.fresh.isNew(conv));
    await this.enqueue(conv, { kind: 'message', msgId, actor, text: question, attachments });
    return conv;
  }

  /** A message in a thread: continues its conversation, or starts one on a mention/DM. */
  async onMessage(msg: IncomingMessage, surface: SurfacePort): Promise<boolean> {
    this.remember(surface);
    let conv = await this.find(msg.place);
    if (!conv) {
      if (!msg.startsConversation) return false;
      conv = await this.ensureConversation(msg.place, msg.actor);
    }
    if (!(await this.firstDelivery(msg))) return true;
    await this.setRecent(msg.tenant, msg.place, msg.actor.id, conv.id);
    await this.enqueue(conv, {
      kind: 'message',
      msgId: msg.id,
      actor: msg.actor,
      text: msg.text,
      attachments: msg.attachments,
    });
    return true;
  }

  /** Slack and Discord redeliver: a message id is handled once, whichever instance sees it (or saw it at its old key). */
  async firstDelivery(msg: IncomingMessage): Promise<boolean> {
    const view = convView(this.ctx.store, msg.tenant);
    if (!(await view.setIfAbsent(convKeys.seen(msg.place, msg.id), this.ctx.now(), DAY_MS))) return false;
    return (await readOld(this.ctx.store, legacyKeys.seen(msg.place, msg.id))) === undefined;
  }

  /**
   * Retry button: the same question again, in the same thread and session. The button is pressed in
   * the answer's thread: its request's tenant is the conversation's, whose part holds the record.
   */
  async retry(inv: Invocation, retryId: string): Promise<void> {
    const { tenant } = inv;
    const record = parseStored(retryRecordSchema, await retryRecordOf(this.ctx.store, tenant, retryId, RETRY_TTL_MS));
    const conv = record ? await this.load({ tenant, id: record.conv }) : undefined;
    if (!record || !conv) {
      await inv.reply({ text: 'This Retry button has expired: please ask your question again.' }, { ephemeral: true });
      return;
    }
    // Who may press it: the permission table's `retry` row (the asker or an admin). A record from
    // before askers were kept names nobody: whoever presses it counts as the asker.
    const asker = record.asker ? { ...record.asker, isAdmin: false } : inv.actor;
    const refused = await this.handoffs.refusal('retry', inv, asker);
    if (refused) {
      await inv.reply({ text: refused }, { ephemeral: true });
      return;
    }
    // One retry at a time per answer: a second press while it is queued or streaming does nothing.
    const pressed = convView(this.ctx.store, tenant).setIfAbsent(
      convKeys.retrying(retryId),
      inv.actor.id,
      RETRYING_TTL_MS,
    );
    if (!(await pressed)) return;
    await this.enqueue(conv, { kind: 'retry', retryId, actor: inv.actor });
  }

  async find(place: Place): Promise<Conversation | undefined> {
    return this.load(convRefAt(place));
  }

  /** A conversation of a tenant (a button's conversation id, read under its request's tenant). */
  async load(ref: ConvRef): Promise<Conversation | undefined> {
    return loadConversation(this.ctx.store, ref, this.retentionMs);
  }

  /** The user's most recent conversation in a channel (for `/handoff` typed outside a thread). */
  async recentFor(req: Pick<BridgeRequest, 'tenant' | 'place'>, userId: string): Promise<Conversation | undefined> {
    const { tenant, place } = req;
    const id =
      (await convView(this.ctx.store, tenant).get(convKeys.recent(place, userId))) ??
      (await readOld(this.ctx.store, legacyKeys.recent(place, userId)));
    return typeof id === 'string' ? this.load({ tenant, id }) : undefined;
  }

  sessionOf(conv: ConvRef): Promise<number | undefined> {
    return sessionOf(this.ctx, conv, this.retentionMs);
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /**
   * Finishes the `/ask`s a dead instance acknowledged but did not queue, then drains queues left
   * with work (by a restart, or an instance that died holding the lease).
   */
  async sweep(): Promise<void> {
    if (!this.resuming) {
      this.resuming = true;
      try {
        await takeLostAsks(this.ctx, (ask) => this.finishLostAsk(ask));
      } finally {
        this.resuming = false;
      }
    }
    await this.worker.sweep();
  }

  private async finishLostAsk(ask: AskInProgress): Promise<void> {
    try {
      const surface = this.ctx.surfaces.get(ask.intent.surface);
      if (!surface) throw new Error(`surface ${ask.intent.surface} is not running`);
      await this.postAndQueue(surface, ask);
    } finally {
      await ask.end();
    }
  }

  /** Stops taking work; waits for the answers in flight for at most `withinMs`. */
  stop(withinMs: number): Promise<void> {
    return this.worker.stop(withinMs);
  }

  /** Resolves when this process has no queue work running (tests, shutdown). */
  idle(): Promise<void> {
    return this.worker.idle();
  }

  // ---- the conversation's records ----------------------------------------------------------------

  /** The conversation of `place`; a new one is `starter`'s (activity.ts). */
  private ensureConversation(place: Place, starter: Actor): Promise<Conversation> {
    return this.fresh.ensure(this.ctx, place, starter, this.retentionMs);
  }

  private async setRecent(tenant: RequestTenant, place: Place, userId: string, convId: string): Promise<void> {
    await convView(this.ctx.store, tenant).set(convKeys.recent(place, userId), convId, 30 * DAY_MS);
  }

  /** RETENTION_DAYS: a conversation, its session and transcript expire this long after its last activity. */
  private get retentionMs(): number {
    return this.ctx.config.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  private async enqueue(conv: Conversation, item: ConvQueueItem): Promise<void> {
    await this.fresh.touch(this.ctx, conv, this.retentionMs);
    await this.worker.enqueue(conv, item);
  }

  // ---- one queue item ----------------------------------------------------------------------------

  /** What the worker hands over: a message relayed to a human or answered, or a Retry answered. */
  private async handleItem(ref: ConvRef, taken: TakenItem): Promise<void> {
    const parsed = queueItemSchema.safeParse(taken.raw.value);
    if (!parsed.success) {
      this.ctx.log.error({ convId: ref.id, item: taken.raw.id }, 'conversation: unreadable queue item skipped');
      return;
    }
    const item = parsed.data;
    // Counted first, before anything that can fail (the conversation's read, its tenant's check).
    const progress = await startItem(this.ctx, ref, taken);
    if (!progress) {
      // Its Retry button (if any) must work again on the answer recovery marks.
      if (item.kind === 'retry') await retryDone(this.ctx.store, ref, item.retryId);
      return;
    }
    await givenUpOnLastFailure(this.ctx, ref, taken, item, progress, () =>
      this.loadAndAnswer(ref, taken, item, progress),
    );
  }

  /** The conversation and its tenant's work, then the item answered (or given up, its tries used). */
  private async loadAndAnswer(ref: ConvRef, taken: TakenItem, item: ConvQueueItem, progress: ItemProgress) {
    const held = item.kind === 'message' ? this.asked.take(ref, item.msgId, progress.tries) : undefined;
    const conv = held?.conv ?? (await this.load(ref));
    const skipped = { convId: ref.id, item: taken.raw.id };
    if (!conv) return this.ctx.log.error(skipped, 'conversation: unreadable queue item skipped');
    // Its tenant's work, stopped at once if the tenant leaves; none when it left after the conversation began.
    const work = await beginTenantWork(this.ctx, conv.place, conv.createdAt);
    if (!work) {
      this.ctx.log.debug(skipped, 'conversation: queue item skipped: its tenant left');
      // Its tenant's records are being deleted: the mark just written goes with them.
      return progress.forget();
    }
    try {
      await this.startAndAnswer(conv, taken, item, work, progress, held);
    } finally {
      work.end();
    }
  }

  /** The item (marked started) answered with the surface its tenant's work may use (`held`: its request's scope). */
  private async startAndAnswer(
    conv: Conversation,
    taken: TakenItem,
    item: ConvQueueItem,
    work: TenantWork,
    progress: ItemProgress,
    held?: HeldAsk,
  ) {
    const ref = convRef(conv);
    const found = this.surfaceFor(conv.place);
    // Every platform call of the item is refused once its tenant left or its thread's lease is lost;
    // the answer stops (its service stream closes, the relay drops it) on either.
    const surface = found ? taken.lease.port(work.port(found)) : undefined;
    const stop = AbortSignal.any([work.signal, taken.lease.lost]);
    if (!surface) {
      // Its surface is no longer configured: nothing can answer it, now or on a retry, so the item
      // is dropped (acked by the worker) with one line, not retried on every sweep.
      this.ctx.log.warn(
        { convId: conv.id, item: taken.raw.id, surface: conv.place.surface },
        'conversation: queue item dropped: its surface is not configured',
      );
      if (item.kind === 'retry') await retryDone(this.ctx.store, ref, item.retryId);
      return progress.done();
    }
    // Its tries all failed before the answer started: the user is told, the item moved aside.
    if (progress.exhausted) return giveUpItem(this.ctx, ref, taken, item, progress, { conv, surface });
    const request = answerRequest(conv, surface, item.actor);
    try {
      const ticket = await this.handoffs.activeTicket(ref);
      if (item.kind === 'message' && ticket) {
        await this.handoffs.relayFromUser(ticket, item.actor, surface, item.text, item.attachments, item.msgId);
        return;
      }
      const turns = await this.turnsFor(request.tenant, held);
      if (!turns) {
        await surface.post(conv.place, { text: NOT_CONNECTED });
        return;
      }
      if (item.kind === 'message') {
        await turns.answerMessage({
          conv,
          request,
          text: item.text,
          attachments: item.attachments,
          progress,
          left: stop,
        });
      } else {
        if (ticket) {
          await surface.post(conv.place, {
            text: 'A human is handling this conversation; use /handoff cancel first to ask the bot again.',
          });
          return;
        }
        const record = parseStored(
          retryRecordSchema,
          await retryRecordOf(this.ctx.store, ref.tenant, item.retryId, RETRY_TTL_MS),
        );
        if (!record) {
          await surface.post(conv.place, { text: 'That Retry has expired: please ask your question again.' });
          return;
        }
        await turns.answer({ conv, request, ask: record, retryId: item.retryId, progress, left: stop });
      }
    } catch (err) {
      // The tenant left meanwhile: its calls were refused; no one there to tell. The thread's lease
      // was lost: the item is the new holder's, who answers it (the worker logs the loss).
      if (work.left || taken.lease.lost.aborted) return;
      const told = loggedFailure(this.ctx.log, err, { convId: conv.id }, 'conversation: handling a message failed');
      await surface
        .post(conv.place, { text: `Sorry, I could not answer that: ${sentence(told)} Please try again.` })
        .catch((e: unknown) => this.ctx.log.error({ err: e }, 'conversation: could not report the failure'));
    } finally {
      // The retry is over (answered, refused or failed): its button works again. Not for a worker
      // that lost the thread: the retry is the new holder's.
      if (item.kind === 'retry' && !taken.lease.lost.aborted) await retryDone(this.ctx.store, ref, item.retryId);
      // A left tenant's records are being deleted: its item's mark is not written again.
      if (!work.left) await progress.done();
    }
  }

  private remember(surface: SurfacePort): void {
    this.knownSurfaces.set(surface.name, surface);
  }

  private surfaceFor(place: Place): SurfacePort | undefined {
    return this.ctx.surfaces.get(place.surface) ?? this.knownSurfaces.get(place.surface);
  }
}
