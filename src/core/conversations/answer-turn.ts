/**
 * Answering one turn: a user's message (its files uploaded first) or a pressed Retry becomes one
 * `TurnRequest`, and `answer` shows the service's answer for it in the thread: the "is thinking…"
 * status, the placeholder (or a native stream, decided here once), the chat session, the relay, the
 * transcript, and the no-answer handoff. The queue worker (worker.ts) decides when; this decides how.
 */
import { randomBytes } from 'node:crypto';
import { type RequestValidationError, ServiceError } from '../../service/errors';
import type { AnswerEvent } from '../../service/answer-events';
import { planAttachments, uploadAttachments } from '../attachments';
import type { TenantScope } from '../context';
import { beginRatedAnswer, completeRatedAnswer, feedbackPrompt, newFeedbackId } from '../feedback/feedback';
import type { Handoffs } from '../handoff/handoffs';
import { questionRefusal } from '../limits/user-limits';
import { HANDOFF_ACTIONS } from '../handoff/model';
import type { Attachment, BridgeRequest, Button, Card, MessageRef, OutMessage } from '../surface';
import { describeInterruption } from './interruption';
import { convKeys, convRef, toJson, type Conversation, type RetryRecord, type Turn } from './model';
import { convView } from './records';
import { isRefusal, isServerFailure, openStream } from './opening';
import { loggedFailure, sentence } from '../user-messages';
import type { RelayResult } from '../relay/relay';
import type { AnswerRelay } from './relay-port';
import type { ItemProgress } from './started';
import { AnswerStatus } from './status';
import type { Listing } from '../../service/schemas/listings';
import { cardsNamedIn } from '../listings/card-actions';
import { type ListingCatalogue, listingsNamedIn } from '../listings/named';
import { noteChannelListings } from '../listings/channel-listings';
import { type LinkTrust, linksInSight, trustHosts } from '../text/links';
import { rulesOf } from '../handoff/hours/office';

export const ANSWER_RETRY_ACTION = 'answer.retry';

export const RETRY_TTL_MS = 14 * 24 * 60 * 60 * 1000;
// Empty text: the first version of the message is already a prefix of the final answer (surfaces show a typing mark).
const PLACEHOLDER = { text: '', typing: true } as const;
const BOT_AUTHOR = 'Bot';

/** One turn to answer: who asked what, where, and how far its queue item got. */
export interface TurnRequest {
  conv: Conversation;
  /** Who asked (the actor), where, and whom the answer is for (the conversation's asker). */
  request: BridgeRequest;
  /** The question (and its uploaded files): what a Retry asks again. */
  ask: RetryRecord;
  /** A pressed Retry's id: the question is asked again under it (no new retry record). */
  retryId?: string;
  /** A message already posted for this answer (an upload's placeholder): the answer goes there. */
  placeholder?: MessageRef;
  /** The queue item's crash mark. */
  progress: ItemProgress;
  /** Aborts when the conversation's tenant leaves: the answer stops with no further call or write. */
  left?: AbortSignal;
}

/** A user's message to answer: its text and files as they came. */
export interface MessageTurn {
  conv: Conversation;
  request: BridgeRequest;
  text: string;
  attachments: Attachment[];
  progress: ItemProgress;
  left?: AbortSignal;
}

export interface TurnDeps {
  /** The conversation's tenant's scope: its chatbot answers, its office's rules apply. */
  ctx: TenantScope;
  /** The listings of that chatbot (kept per chatbot, shared by its tenants' turns). */
  catalogue: ListingCatalogue;
  relay: AnswerRelay;
  handoffs: Handoffs;
  /** The conversation's chat session (opened with the service on first use). */
  session(conv: Conversation): Promise<number>;
  /** Appends to the conversation's transcript. */
  addTurn(conv: Conversation, turn: Turn): Promise<void>;
  /** Aborts when the bridge stops: the answer in flight stops with it (marked, with Retry). */
  stopSignal: AbortSignal;
}

/** What the answer's stream needs once the answer is set up. */
interface Streaming {
  turn: TurnRequest;
  native: boolean;
  placeholder?: MessageRef;
  retryId: string;
  sessionId: number;
  signal: AbortSignal;
  show: (msg: OutMessage, ref?: MessageRef) => Promise<void>;
  status: AnswerStatus;
}

