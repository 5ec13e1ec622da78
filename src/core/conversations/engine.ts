/**
 * Conversations: the thread <-> chat session map, the per-thread queue answered in order by one
 * worker across instances (a lease in the store), dedupe of redelivered messages, and answering one
 * message (placeholder, upload, stream through the relay, no-answer handoff).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AnswerEvent } from '../../service/answer-events';
import { RequestValidationError, ServiceError } from '../../service/errors';
import type { QueueItem } from '../../state/store';
import { planAttachments, uploadAttachments } from '../attachments';
import type { CoreContext } from '../context';
import type { Handoffs } from '../handoff/handoffs';
import { HANDOFF_ACTIONS } from '../handoff/model';
import type {
  Actor,
  Attachment,
  Button,
  IncomingMessage,
  Invocation,
  MessageRef,
  OutMessage,
  Place,
  SurfacePort,
} from '../surface';
import {
  conversationIdOf,
  conversationSchema,
  keys,
  parseStored,
  queueItemSchema,
  retryRecordSchema,
  startedMarkSchema,
  toJson,
  type StartedMark,
  type Conversation,
  type ConvQueueItem,
  type RetryRecord,
} from './model';
import type { AnswerRelay } from './relay-port';
import { AnswerStatus } from './status';
import { beginRatedAnswer, completeRatedAnswer, feedbackPrompt, newFeedbackId } from '../feedback/feedback';
import { appendTurn, DEFAULT_RETENTION_MS, touchTranscript } from './transcript';
import { describeInterruption } from './interruption';

export const ANSWER_RETRY_ACTION = 'answer.retry';

const DAY_MS = 24 * 60 * 60 * 1000;
/** In-flight work holds its thread's lease at most this long without renewal (issue 7: <= 30 s). */
export const LEASE_TTL_MS = 20_000;
const RETRY_TTL_MS = 14 * DAY_MS;
/** How long a pressed Retry counts as queued at most (a crashed worker's mark must not block it forever). */
const RETRYING_TTL_MS = 10 * 60_000;
// Empty text: the first version of the message is already a prefix of the final answer (surfaces show a typing mark).
const PLACEHOLDER = { text: '', typing: true } as const;
const BOT_AUTHOR = 'Bot';