export class TurnAnswerer {
  /** The listings answers may name (their cards come with the final edit). */
  private readonly catalogue: ListingCatalogue;

  constructor(private readonly deps: TurnDeps) {
    this.catalogue = deps.catalogue;
  }

  /** A user's message: recorded in the transcript, its files uploaded, then answered. */
  async answerMessage(m: MessageTurn): Promise<void> {
    const { conv, request, text, attachments, progress, left } = m;
    const { surface } = request;
    await this.deps.addTurn(conv, {
      author: request.actor.name,
      text: text + attachments.map((a) => ` [file: ${a.name}]`).join(''),
      at: this.deps.ctx.now(),
    });
    const turn = { conv, request, progress, ...(left ? { left } : {}) };
    if (attachments.length === 0) {
      if (text.trim() === '') return;
      await this.answer({ ...turn, ask: { conv: conv.id, question: text } });
      return;
    }
    const plan = planAttachments(attachments);
    if (!plan.ok) {
      await surface.post(conv.place, { text: plan.message });
      return;
    }
    const placeholder = progress.takeLeftPlaceholder() ?? (await surface.post(conv.place, PLACEHOLDER));
    await progress.notePlaceholder(placeholder);
    const uploaded = await uploadAttachments(this.deps.ctx.chatbot.client, surface, plan).catch((err: unknown) => ({
      ok: false as const,
      message: `Sorry, I could not upload ${plan.files.map((f) => f.name).join(', ')}: ${loggedFailure(this.deps.ctx.log, err, { convId: conv.id }, 'conversation: upload failed')}`,
    }));
    if (!uploaded.ok) {
      await surface.edit(placeholder, { text: uploaded.message });
      return;
    }
    const ask = { conv: conv.id, question: text, chatAskType: plan.kind, fileIds: uploaded.fileIds };
    await this.answer({ ...turn, ask, placeholder });
  }

  /** Asks the service and shows its answer in the thread. */
  async answer(turn: TurnRequest): Promise<void> {
    // The chatbot's RateLimitCount per RateLimitTime, per person across all their conversations.
    const { surface, actor } = turn.request;
    const refused = await questionRefusal(this.deps.ctx, actor);
    if (refused) {
      if (turn.placeholder) await surface.edit(turn.placeholder, { text: refused });
      else await surface.post(turn.conv.place, { text: refused });
      await this.deps.addTurn(turn.conv, { author: BOT_AUTHOR, text: refused, at: this.deps.ctx.now() });
      return;
    }
    // "is thinking…" until the first fragment (where the surface has a status, e.g. Slack's assistant).
    const status = new AnswerStatus(surface, turn.conv.place, this.deps.ctx.log);
    await status.show();
    try {
      await this.answerShowing(turn, status);
    } finally {
      await status.clear();
    }
  }

  private async answerShowing(turn: TurnRequest, status: AnswerStatus): Promise<void> {
    const { conv, ask, progress } = turn;
    const { surface, actor } = turn.request;
    const { ctx } = this.deps;
    const existing = turn.placeholder ?? progress.takeLeftPlaceholder();
    // Native streaming (Slack) shows the answer as it starts; elsewhere a placeholder goes up at
    // once. Decided here only: the relay is told.
    const native = existing === undefined && surface.streaming !== undefined;
    const placeholder = native ? undefined : (existing ?? (await surface.post(conv.place, PLACEHOLDER)));
    if (placeholder) await progress.notePlaceholder(placeholder);
    const retryId = turn.retryId ?? randomBytes(8).toString('hex');
    if (!turn.retryId)
      await convView(ctx.store, convRef(conv)).set(
        convKeys.retry(retryId),
        toJson({ ...ask, asker: ask.asker ?? { id: actor.id, name: actor.name } }),
        RETRY_TTL_MS,
      );
    const show = async (msg: OutMessage, ref?: MessageRef): Promise<void> => {
      const target = ref ?? placeholder;
      if (target) await surface.edit(target, msg);
      else await surface.post(conv.place, msg);
    };

    let sessionId: number;
    try {
      sessionId = await this.deps.session(conv);
    } catch (err) {
      const told = loggedFailure(ctx.log, err, { convId: conv.id }, 'conversation: GetSession failed');
      await show({
        text: `Sorry, I could not open a chat session with the chatbot service: ${sentence(told)} Press Retry in a moment.`,
        buttons: [retryButton(retryId)],
      });
      return;
    }

    // One signal per answer, tied to shutdown and to the tenant leaving (the service stream closes):
    // listeners the client and relay add die with it.
    const own = new AbortController();
    const onStop = (): void => own.abort();
    this.deps.stopSignal.addEventListener('abort', onStop, { once: true });
    turn.left?.addEventListener('abort', onStop, { once: true });
    try {
      await pauseBeforeRelayForTests(ctx, conv.id);
      await this.stream({ turn, native, placeholder, retryId, sessionId, signal: own.signal, show, status });
    } finally {
      this.deps.stopSignal.removeEventListener('abort', onStop);
      turn.left?.removeEventListener('abort', onStop);
    }
  }