export class Conversations {
  /** Threads this process is draining; `again` records a wakeup that arrived meanwhile. */
  private readonly draining = new Map<string, { again: boolean }>();
  private readonly work = new Set<Promise<void>>();
  private readonly knownSurfaces = new Map<string, SurfacePort>();
  private stopping = false;
  private readonly abort = new AbortController();
  /** The queue item each conversation is handling here: its started mark (crash recovery, see handleItem). */
  private readonly current = new Map<string, { key: string; mark: StartedMark; resumed?: boolean }>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly relay: AnswerRelay,
    private readonly handoffs: Handoffs,
  ) {}

  // ---- entry points ------------------------------------------------------------------------------

  /** `/ask <question>`: a new thread whose root names the user and quotes the question. */
  async startFromCommand(inv: Invocation, question: string): Promise<Conversation> {
    this.remember(inv.surface);
    const quoted = question
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n');
    const root = { text: `${inv.surface.mention(inv.actor)} asked:\n${quoted}`, markdown: true };
    const title = question.replace(/\s+/g, ' ').trim().slice(0, 80) || 'Question';
    const { thread, root: rootRef } = await inv.surface.startThread(inv.place, root, title);
    const conv = await this.ensureConversation(thread, inv.actor);
    await this.setRecent(thread, inv.actor.id, conv.id);
    await this.enqueue(conv, {
      kind: 'message',
      msgId: `ask:${rootRef.id}`,
      actor: inv.actor,
      text: question,
      attachments: [],
    });
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
    await this.setRecent(msg.place, msg.actor.id, conv.id);
    await this.enqueue(conv, {
      kind: 'message',
      msgId: msg.id,
      actor: msg.actor,
      text: msg.text,
      attachments: msg.attachments,
    });
    return true;
  }

  /** Slack and Discord redeliver: a message id is handled once, whichever instance sees it. */
  async firstDelivery(msg: IncomingMessage): Promise<boolean> {
    return this.ctx.store.setIfAbsent(keys.seen(msg.place, msg.id), this.ctx.now(), DAY_MS);
  }

  /** Retry button: the same question again, in the same thread and session. */
  async retry(inv: Invocation, retryId: string): Promise<void> {
    const record = parseStored(retryRecordSchema, await this.ctx.store.get(keys.retry(retryId)));
    const conv = record ? await this.load(record.conv) : undefined;
    if (!record || !conv) {
      await inv.reply({ text: 'This Retry button has expired: please ask your question again.' }, { ephemeral: true });
      return;
    }
    if (record.asker && record.asker.id !== inv.actor.id && !inv.actor.isAdmin) {
      await inv.reply(
        { text: `Only ${record.asker.name}, who asked this question, or an admin can press Retry.` },
        { ephemeral: true },
      );
      return;
    }
    // One retry at a time per answer: a second press while it is queued or streaming does nothing.
    if (!(await this.ctx.store.setIfAbsent(keys.retrying(retryId), inv.actor.id, RETRYING_TTL_MS))) return;
    await this.enqueue(conv, { kind: 'retry', retryId, actor: inv.actor });
  }

  async find(place: Place): Promise<Conversation | undefined> {
    return this.load(conversationIdOf(place));
  }

  async load(convId: string): Promise<Conversation | undefined> {
    return parseStored(conversationSchema, await this.ctx.store.get(keys.conversation(convId)));
  }

  /** The user's most recent conversation in a channel (for `/handoff` typed outside a thread). */
  async recentFor(place: Place, userId: string): Promise<Conversation | undefined> {
    const id = await this.ctx.store.get(keys.recent(place, userId));
    return typeof id === 'string' ? this.load(id) : undefined;
  }

  async sessionOf(convId: string): Promise<number | undefined> {
    const v = await this.ctx.store.get(keys.session(convId));
    return typeof v === 'number' ? v : undefined;
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

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

  /** Stops taking work; waits for the answers in flight until the deadline. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    const pending = Promise.allSettled([...this.work]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadlineMs - Date.now()));
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

  // ---- the queue ---------------------------------------------------------------------------------

  /** The conversation of `place`; a new one is `starter`'s (its asker, kept as long as the conversation). */
  private async ensureConversation(place: Place, starter: Actor): Promise<Conversation> {
    const conv: Conversation = { id: conversationIdOf(place), place, createdAt: this.ctx.now(), asker: starter };
    if (await this.ctx.store.setIfAbsent(keys.conversation(conv.id), toJson(conv), this.retentionMs)) return conv;
    return (await this.load(conv.id)) ?? conv;
  }

  private async setRecent(place: Place, userId: string, convId: string): Promise<void> {
    await this.ctx.store.set(keys.recent(place, userId), convId, 30 * DAY_MS);
  }

  /** RETENTION_DAYS: a conversation, its session and transcript expire this long after its last activity. */
  private get retentionMs(): number {
    return this.ctx.config.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  private addTurn(convId: string, turn: { author: string; text: string; at: number }): Promise<void> {
    return appendTurn(this.ctx.store, convId, turn, this.retentionMs);
  }

  /** Activity in a conversation: its record, chat session and transcript live another retention period. */
  private async touch(conv: Conversation): Promise<void> {
    const { store } = this.ctx;
    await store.set(keys.conversation(conv.id), toJson(conv), this.retentionMs);
    const session = await store.get(keys.session(conv.id));
    if (session !== undefined) await store.set(keys.session(conv.id), session, this.retentionMs);
    await touchTranscript(store, conv.id, this.retentionMs);
  }

  private async enqueue(conv: Conversation, item: ConvQueueItem): Promise<void> {
    await this.touch(conv);
    await this.ctx.store.push(keys.queue(conv.id), toJson(item));
    await this.ctx.store.set(keys.pending(conv.id), 1);
    this.kick(conv.id);
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
    if (!(await store.acquireLease(lease, config.instanceId, LEASE_TTL_MS))) return false;
    const renew = setInterval(() => {
      store
        .renewLease(lease, config.instanceId, LEASE_TTL_MS)
        .catch((err: unknown) => this.ctx.log.warn({ err, convId }, 'lease renewal failed'));
    }, LEASE_TTL_MS / 3);
    renew.unref();
    try {
      while (!this.stopping) {
        const item = await store.peek(keys.queue(convId));
        if (!item) break;
        await this.handleItem(convId, item);
        await store.ack(keys.queue(convId), item.id);
      }
    } finally {
      clearInterval(renew);
      await store.releaseLease(lease, config.instanceId);
    }
    return true;
  }

  private async handleItem(convId: string, raw: QueueItem): Promise<void> {
    const parsed = queueItemSchema.safeParse(raw.value);
    const conv = await this.load(convId);
    if (!parsed.success || !conv) {
      this.ctx.log.error({ convId, item: raw.id }, 'conversation: unreadable queue item skipped');
      return;
    }
    const startedKey = keys.started(convId, raw.id);
    const mark: StartedMark = { owner: this.ctx.config.instanceId, done: false };
    if (!(await this.ctx.store.setIfAbsent(startedKey, toJson(mark), DAY_MS))) {
      // An earlier worker (dead: we hold the lease it lost) started this item. Answered already, or
      // handed to the relay (its answer key is in the mark; the relay's recovery marks that answer
      // interrupted with Retry, now or already): nothing to do. Lost before the relay: answered here.
      const earlier = parseStored(startedMarkSchema, await this.ctx.store.get(startedKey));
      if (!earlier || earlier.done || earlier.answerKey !== undefined) {
        this.ctx.log.warn(
          { convId, item: raw.id, answerKey: earlier?.answerKey },
          'conversation: item started by an earlier worker; left to recovery',
        );
        // Its Retry button (if any) must work again on the marked answer.
        if (parsed.data.kind === 'retry')
          await this.ctx.store.delete(keys.retrying(parsed.data.retryId)).catch(() => undefined);
        return;
      }
      this.ctx.log.warn(
        { convId, item: raw.id, owner: earlier.owner },
        'conversation: item lost by an earlier worker before the relay took it; answering it again',
      );
      if (earlier.placeholder) mark.placeholder = earlier.placeholder;
      await this.ctx.store.set(startedKey, toJson(mark), DAY_MS);
    }
    this.current.set(convId, { key: startedKey, mark });
    const item = parsed.data;
    const surface = this.surfaceFor(conv.place);
    try {
      const ticket = await this.handoffs.activeTicket(convId);
      if (item.kind === 'message') {
        if (ticket) {
          await this.handoffs.relayFromUser(ticket, item.actor, item.text, item.attachments, item.msgId);
          return;
        }
        await this.answerMessage(conv, surface, item.actor, item.text, item.attachments);
      } else {
        if (ticket) {
          await surface.post(conv.place, {
            text: 'A human is handling this conversation; use /handoff cancel first to ask the bot again.',
          });
          return;
        }
        const record = parseStored(retryRecordSchema, await this.ctx.store.get(keys.retry(item.retryId)));
        if (!record) {
          await surface.post(conv.place, { text: 'That Retry has expired: please ask your question again.' });
          return;
        }
        await this.answer(conv, surface, item.actor, record, item.retryId);
      }
    } catch (err) {
      this.ctx.log.error({ err, convId }, 'conversation: handling a message failed');
      await surface
        .post(conv.place, { text: `Sorry, something went wrong while answering: ${describe(err)}. Please try again.` })
        .catch((e: unknown) => this.ctx.log.error({ err: e }, 'conversation: could not report the failure'));
    } finally {
      // The retry is over (answered, refused or failed): its button works again.
      if (item.kind === 'retry') await this.ctx.store.delete(keys.retrying(item.retryId)).catch(() => undefined);
      this.current.delete(convId);
      await this.ctx.store.set(startedKey, toJson({ ...mark, done: true }), DAY_MS).catch(() => undefined);
    }
  }

  /**
   * Notes how far the item being handled got in its started mark, for a worker that takes it over
   * after a crash: its `placeholder` (answer in it instead of leaving it hanging), then the relay's
   * `answerKey`, written before the relay gets the answer (from then on the relay's crash recovery
   * owns it, and the item must not be answered again).
   */
  private async noteInMark(
    convId: string,
    note: Pick<StartedMark, 'placeholder'> | Pick<StartedMark, 'answerKey'>,
  ): Promise<void> {
    const cur = this.current.get(convId);
    if (!cur) return;
    Object.assign(cur.mark, note);
    await this.ctx.store.set(cur.key, toJson(cur.mark), DAY_MS);
  }

  /**
   * Test hook (crash tests, BRIDGE_TEST_PAUSE_BEFORE_RELAY=1): stops here, after "started" and the
   * placeholder, before the relay's in-flight record, so a test can SIGKILL the process in exactly
   * that window. Never set in production.
   */
  private async pauseBeforeRelayForTests(convId: string): Promise<void> {
    if (process.env.BRIDGE_TEST_PAUSE_BEFORE_RELAY !== '1') return;
    this.ctx.log.warn({ convId }, 'test hook: paused between started and the in-flight record');
    await new Promise<never>(() => undefined);
  }

  /** The placeholder a lost item left behind, answered into by the worker that took it over (once). */
  private takeLeftPlaceholder(convId: string): MessageRef | undefined {
    const cur = this.current.get(convId);
    const ref = cur?.mark.placeholder;
    if (cur && ref && cur.mark.owner === this.ctx.config.instanceId && !cur.resumed) {
      cur.resumed = true;
      return ref;
    }
    return undefined;
  }

  // ---- answering ---------------------------------------------------------------------------------

  private async answerMessage(
    conv: Conversation,
    surface: SurfacePort,
    actor: Actor,
    text: string,
    attachments: Attachment[],
  ): Promise<void> {
    await this.addTurn(conv.id, {
      author: actor.name,
      text: text + attachments.map((a) => ` [file: ${a.name}]`).join(''),
      at: this.ctx.now(),
    });
    if (attachments.length === 0) {
      if (text.trim() === '') return;
      await this.answer(conv, surface, actor, { conv: conv.id, question: text });
      return;
    }
    const plan = planAttachments(attachments);
    if (!plan.ok) {
      await surface.post(conv.place, { text: plan.message });
      return;
    }
    const placeholder = this.takeLeftPlaceholder(conv.id) ?? (await surface.post(conv.place, PLACEHOLDER));
    await this.noteInMark(conv.id, { placeholder });
    const uploaded = await uploadAttachments(this.ctx.client, surface, plan).catch((err: unknown) => ({
      ok: false as const,
      message: `Sorry, I could not upload ${plan.files.map((f) => f.name).join(', ')}: ${describe(err)}`,
    }));
    if (!uploaded.ok) {
      await surface.edit(placeholder, { text: uploaded.message });
      return;
    }
    await this.answer(
      conv,
      surface,
      actor,
      { conv: conv.id, question: text, chatAskType: plan.kind, fileIds: uploaded.fileIds },
      undefined,
      placeholder,
    );
  }

  private async answer(
    conv: Conversation,
    surface: SurfacePort,
    actor: Actor,
    ask: RetryRecord,
    existingRetryId?: string,
    existingPlaceholder?: MessageRef,
  ): Promise<void> {
    // "is thinking…" until the first fragment (where the surface has a status, e.g. Slack's assistant).
    const status = new AnswerStatus(surface, conv.place, this.ctx.log);
    await status.show();
    try {
      await this.answerShowing(conv, surface, actor, ask, status, existingRetryId, existingPlaceholder);
    } finally {
      await status.clear();
    }
  }

  private async answerShowing(
    conv: Conversation,
    surface: SurfacePort,
    actor: Actor,
    ask: RetryRecord,
    status: AnswerStatus,
    existingRetryId?: string,
    existingPlaceholder?: MessageRef,
  ): Promise<void> {
    existingPlaceholder ??= this.takeLeftPlaceholder(conv.id);
    // Native streaming (Slack) shows the answer as it starts; elsewhere a placeholder goes up at once.
    const native = existingPlaceholder === undefined && typeof surface.startNativeStream === 'function';
    const placeholder = native ? undefined : (existingPlaceholder ?? (await surface.post(conv.place, PLACEHOLDER)));
    if (placeholder) await this.noteInMark(conv.id, { placeholder });
    const retryId = existingRetryId ?? randomBytes(8).toString('hex');
    if (!existingRetryId)
      await this.ctx.store.set(
        keys.retry(retryId),
        toJson({ ...ask, asker: ask.asker ?? { id: actor.id, name: actor.name } }),
        RETRY_TTL_MS,
      );
    const retryButton = { action: ANSWER_RETRY_ACTION, label: 'Retry', value: retryId };
    const show = async (msg: OutMessage, ref?: MessageRef): Promise<void> => {
      const target = ref ?? placeholder;
      if (target) await surface.edit(target, msg);
      else await surface.post(conv.place, msg);
    };

    let sessionId: number;
    try {
      sessionId = await this.ensureSession(conv.id);
    } catch (err) {
      this.ctx.log.warn({ err, convId: conv.id }, 'conversation: GetSession failed');
      await show({
        text: `Sorry, I could not open a chat session with the chatbot service (${describe(err)}). Press Retry in a moment.`,
        buttons: [retryButton],
      });
      return;
    }

    // One signal per answer, tied to shutdown: listeners the client and relay add die with it.
    const own = new AbortController();
    const onStop = (): void => own.abort();
    this.abort.signal.addEventListener('abort', onStop, { once: true });
    try {
      await this.pauseBeforeRelayForTests(conv.id);
      await this.stream(conv, surface, actor, ask, {
        native,
        placeholder,
        retryId,
        sessionId,
        signal: own.signal,
        show,
        status,
      });
    } finally {
      this.abort.signal.removeEventListener('abort', onStop);
    }
  }

  private async stream(
    conv: Conversation,
    surface: SurfacePort,
    actor: Actor,
    ask: RetryRecord,
    run: {
      native: boolean;
      placeholder?: MessageRef;
      retryId: string;
      sessionId: number;
      signal: AbortSignal;
      show: (msg: OutMessage, ref?: MessageRef) => Promise<void>;
      status: AnswerStatus;
    },
  ): Promise<void> {
    const { native, placeholder, retryId, sessionId, signal, show, status } = run;
    const stream = this.ctx.client.askStream(
      {
        sessionId,
        content: ask.question,
        ...(ask.chatAskType ? { chatAskType: ask.chatAskType } : {}),
        ...(ask.fileIds ? { fileIds: ask.fileIds } : {}),
      },
      { signal, idleTimeoutMs: this.ctx.config.answerIdleTimeoutMs },
    );
    let events: AsyncIterable<AnswerEvent> = status.clearOnFirst(stream);
    const retryButton = { action: ANSWER_RETRY_ACTION, label: 'Retry', value: retryId };
    if (!native) {
      const opened = await openStream(events);
      if (opened.kind === 'refused') {
        await this.showRefusal(conv, opened.error, show);
        return;
      }
      if (opened.kind === 'failed') {
        await this.showServerFailure(conv, opened.error, retryButton, show);
        return;
      }
      events = opened.events;
    }
    // Every complete answer can be rated; the record exists before the control shows.
    const feedbackId = newFeedbackId();
    await beginRatedAnswer(this.ctx, feedbackId, conv.id, conv.place);
    const answerKey = `${conv.id}:${retryId}:${randomBytes(4).toString('hex')}`;
    await this.noteInMark(conv.id, { answerKey });
    const result = await this.relay.run({
      surface,
      place: conv.place,
      events,
      placeholder,
      finalButtons: [{ action: HANDOFF_ACTIONS.request, label: 'Talk to a human', value: conv.id }],
      finalFeedback: feedbackPrompt(feedbackId),
      retry: { action: ANSWER_RETRY_ACTION, value: retryId },
      idleTimeoutMs: this.ctx.config.answerIdleTimeoutMs,
      explain: (err) => describeInterruption(err, this.ctx.config.answerIdleTimeoutMs),
      signal,
      answerKey,
    });
    if (result.status === 'interrupted' && result.text === '' && isRefusal(result.error)) {
      // Native path: the refusal came through the relay, which marked the message; show the service's words instead.
      await this.showRefusal(conv, result.error, (msg) => show(msg, result.messages[result.messages.length - 1]));
      return;
    }
    if (result.status === 'interrupted' && result.text === '' && isServerFailure(result.error)) {
      await this.showServerFailure(conv, result.error, retryButton, (msg) =>
        show(msg, result.messages[result.messages.length - 1]),
      );
      return;
    }
    if (result.status === 'complete') {
      await completeRatedAnswer(this.ctx, feedbackId, {
        message: result.messages.at(-1),
        answerId: result.final?.answerId,
      });
    }
    await this.addTurn(conv.id, {
      author: BOT_AUTHOR,
      text: result.status === 'complete' ? result.text : `${result.text} (interrupted)`,
      at: this.ctx.now(),
    });
    if (result.status === 'complete' && result.final?.noAnswer) {
      if (this.ctx.config.handoffOnNoAnswer) {
        // Only the asker's own question hands their conversation off (a participant's is just unanswered).
        await this.handoffs.request(conv, actor, surface, `The chatbot had no answer to: ${ask.question}`);
      } else {
        await surface.post(conv.place, {
          text: "I don't have an answer to that. Press *Talk to a human* above to reach a person.",
          markdown: true,
        });
      }
    }
  }

  /** The service said no (rate limit, monthly cap, bad request...): its own words, not retried. */
  private async showRefusal(
    conv: Conversation,
    error: ServiceError | RequestValidationError,
    show: (msg: OutMessage) => Promise<void>,
  ): Promise<void> {
    const text =
      error instanceof ServiceError ? error.message : `Sorry, I could not send that to the chatbot: ${error.message}`;
    await show({ text });
    await this.addTurn(conv.id, { author: BOT_AUTHOR, text, at: this.ctx.now() });
  }

  /** The service failed (HTTP 5xx) before any text: say so plainly; the user decides whether to retry. */
  private async showServerFailure(
    conv: Conversation,
    error: ServiceError,
    retry: Button,
    show: (msg: OutMessage) => Promise<void>,
  ): Promise<void> {
    const status = error.httpStatus ?? error.code;
    // Our own generic wording ("answered HTTP 500 ... to askStream") adds nothing; the service's own message does.
    const detail = /^the chatbot service answered HTTP/.test(error.message) ? '' : `: ${error.message}`;
    const text = `Sorry, the chatbot service failed to answer (HTTP ${String(status)})${detail}. Press Retry to ask again.`;
    await show({ text, buttons: [retry] });
    await this.addTurn(conv.id, { author: BOT_AUTHOR, text, at: this.ctx.now() });
  }

  private async ensureSession(convId: string): Promise<number> {
    const known = await this.sessionOf(convId);
    if (known !== undefined) return known;
    const sessionId = await this.ctx.client.getSession(this.ctx.config.chatbotId);
    await this.ctx.store.set(keys.session(convId), sessionId, this.retentionMs);
    return sessionId;
  }

  private remember(surface: SurfacePort): void {
    this.knownSurfaces.set(surface.name, surface);
  }

  private surfaceFor(place: Place): SurfacePort {
    const surface = this.ctx.surfaces.get(place.surface) ?? this.knownSurfaces.get(place.surface);
    if (!surface) throw new Error(`surface ${place.surface} is not running`);
    return surface;
  }
}

type Refusal = ServiceError | RequestValidationError;
type Opened =
  | { kind: 'refused'; error: Refusal }
  | { kind: 'failed'; error: ServiceError }
  | { kind: 'streaming'; events: AsyncIterable<AnswerEvent> };

/** An HTTP 5xx: the service broke, it did not decide; unlike a refusal, asking again may work. */
function isServerFailure(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.httpStatus !== undefined && err.httpStatus >= 500;
}

/** The service's own "no" (Success:false, a 4xx, a request it would not take): shown as is, not retried. */
function isRefusal(err: unknown): err is Refusal {
  return (err instanceof ServiceError && !isServerFailure(err)) || err instanceof RequestValidationError;
}

/**
 * Pulls the first event, so that a refusal (the service's Success:false, raised before any text)
 * is told apart from a stream that breaks later, which the relay marks interrupted.
 */
async function openStream(stream: AsyncIterable<AnswerEvent>): Promise<Opened> {
  const iterator = stream[Symbol.asyncIterator]();
  let first: IteratorResult<AnswerEvent>;
  try {
    first = await iterator.next();
  } catch (err) {
    if (isRefusal(err)) return { kind: 'refused', error: err };
    if (isServerFailure(err)) return { kind: 'failed', error: err };
    return {
      kind: 'streaming',
      events: {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
      },
    };
  }
  let replayed = false;
  return {
    kind: 'streaming',
    events: {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (!replayed) {
            replayed = true;
            return Promise.resolve(first);
          }
          return iterator.next();
        },
        return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
      }),
    },
  };
}

const messageOf = z.object({ message: z.string() });

function describe(err: unknown): string {
  const parsed = messageOf.safeParse(err);
  return parsed.success ? parsed.data.message : String(err);
}