  private async stream(run: Streaming): Promise<void> {
    const { turn, native, placeholder, retryId, sessionId, signal, show, status } = run;
    const { conv, ask } = turn;
    const { surface } = turn.request;
    const { ctx } = this.deps;
    const idleTimeoutMs = ctx.config.answerIdleTimeoutMs;
    // The client enforces the idle timeout (it also ends the request); the relay shows its error.
    const stream = ctx.chatbot.client.askStream(
      {
        sessionId,
        content: ask.question,
        ...(ask.chatAskType ? { chatAskType: ask.chatAskType } : {}),
        ...(ask.fileIds ? { fileIds: ask.fileIds } : {}),
      },
      { signal, idleTimeoutMs },
    );
    let events: AsyncIterable<AnswerEvent> = status.clearOnFirst(stream);
    if (!native) {
      const opened = await openStream(events);
      if (turn.left?.aborted) return;
      if (opened.kind === 'refused') {
        await this.showRefusal(conv, opened.error, show);
        return;
      }
      if (opened.kind === 'failed') {
        await this.showServerFailure(conv, opened.error, retryButton(retryId), show);
        return;
      }
      events = opened.events;
    }
    // Every complete answer can be rated; the record exists before the control shows.
    const feedbackId = newFeedbackId();
    await beginRatedAnswer(ctx, feedbackId, conv.id, conv.place);
    const answerKey = `${conv.id}:${retryId}:${randomBytes(4).toString('hex')}`;
    await turn.progress.noteAnswerKey(answerKey);
    const listings = await this.answerListings((await rulesOf(ctx)).linkHosts);
    const result = await this.deps.relay.run({
      surface,
      place: conv.place,
      for: turn.request.for,
      events,
      native,
      placeholder,
      finalButtons: [{ action: HANDOFF_ACTIONS.request, label: 'Talk to a human', value: conv.id }],
      finalFeedback: feedbackPrompt(feedbackId),
      finalCards: listings.cards,
      links: listings.links,
      retry: { action: ANSWER_RETRY_ACTION, value: retryId },
      explain: (err) => describeInterruption(err, idleTimeoutMs),
      signal,
      ...(turn.left ? { drop: turn.left } : {}),
      answerKey,
    });
    // Dropped (the tenant left): nothing more is shown or written for it.
    if (result.status === 'dropped') return;
    // The listings it named, for the prompts about this channel (agent experience): never fails the turn.
    if (result.status === 'complete')
      await noteChannelListings(ctx, conv.place, listings.named(result.text)).catch(() => undefined);
    await this.afterRelay(run, result, feedbackId, listings.links);
  }

  /** The relay's result: a refusal or failure shown in the service's words, the turn recorded, a no-answer offered a human. */
  private async afterRelay(run: Streaming, result: RelayResult, feedbackId: string, links: LinkTrust): Promise<void> {
    const { turn, retryId, show } = run;
    const { conv } = turn;
    const { ctx } = this.deps;
    const last = result.messages.at(-1);
    if (result.status === 'interrupted' && result.text === '' && isRefusal(result.error)) {
      // Native path: the refusal came through the relay, which marked the message; show the service's words instead.
      await this.showRefusal(conv, result.error, (msg) => show(msg, last));
      return;
    }
    if (result.status === 'interrupted' && result.text === '' && isServerFailure(result.error)) {
      await this.showServerFailure(conv, result.error, retryButton(retryId), (msg) => show(msg, last));
      return;
    }
    if (result.status === 'complete') {
      await completeRatedAnswer(ctx, feedbackId, { message: last, answerId: result.final?.answerId });
    }
    const text = result.status === 'complete' ? result.text : `${result.text} (interrupted)`;
    // What the chat showed (the same link rules), for the ticket's transcript.
    await this.deps.addTurn(conv, { author: BOT_AUTHOR, text, at: ctx.now(), shown: linksInSight(text, links) });
    if (result.status === 'complete' && result.final?.noAnswer) await this.noAnswer(turn);
  }

  /** The chatbot had no answer: handed to a human (the office's HANDOFF_ON_NO_ANSWER) or the way to one shown. */
  private async noAnswer({ conv, request, ask }: TurnRequest): Promise<void> {
    const { surface, actor } = request;
    if (!(await rulesOf(this.deps.ctx)).onNoAnswer) {
      await surface.post(conv.place, {
        text: "I don't have an answer to that. Press *Talk to a human* above to reach a person.",
        markdown: true,
      });
      return;
    }
    // Only the asker's own question hands their conversation off (a participant's is just unanswered).
    const reason = `The chatbot had no answer to: ${ask.question}`;
    const refused = await this.deps.handoffs.request(conv, actor, surface, reason);
    // Refused (a participant who is not the asker, no handoff channel): said so, never silence.
    if (refused) await surface.post(conv.place, { text: `I don't have an answer to that. ${refused}` });
  }

  /**
   * The listings the answer names and the links it may show under their label. The catalogue is
   * read while the answer streams (kept a minute), never waited for at its end: its listings gain
   * their cards with the final edit, and the hosts of their URLs and photos are trusted links (with
   * LINK_HOSTS) once it is read; until then, those of the last read. The process's first answer
   * waits for the first read, so that no answer shows a listing's link as text for want of it.
   */
  private async answerListings(
    linkHosts: readonly string[],
  ): Promise<{ cards: (answer: string) => Card[]; named: (answer: string) => Listing[]; links: LinkTrust }> {
    let catalogue: Listing[] = [];
    // The office's LINK_HOSTS (its own `/handoff settings`, else the deployment's) and the listings'.
    const trusted = (): LinkTrust => trustHosts([...linkHosts, ...this.catalogue.hosts]);
    let links = trusted();
    const read = this.catalogue.read().then((items) => {
      catalogue = items;
      links = trusted();
    });
    if (!this.catalogue.hostsRead) await read;
    return {
      cards: (answer) => cardsNamedIn(answer, catalogue),
      named: (answer) => listingsNamedIn(answer, catalogue),
      links: (url) => links(url),
    };
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
    await this.deps.addTurn(conv, { author: BOT_AUTHOR, text, at: this.deps.ctx.now() });
  }

  /** The service failed (HTTP 5xx) before any text: say so plainly; the user decides whether to retry. */
  private async showServerFailure(
    conv: Conversation,
    error: ServiceError,
    retry: Button,
    show: (msg: OutMessage) => Promise<void>,
  ): Promise<void> {
    const status = error.httpStatus ?? error.code;
    // The service's own words about its failure are internal (a stack, a host): logged, not shown.
    this.deps.ctx.log.warn({ err: error, convId: conv.id }, 'conversation: the chatbot service failed to answer');
    const text = `Sorry, the chatbot service failed to answer (HTTP ${String(status)}). Press Retry to ask again.`;
    await show({ text, buttons: [retry] });
    await this.deps.addTurn(conv, { author: BOT_AUTHOR, text, at: this.deps.ctx.now() });
  }
}

function retryButton(retryId: string): Button {
  return { action: ANSWER_RETRY_ACTION, label: 'Retry', value: retryId };
}

/**
 * Test hook (crash tests, BRIDGE_TEST_PAUSE_BEFORE_RELAY=1): stops here, after "started" and the
 * placeholder, before the relay's in-flight record, so a test can SIGKILL the process in exactly
 * that window. Never set in production.
 */
async function pauseBeforeRelayForTests(ctx: TenantScope, convId: string): Promise<void> {
  if (!ctx.config.testPauses?.beforeRelay) return;
  ctx.log.warn({ convId }, 'test hook: paused between started and the in-flight record');
  await new Promise<never>(() => undefined);
}
