/**
 * Handoff: a conversation handed to a human in a handoff channel (possibly on another surface),
 * claimed by one agent, relayed both ways, passed on or handed back. All state is in the store, so
 * any instance (or a restarted one) can continue a ticket; every state change is a compare-and-set
 * on the ticket, so two presses (or two instances) never both win.
 *
 * Who may do what: any member of the handoff channel may Claim (the button lives there) or Take over;
 * Close is the claimer's or an admin's; Release is the claimer's; Cancel and "Talk to a human" are the
 * asker's or an admin's. Everyone else is told, ephemerally, who may; nothing changes.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Json, OutboxIntent } from '../../state/store';
import { type CoreContext, type HandoffTarget, surfaceAt } from '../context';
import { appendTurn, DEFAULT_RETENTION_MS, readTranscript } from '../conversations/transcript';
import { keys, parseStored, placeKey, toJson, type Conversation, type Turn } from '../conversations/model';
import type {
  Actor,
  Attachment,
  IncomingMessage,
  Invocation,
  MessageRef,
  OutMessage,
  Place,
  SurfacePort,
} from '../surface';
import {
  DEFAULT_REMIND_MS,
  DEFAULT_TALK_TO_HUMAN,
  HANDOFF_ACTIONS,
  MAX_REMINDERS,
  isEnded,
  stateWord,
  ticketKeys,
  ticketSchema,
  type Ticket,
} from './model';
import { extractLead, type LeadSummary } from './lead';
import { NOTICE_BOX, type Notice, type Opened, TicketNotices } from './notices';
import { openedListings } from './opened';
import { claimWait, duration, renderTicket } from './render';
import { shownAsText, untrusted } from '../text/untrusted';

const appliedSettingsSchema = z.object({ TalkToHumanResponseMessage: z.string().optional() }).passthrough();

const CAS_ATTEMPTS = 10;
const BOT_AUTHOR = 'Bot';
const NOTE_PREFIX = /^\s*note\s*:/i;
const BRIDGE: Actor = { id: 'bridge', name: 'the bridge', isAdmin: false };
const ASKER_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * A ticket not yet handed its conversation (the step right after writing it) expires after this if a
 * crash strands it; once handed, its first change gives it the full retention. Long enough for a
 * bridge that crashed right after the hand-over to be back before the ticket would expire.
 */
const UNOPENED_TTL_MS = 24 * 3600 * 1000;

type Ended = 'closed' | 'cancelled' | 'timedout';

/** A ticket change as written, with the notices it owes (already in the outbox, not yet carried out). */
interface Changed {
  ticket: Ticket;
  intents: OutboxIntent[];
}

export class Handoffs {
  /** The outbox of ticket notices: drained on start and periodically by the bridge. */
  readonly notices: TicketNotices;

  constructor(private readonly ctx: CoreContext) {
    this.notices = new TicketNotices({
      ctx,
      renderTicket: (id) => this.ticketView(id),
      placesOf: async (id) => {
        const t = await this.load(id);
        return (
          t && { ...(t.thread ? { thread: t.thread } : {}), ...(t.userNotice ? { userNotice: t.userNotice } : {}) }
        );
      },
      startTicket: (id, channel, title) => this.startTicket(id, channel, title),
      ticketPosted: (id, opened) => this.ticketPosted(id, opened),
      userNoticePosted: (id, ref) => this.userNoticePosted(id, ref),
      openFailed: (id) => this.openFailed(id),
    });
  }

  private get remindMs(): number {
    return this.ctx.config.handoffRemindMs ?? DEFAULT_REMIND_MS;
  }

  /** A waiting ticket times out after its reminders, and never before twice the claim timeout. */
  private get timeoutMs(): number {
    return Math.max((MAX_REMINDERS + 1) * this.remindMs, 2 * this.ctx.config.handoffClaimTimeoutMs);
  }

  /** The open or claimed ticket of a conversation, if it is in handoff. */
  async activeTicket(convId: string): Promise<Ticket | undefined> {
    const id = await this.ctx.store.get<string>(keys.handoff(convId));
    if (typeof id !== 'string') return undefined;
    const ticket = await this.load(id);
    if (!ticket || isEnded(ticket.status)) return undefined;
    return ticket;
  }

  async ticketForThread(place: Place): Promise<string | undefined> {
    if (!place.thread) return undefined;
    const id = await this.ctx.store.get(ticketKeys.byThread(place));
    return typeof id === 'string' ? id : undefined;
  }

  async load(id: string): Promise<Ticket | undefined> {
    return parseStored(ticketSchema, await this.ctx.store.get(ticketKeys.ticket(id)));
  }

  /** Every stored ticket (the queue and the figures walk them). */
  async allTickets(): Promise<Ticket[]> {
    const out: Ticket[] = [];
    for (const key of await this.ctx.store.keys(ticketKeys.prefix)) {
      const t = parseStored(ticketSchema, await this.ctx.store.get(key));
      if (t && !t.opening) out.push(t);
    }
    return out;
  }

  /** A user asked in a conversation: "Talk to a human" under its answers is theirs to press. */
  async noteAsker(convId: string, userId: string): Promise<void> {
    await this.ctx.store.set(ticketKeys.asker(convId, userId), 1, ASKER_TTL_MS);
  }

  /** The asker of a conversation or an admin may ask for a human in it; others are told who may. */
  async mayRequest(convId: string, actor: Actor): Promise<boolean> {
    if (actor.isAdmin) return true;
    if ((await this.ctx.store.get(ticketKeys.asker(convId, actor.id))) !== undefined) return true;
    // A conversation from before askers were recorded names nobody: its button stays open to all.
    return (await this.ctx.store.keys(ticketKeys.askerPrefix(convId))).length === 0;
  }

  /**
   * Hands `conv` to a human: the user sees the chatbot's TalkToHumanResponseMessage with a Cancel
   * button, and a ticket with a Claim button appears in the handoff channel.
   */
  async request(conv: Conversation, user: Actor, reason: string): Promise<void> {
    const userSurface = surfaceAt(this.ctx, conv.place);
    const active = await this.activeTicket(conv.id);
    if (active) {
      const who =
        active.status === 'claimed'
          ? `${active.claimedBy?.name ?? 'An agent'} is already with you here`
          : 'A human has already been asked to join this conversation';
      await userSurface.post(conv.place, { text: `${who}. Use /handoff cancel to go back to the bot.` });
      return;
    }
    const target = this.target(conv.place);
    const handoffSurface = target ? this.ctx.surfaces.get(target.surface) : undefined;
    if (!target || !handoffSurface) {
      await userSurface.post(conv.place, {
        text: 'Sorry, no human handoff channel is configured, so I cannot reach a person from here. Ask an admin to set a handoff channel.',
      });
      return;
    }
    const now = this.ctx.now();
    const noticeText = await this.talkToHumanMessage();
    const ticket: Ticket = {
      id: randomBytes(6).toString('hex'),
      convId: conv.id,
      status: 'open',
      user,
      userPlace: conv.place,
      reason,
      createdAt: now,
      waitingSince: now,
      userNoticeText: noticeText,
      opening: true,
    };
    // The ticket first, short-lived until it is handed its conversation (a crash before that leaves a
    // record nothing points to, which expires), so no mark ever points to a ticket not written yet.
    await this.ctx.store.set(ticketKeys.ticket(ticket.id), toJson(ticket), UNOPENED_TTL_MS);
    await appendTurn(
      this.ctx.store,
      conv.id,
      { author: user.name, text: `(asked for a human) ${reason}`, at: now },
      this.retentionMs,
    );
    const channel: Place = { surface: target.surface, workspace: target.workspace, channel: target.channel };
    const intents = this.notices.intents([
      {
        kind: 'post',
        ticketId: ticket.id,
        place: conv.place,
        msg: { text: noticeText, buttons: [{ action: HANDOFF_ACTIONS.cancel, label: 'Cancel', value: ticket.id }] },
        keep: 'userNotice',
      },
      { kind: 'open', ticketId: ticket.id, channel, title: `Handoff: ${user.name}` },
      // "Talk to a human" no longer applies while a human is asked for. Removing it edits earlier
      // messages one by one, as the channel's budget allows: cosmetic, so it comes after the notice and the ticket.
      { kind: 'strip', ticketId: ticket.id, place: conv.place, actions: [HANDOFF_ACTIONS.request] },
    ]);
    // The one atomic step: the conversation is in handoff with this ticket, and its opening notices
    // (the user's notice, the ticket message, the button removal) are owed.
    if (!(await this.markHandoff(conv.id, ticket.id, intents))) {
      // Another trigger (another instance, a double click) won the race; its ticket stands.
      await this.ctx.store.delete(ticketKeys.ticket(ticket.id));
      return;
    }
    // Its full retention, its open mark: a compare-and-set, since a drain elsewhere may already be
    // recording its posts on it. (A crash before this: the opening's own writes do the same.)
    await this.update(ticket.id, (t) => ({ ...t }));
    await this.notices.deliver(intents);
  }

  /**
   * Points the conversation at `ticketId` together with the ticket's opening notices, unless it is
   * in handoff already. A mark left behind by an ended or vanished ticket does not count.
   */
  private async markHandoff(convId: string, ticketId: string, intents: OutboxIntent[]): Promise<boolean> {
    const key = keys.handoff(convId);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await this.ctx.store.get<string>(key);
      if (current !== undefined) {
        const held = typeof current === 'string' ? await this.load(current) : undefined;
        if (held && !isEnded(held.status)) return false;
      }
      if (await this.ctx.store.compareAndSetWithIntents(key, current, ticketId, this.retentionMs, NOTICE_BOX, intents))
        return true;
    }
    return false;
  }

  /** Where the ticket message went, and the user's conversation in words and a link (never raw ids). */
  private async startTicket(ticketId: string, channel: Place, title: string): Promise<Opened> {
    const ticket = await this.load(ticketId);
    if (!ticket) throw new Error(`ticket ${ticketId} is gone`);
    const handoffSurface = surfaceAt(this.ctx, channel);
    let shown = ticket;
    if (!ticket.userLink && !ticket.userChannelName) {
      const userSurface = surfaceAt(this.ctx, ticket.userPlace);
      const [userLink, userChannelName] = await Promise.all([
        this.quietly(() => userSurface.permalink?.(rootOf(ticket.userPlace)), 'permalink'),
        this.quietly(() => userSurface.channelName?.(ticket.userPlace), 'channel name'),
      ]);
      if (userLink || userChannelName) {
        shown =
          (await this.update(ticketId, (t) => ({
            ...t,
            ...(userLink ? { userLink } : {}),
            ...(userChannelName ? { userChannelName } : {}),
          }))) ?? ticket;
      }
    }
    const { root, thread } = await handoffSurface.startThread(
      channel,
      await this.renderFor(shown, handoffSurface),
      title,
    );
    return { root, thread };
  }

  /** The ticket message is posted: the ticket, and the keys that find it from its thread, say where. */
  private async ticketPosted(ticketId: string, { root, thread }: Opened): Promise<void> {
    // Before the ticket: a crash between the two writes must not leave the ticket unfindable.
    await this.ctx.store.set(ticketKeys.byThread(thread), ticketId, this.retentionMs);
    await this.ctx.store.set(ticketKeys.byMessage(root), ticketId, this.retentionMs);
    const ticketLink = await this.quietly(() => surfaceAt(this.ctx, root.place).permalink?.(root), 'ticket permalink');
    await this.update(ticketId, (t) =>
      t.root ? undefined : { ...t, root, thread, ...(ticketLink ? { ticketLink } : {}) },
    );
  }

  private async userNoticePosted(ticketId: string, ref: MessageRef): Promise<void> {
    await this.update(ticketId, (t) => (t.userNotice ? undefined : { ...t, userNotice: ref }));
  }

  /** The ticket message could not be posted: the ticket is called off and the user told (both through the outbox). */
  private async openFailed(ticketId: string): Promise<void> {
    const changed = await this.changeTicket(
      ticketId,
      (t) => (isEnded(t.status) ? undefined : { ...t, status: 'cancelled', endedBy: BRIDGE, endedAt: this.ctx.now() }),
      (t) => [
        ...this.toUser(
          t,
          'Sorry, I could not reach the handoff channel, so no human was notified. The bot keeps answering here; try /handoff again later.',
        ),
        ...this.stripCancel(t),
      ],
    );
    if (!changed) return;
    await this.clearMarks(changed.ticket);
    await this.notices.deliver(changed.intents);
  }

  /** Claim button: exactly one agent wins (compare-and-set on the ticket); the others are told who. */
  async claim(inv: Invocation, ticketId: string): Promise<void> {
    const agent = inv.actor;
    const won = await this.transition(
      inv,
      ticketId,
      (t) => {
        if (t.status === 'claimed') return `Already claimed by ${t.claimedBy?.name ?? 'another agent'}.`;
        if (t.status !== 'open') return `This ticket is ${stateWord(t.status).toLowerCase()}.`;
        if (!this.inHandoffChannel(inv, t)) return 'Only members of the handoff channel may claim a ticket.';
        const now = this.ctx.now();
        return {
          ...t,
          status: 'claimed',
          claimedBy: agent,
          claimedAt: now,
          claimWaitMs: now - (t.waitingSince ?? t.createdAt),
          firstClaimedAt: t.firstClaimedAt ?? now,
        };
      },
      (won) => [
        ...this.toThread(
          won,
          `${agent.name} claimed this ticket. Their messages in this thread go to ${won.user.name} (start one with "note:" to keep it for the team); theirs appear here. Press Close to hand them back to the bot.`,
        ),
        ...this.toUser(won, `${agent.name} (agent) has joined the conversation and will answer you here.`),
        // Last: a ticket edit Slack or Discord holds back (rate limits) must not keep either side waiting.
        ...this.refreshOf(won),
      ],
    );
    if (won) await this.notices.deliver(won.intents);
  }

  /** Release: the claimer hands the ticket back to the queue; the user is told someone else will pick it up. */
  async release(inv: Invocation, ticketId: string): Promise<void> {
    const released = await this.transition(
      inv,
      ticketId,
      (t) => {
        if (t.status !== 'claimed')
          return `This ticket is ${stateWord(t.status).toLowerCase()}: there is nothing to release.`;
        if (t.claimedBy?.id !== inv.actor.id)
          return `Only ${t.claimedBy?.name ?? 'the claiming agent'}, who claimed this ticket, may release it.`;
        const { claimedBy: _c, claimedAt: _a, claimWaitMs: _w, ...rest } = t;
        return { ...rest, status: 'open', waitingSince: this.ctx.now(), reminders: 0, lastRemindAt: undefined };
      },
      (released) => [
        ...this.refreshOf(released),
        ...this.toThread(
          released,
          `${inv.actor.name} released this ticket: it is waiting again. Press Claim to take it.`,
        ),
        ...this.toUser(
          released,
          `${inv.actor.name} handed your request back to the team: someone else will pick it up here shortly.`,
        ),
      ],
    );
    if (released) await this.notices.deliver(released.intents);
  }

  /** Take over: asks the pressing agent to confirm (the claimer is named), nothing changes yet. */
  async askTakeOver(inv: Invocation, ticketId: string): Promise<void> {
    const t = await this.load(ticketId);
    if (!t) return void (await inv.reply({ text: 'This ticket no longer exists.' }, { ephemeral: true }));
    if (t.status !== 'claimed') {
      await inv.reply(
        {
          text: `This ticket is ${stateWord(t.status).toLowerCase()}: ${t.status === 'open' ? 'press Claim instead.' : 'there is nothing to take over.'}`,
        },
        { ephemeral: true },
      );
      return;
    }
    if (t.claimedBy?.id === inv.actor.id)
      return void (await inv.reply({ text: 'You already hold this ticket.' }, { ephemeral: true }));
    if (!this.inHandoffChannel(inv, t))
      return void (await inv.reply(
        { text: 'Only members of the handoff channel may take over a ticket.' },
        { ephemeral: true },
      ));
    await inv.reply(
      {
        text: `Take this ticket over from ${t.claimedBy?.name ?? 'the claiming agent'}? ${t.user.name} will be told you answer from now on.`,
        buttons: [
          {
            action: HANDOFF_ACTIONS.takeoverConfirm,
            label: 'Take over',
            value: `${t.id}:${t.claimedBy?.id ?? ''}`,
            style: 'primary',
          },
        ],
      },
      { ephemeral: true },
    );
  }

  /** The confirmed take-over: only if the ticket is still held by the agent the confirmation named. */
  async takeOver(inv: Invocation, value: string): Promise<void> {
    const cut = value.indexOf(':');
    const ticketId = cut < 0 ? value : value.slice(0, cut);
    const expected = cut < 0 ? '' : value.slice(cut + 1);
    let previous: Actor | undefined;
    const taken = await this.transition(
      inv,
      ticketId,
      (t) => {
        if (t.status !== 'claimed')
          return `This ticket is ${stateWord(t.status).toLowerCase()} now: nothing was taken over.`;
        if (t.claimedBy?.id !== expected)
          return `The ticket changed hands meanwhile (now ${t.claimedBy?.name ?? 'nobody'}): nothing was taken over.`;
        if (t.claimedBy?.id === inv.actor.id) return 'You already hold this ticket.';
        if (!this.inHandoffChannel(inv, t)) return 'Only members of the handoff channel may take over a ticket.';
        previous = t.claimedBy;
        return { ...t, claimedBy: inv.actor, claimedAt: this.ctx.now() };
      },
      (taken) => [
        ...this.refreshOf(taken),
        ...this.toThread(
          taken,
          `${inv.actor.name} took this ticket over from ${previous?.name ?? 'the previous agent'}. From now on their messages here go to ${taken.user.name}.`,
        ),
        ...this.toUser(
          taken,
          `${inv.actor.name} (agent) now answers you here, taking over from ${previous?.name ?? 'the previous agent'}.`,
        ),
      ],
    );
    if (!taken) return;
    await this.notices.deliver(taken.intents);
    await inv
      .reply({ text: `You now hold the ticket of ${taken.ticket.user.name}.` }, { ephemeral: true })
      .catch(() => undefined);
  }

  /**
   * Close (claimer or admin) or Cancel (asker or admin): the thread goes back to the bot, both sides
   * are told, the user's Cancel button goes, and after a close the user is asked for a rating.
   */
  async end(ticketId: string, how: 'closed' | 'cancelled', inv: Invocation): Promise<boolean> {
    const ended = await this.transition(
      inv,
      ticketId,
      (t) => {
        if (isEnded(t.status)) return 'This handoff has already ended.';
        const by = inv.actor;
        if (how === 'closed' && !by.isAdmin && !(t.status === 'claimed' && t.claimedBy?.id === by.id)) {
          return t.status === 'claimed'
            ? `Only ${t.claimedBy?.name ?? 'the claiming agent'} (who claimed it) or an admin may close this ticket.`
            : 'Only an admin may close a ticket nobody has claimed: press Claim to take it, then Close.';
        }
        if (how === 'cancelled' && !by.isAdmin && !(by.id === t.user.id && inv.surface.name === t.userPlace.surface)) {
          return `Only ${t.user.name}, who asked for a human, or an admin may cancel this handoff.`;
        }
        return { ...t, status: how, endedBy: by, endedAt: this.ctx.now() };
      },
      (ended) => this.endNotices(ended, how, inv.actor),
    );
    if (!ended) return false;
    await this.clearMarks(ended.ticket);
    await this.notices.deliver(ended.intents);
    return true;
  }

  /** Nobody claimed a waiting ticket in time: the bridge ends it, and both sides are told. */
  private async timeOut(ticketId: string): Promise<void> {
    const changed = await this.changeTicket(
      ticketId,
      (t) => (t.status === 'open' ? { ...t, status: 'timedout', endedBy: BRIDGE, endedAt: this.ctx.now() } : undefined),
      (ended) => this.endNotices(ended, 'timedout', BRIDGE),
    );
    if (!changed) return;
    await this.clearMarks(changed.ticket);
    await this.notices.deliver(changed.intents);
  }

  private async clearMarks(ended: Ticket): Promise<void> {
    // Only this ticket's mark: a later handoff of the same thread has its own.
    if ((await this.ctx.store.get(keys.handoff(ended.convId))) === ended.id) {
      await this.ctx.store.delete(keys.handoff(ended.convId));
    }
    await this.ctx.store.delete(ticketKeys.open(ended.id));
  }

  /** What both sides are told when a ticket ends, and the buttons that no longer apply. */
  private endNotices(ended: Ticket, how: Ended, by: Actor): Notice[] {
    const toAgents =
      how === 'closed'
        ? `${by.name} closed this ticket. The bot answers ${ended.user.name} again.`
        : how === 'cancelled'
          ? `${by.id === ended.user.id ? ended.user.name : by.name} cancelled the request. The bot answers ${ended.user.name} again.`
          : `Nobody claimed this ticket in ${duration(this.ctx.now() - (ended.waitingSince ?? ended.createdAt))}: it timed out. The bot answers ${ended.user.name} again.`;
    const toUser: Notice[] =
      how === 'closed' && by.id !== BRIDGE.id
        ? // One message: the user is told the bot is back and asked for a rating (1-5 buttons).
          this.toUser(ended, {
            text: `${closedText(ended)}\n${ratingQuestion(ended)}`,
            buttons: [1, 2, 3, 4, 5].map((n) => ({
              action: HANDOFF_ACTIONS.rate,
              label: String(n),
              value: `${ended.id}:${n}`,
            })),
          })
        : this.toUser(
            ended,
            how === 'cancelled'
              ? `Handoff cancelled. I'm back: ask me anything here.`
              : `Sorry, no agent could pick up your request in time. I'm back: ask me anything here, or use /handoff to try again later.`,
          );
    // The Cancel button no longer applies.
    return [...this.toThread(ended, toAgents), ...toUser, ...this.refreshOf(ended), ...this.stripCancel(ended)];
  }

  /** The user's Cancel button no longer applies once the ticket ends (the notice waits for it to be posted). */
  private stripCancel(ended: Ticket): Notice[] {
    return [
      {
        kind: 'editNotice',
        ticketId: ended.id,
        msg: {
          text: `${ended.userNoticeText ?? DEFAULT_TALK_TO_HUMAN}\n(Handoff ${stateWord(ended.status).toLowerCase()}.)`,
        },
      },
    ];
  }

  /** A rating button: the user who asked, once; the score goes on the ticket and into the figures. */
  async rate(inv: Invocation, value: string): Promise<void> {
    const [ticketId = '', raw = ''] = value.split(':');
    const score = Number(raw);
    if (!Number.isInteger(score) || score < 1 || score > 5) {
      await inv.reply({ text: 'That rating button is not valid.' }, { ephemeral: true });
      return;
    }
    const rated = await this.transition(
      inv,
      ticketId,
      (t) => {
        if (t.user.id !== inv.actor.id || t.userPlace.surface !== inv.surface.name)
          return `Only ${t.user.name}, who was helped, may rate this.`;
        if (t.rating !== undefined) return `You already rated the help ${t.rating}/5. Thank you!`;
        return { ...t, rating: score, ratedAt: this.ctx.now() };
      },
      (rated) => [...this.refreshOf(rated), ...this.toThread(rated, `${rated.user.name} rated the help ${score}/5.`)],
    );
    if (!rated) return;
    // The buttons the user pressed: answered on the interaction (a press after a restart finds the
    // rating given and is thanked again), so not an outbox notice.
    const thanks: OutMessage = { text: `${closedText(rated.ticket)}\nThank you! You rated the help ${score}/5.` };
    if (inv.update) await this.quietly(() => inv.update!(thanks), 'replacing the rating buttons');
    else await inv.reply(thanks, { ephemeral: true });
    await this.notices.deliver(rated.intents);
  }

  /**
   * A user's message in a thread in handoff: relayed word for word to the ticket thread, through the
   * outbox under the message's id, so a replayed queue item neither loses nor doubles it (and it waits
   * for a ticket message not posted yet).
   */
  async relayFromUser(
    ticket: Ticket,
    actor: Actor,
    text: string,
    attachments: Attachment[],
    msgId: string,
  ): Promise<void> {
    const stableId = `from-user:${encodeURIComponent(msgId)}`;
    if (await this.notices.redo(ticket.id, stableId)) return;
    await appendTurn(this.ctx.store, ticket.convId, { author: actor.name, text, at: this.ctx.now() }, this.retentionMs);
    const msg = { text: `*${asText(actor.name)}:* ${asText(text)}${fileLines(attachments)}`, markdown: true };
    const relayed = await this.changeTicket(
      ticket.id,
      (t) => ({ ...t }),
      (t) => [{ kind: 'toThread', ticketId: t.id, msg }],
      undefined,
      stableId,
    );
    if (relayed) await this.notices.deliver(relayed.intents);
  }

  /**
   * A message in a ticket thread: the claiming agent's reaches the user; a "note:" of theirs, and
   * everyone else's, stays with the agents and is marked so its writer knows it did not go out. Both
   * go through the outbox under the platform message id: a redelivered event is carried out once.
   */
  async relayFromAgent(ticketId: string, msg: IncomingMessage, surface: SurfacePort): Promise<void> {
    const stableId = `from-agent:${encodeURIComponent(placeKey(msg.place))}:${encodeURIComponent(msg.id)}`;
    if (await this.notices.redo(ticketId, stableId)) return;
    const ticket = await this.load(ticketId);
    if (!ticket) return;
    if (isEnded(ticket.status)) {
      await surface.notify(msg.place, msg.actor, {
        text: `This ticket is ${stateWord(ticket.status).toLowerCase()}: the user no longer sees messages here.`,
      });
      return;
    }
    const fromClaimer = ticket.status === 'claimed' && ticket.claimedBy?.id === msg.actor.id;
    if (!fromClaimer || NOTE_PREFIX.test(msg.text)) {
      const why =
        ticket.status === 'open'
          ? ' Press Claim to talk to them.'
          : fromClaimer
            ? ''
            : ` Only ${ticket.claimedBy?.name ?? 'the claiming agent'}'s messages reach them.`;
      const noted = await this.changeTicket(
        ticket.id,
        (t) => ({ ...t, notes: (t.notes ?? 0) + 1 }),
        (t) => [
          {
            kind: 'post',
            ticketId: t.id,
            place: msg.place,
            msg: { text: `Internal note from ${msg.actor.name}: kept for the team, not sent to ${t.user.name}.${why}` },
          },
        ],
        undefined,
        stableId,
      );
      if (noted) await this.notices.deliver(noted.intents);
      return;
    }
    const at = this.ctx.now();
    await appendTurn(
      this.ctx.store,
      ticket.convId,
      { author: `${msg.actor.name} (agent)`, text: msg.text, at },
      this.retentionMs,
    );
    const relayed = await this.changeTicket(
      ticket.id,
      (t) => (t.firstReplyAt === undefined ? { ...t, firstReplyAt: at } : { ...t }),
      (t) =>
        this.toUser(t, {
          text: `*${asText(msg.actor.name)} (agent):* ${asText(msg.text)}${fileLines(msg.attachments)}`,
          markdown: true,
        }),
      undefined,
      stableId,
    );
    if (relayed) await this.notices.deliver(relayed.intents);
  }

  /**
   * The periodic sweep of waiting tickets: the user is told once when nobody claimed in the claim
   * timeout (the ticket stays open), the thread gets a reminder each interval (at most 3), and a
   * ticket still waiting after that times out. Each step is keyed in the store, so a restart or a
   * second instance never repeats one.
   */
  async sweepUnclaimed(): Promise<void> {
    for (const key of await this.ctx.store.keys(ticketKeys.openPrefix)) {
      const id = key.slice(ticketKeys.openPrefix.length);
      const ticket = await this.load(id);
      if (ticket?.status !== 'open') continue;
      try {
        await this.sweepOne(ticket);
      } catch (err) {
        this.ctx.log.error({ err, ticket: id }, 'handoff: sweeping a waiting ticket failed');
      }
    }
  }

  private async sweepOne(ticket: Ticket): Promise<void> {
    const now = this.ctx.now();
    const since = ticket.waitingSince ?? ticket.createdAt;
    if (
      now - ticket.createdAt >= this.ctx.config.handoffClaimTimeoutMs &&
      ticket.toldLateAt === undefined &&
      (await this.ctx.store.get(ticketKeys.late(ticket.id))) === undefined
    ) {
      // Once per ticket: the compare-and-set lets one sweep (of one instance) win.
      const told = await this.changeTicket(
        ticket.id,
        (t) => (t.status === 'open' && t.toldLateAt === undefined ? { ...t, toldLateAt: now } : undefined),
        (t) =>
          this.toUser(
            t,
            `No one has picked up your request yet (${minutes(now - t.createdAt)}). It stays open in the handoff channel ` +
              'and an agent will reply in this thread. Use /handoff cancel to go back to the bot.',
          ),
      );
      if (told) await this.notices.deliver(told.intents);
    }
    const sent = ticket.reminders ?? 0;
    const last = ticket.lastRemindAt ?? since;
    // Timed out only after every reminder went out and one more interval passed.
    if (now - since >= this.timeoutMs && sent >= MAX_REMINDERS && now - last >= this.remindMs) {
      await this.timeOut(ticket.id);
      return;
    }
    if (sent >= MAX_REMINDERS || now - last < this.remindMs || !ticket.thread) return;
    // Reminder n of this wait: only if the ticket still waits the same wait with n - 1 sent, so a
    // second sweep (or instance) that read the same ticket loses the compare-and-set.
    const reminded = await this.changeTicket(
      ticket.id,
      (t) =>
        t.status === 'open' && (t.reminders ?? 0) === sent && (t.waitingSince ?? t.createdAt) === since
          ? { ...t, reminders: sent + 1, lastRemindAt: now }
          : undefined,
      (t) => [
        ...this.toThread(
          t,
          `Reminder (${sent + 1} of ${MAX_REMINDERS}): ${t.user.name} has been waiting ${duration(now - since)} for an agent. Press Claim on the ticket to take it.`,
        ),
        ...this.refreshOf(t),
      ],
    );
    if (reminded) await this.notices.deliver(reminded.intents);
  }

  /** The open tickets (waiting and claimed), oldest first, as `/handoff queue` and App Home show them. */
  async queue(): Promise<Ticket[]> {
    const open: Ticket[] = [];
    for (const key of await this.ctx.store.keys(ticketKeys.openPrefix)) {
      const t = await this.load(key.slice(ticketKeys.openPrefix.length));
      if (t && !isEnded(t.status)) open.push(t);
    }
    return open.sort((a, b) => a.createdAt - b.createdAt);
  }

  async queueMessage(): Promise<OutMessage> {
    const now = this.ctx.now();
    const tickets = await this.queue();
    if (tickets.length === 0) return { text: '*Handoff queue*\nNo open tickets: nobody is waiting.', markdown: true };
    const lines = tickets.map((t) => {
      const since = t.waitingSince ?? t.createdAt;
      const state =
        t.status === 'claimed'
          ? `Claimed by ${t.claimedBy?.name ?? 'an agent'}, waited ${duration(claimWait(t, now))}`
          : `Waiting ${duration(now - since)}`;
      const link = t.ticketLink ?? (t.root ? 'no link' : 'ticket message not posted yet');
      return `• ${state} · ${t.user.name} (${surfaceLabel(t.userPlace.surface)}) · ${link}`;
    });
    const waiting = tickets.filter((t) => t.status === 'open').length;
    return { text: `*Handoff queue*: ${tickets.length} open, ${waiting} waiting\n${lines.join('\n')}`, markdown: true };
  }

  /** Members of the handoff channel (and admins) may see the queue. */
  async isAgent(actor: Actor, surface: SurfacePort, place?: Place): Promise<boolean> {
    if (actor.isAdmin) return true;
    const targets = Object.values(this.ctx.config.handoff).filter(
      (t): t is HandoffTarget => t !== undefined && t.surface === surface.name,
    );
    for (const t of targets) {
      if (place && place.channel === t.channel) return true;
      const member = await this.quietly(
        () => surface.isMember?.({ surface: t.surface, workspace: t.workspace, channel: t.channel }, actor.id),
        'membership',
      );
      if (member) return true;
    }
    return false;
  }

  /**
   * Runs one compare-and-set transition; a refusal (a string) is told to the invoker, ephemerally.
   * The notices the change owes are written with it (see notices.ts); the caller carries them out.
   */
  private async transition(
    inv: Invocation,
    ticketId: string,
    change: (t: Ticket) => Ticket | string,
    notices: (t: Ticket) => Notice[] = () => [],
  ): Promise<Changed | undefined> {
    let refusal: string | undefined;
    let missing = false;
    const changed = await this.changeTicket(
      ticketId,
      (t) => {
        const next = change(t);
        if (typeof next !== 'string') return next;
        refusal = next;
        return undefined;
      },
      notices,
      () => {
        missing = true;
      },
    ).catch((err: unknown) => {
      if (err instanceof ContentionError) return undefined;
      throw err;
    });
    if (changed) return changed;
    const text = missing
      ? 'This ticket no longer exists.'
      : (refusal ?? 'The ticket is busy; please press the button again.');
    await inv.reply({ text }, { ephemeral: true });
    return undefined;
  }

  /** Compare-and-set update without notices; `change` returning undefined leaves the ticket as it is. */
  private async update(id: string, change: (t: Ticket) => Ticket | undefined): Promise<Ticket | undefined> {
    return (await this.changeTicket(id, change))?.ticket;
  }

  /**
   * The compare-and-set loop under every ticket change: the new ticket and the intents of its
   * notices are written in one atomic store step, or neither is.
   */
  private async changeTicket(
    id: string,
    change: (t: Ticket) => Ticket | undefined,
    notices: (t: Ticket) => Notice[] = () => [],
    onMissing?: () => void,
    stableId?: string,
  ): Promise<Changed | undefined> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const raw: Json | undefined = await this.ctx.store.get(ticketKeys.ticket(id));
      const ticket = parseStored(ticketSchema, raw);
      if (!ticket) {
        onMissing?.();
        return undefined;
      }
      const changed = change(ticket);
      if (!changed) return undefined;
      // Only a ticket handed its conversation is ever changed: it is no longer in its opening.
      const { opening: _opening, ...next } = changed;
      const intents = this.notices.intents(notices(next), stableId);
      if (
        await this.ctx.store.compareAndSetWithIntents(
          ticketKeys.ticket(id),
          raw,
          toJson(next),
          this.retentionMs,
          NOTICE_BOX,
          intents,
        )
      ) {
        await this.touchLookups(next);
        return { ticket: next, intents };
      }
    }
    throw new ContentionError(`ticket ${id}: could not update (contention)`);
  }

  /** RETENTION_DAYS after a ticket's last change, the ticket and the keys that find it expire. */
  private get retentionMs(): number {
    return this.ctx.config.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  /** Every change restarts the retention of the keys that lead to the ticket, not only of the ticket. */
  private async touchLookups(t: Ticket): Promise<void> {
    const ttl = this.retentionMs;
    if (t.thread) await this.ctx.store.set(ticketKeys.byThread(t.thread), t.id, ttl);
    if (t.root) await this.ctx.store.set(ticketKeys.byMessage(t.root), t.id, ttl);
    if (t.status === 'open' || t.status === 'claimed') {
      await this.ctx.store.set(ticketKeys.open(t.id), 1, ttl);
      await this.ctx.store.set(keys.handoff(t.convId), t.id, ttl);
    }
  }

  private inHandoffChannel(inv: Invocation, t: Ticket): boolean {
    if (inv.actor.isAdmin || !t.root) return true;
    return inv.surface.name === t.root.place.surface && inv.place.channel === t.root.place.channel;
  }

  /** The ticket message as the ticket is now (the 'refresh' notice): a change made meanwhile is not undone. */
  private async ticketView(id: string): Promise<{ root: MessageRef; msg: OutMessage } | undefined> {
    const ticket = await this.load(id);
    if (!ticket?.root) return undefined;
    return { root: ticket.root, msg: await this.renderFor(ticket, surfaceAt(this.ctx, ticket.root.place)) };
  }

  /** Both wait for the ticket message when it is not posted yet (see notices.ts). */
  private refreshOf(ticket: Ticket): Notice[] {
    return [{ kind: 'refresh', ticketId: ticket.id }];
  }

  private toThread(ticket: Ticket, text: string): Notice[] {
    return [{ kind: 'toThread', ticketId: ticket.id, msg: { text } }];
  }

  private toUser(ticket: Ticket, msg: string | Extract<Notice, { kind: 'post' }>['msg']): Notice[] {
    return [
      {
        kind: 'post',
        ticketId: ticket.id,
        place: ticket.userPlace,
        msg: typeof msg === 'string' ? { text: msg } : msg,
      },
    ];
  }

  private async quietly<T>(fn: () => Promise<T> | T | undefined, what: string): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      this.ctx.log.warn({ err, what }, `handoff: ${what} failed`);
      return undefined;
    }
  }

  /** The lead summary of a ticket's conversation (deterministic: see lead.ts). */
  async leadOf(ticket: Ticket): Promise<LeadSummary> {
    return leadFrom(
      ticket,
      await readTranscript(this.ctx.store, ticket.convId),
      await openedListings(this.ctx.store, ticket.userPlace.surface, ticket.user.id),
    );
  }

  private async renderFor(ticket: Ticket, handoffSurface: SurfacePort): Promise<OutMessage> {
    const userSurface = this.ctx.surfaces.get(ticket.userPlace.surface);
    // A mention only notifies on its own platform; across surfaces, the name and platform say who.
    const label =
      userSurface && userSurface.name === handoffSurface.name
        ? `${userSurface.mention(ticket.user)} (${asText(ticket.user.name)})`
        : `${asText(ticket.user.name)} (${surfaceLabel(ticket.userPlace.surface)} user)`;
    const transcript = await readTranscript(this.ctx.store, ticket.convId);
    return renderTicket(ticket, {
      userLabel: label,
      transcript,
      lead: leadFrom(
        ticket,
        transcript,
        await openedListings(this.ctx.store, ticket.userPlace.surface, ticket.user.id),
      ),
      maxLength: handoffSurface.limits.maxMessageLength,
      now: this.ctx.now(),
    });
  }

  private target(from: Place): HandoffTarget | undefined {
    const configured = this.ctx.config.handoff;
    return configured[from.surface] ?? Object.values(configured).find((t): t is HandoffTarget => t !== undefined);
  }

  private async talkToHumanMessage(): Promise<string> {
    const applied = parseStored(
      appliedSettingsSchema,
      await this.ctx.store.get(`settings:applied:${this.ctx.config.chatbotId}`),
    );
    const text = applied?.TalkToHumanResponseMessage?.trim();
    return text ? text : DEFAULT_TALK_TO_HUMAN;
  }
}

class ContentionError extends Error {}

function closedText(t: Ticket): string {
  return `${t.endedBy?.name ?? 'The agent'} closed the handoff. I'm back: ask me anything here.`;
}

function ratingQuestion(t: Ticket): string {
  return `How would you rate the help you got from ${t.claimedBy?.name ?? t.endedBy?.name ?? 'our agent'}? 1 = poor, 5 = great.`;
}

function leadFrom(ticket: Ticket, transcript: Turn[], opened: string[]): LeadSummary {
  const isAnswer = (t: Turn): boolean => t.author === BOT_AUTHOR;
  const isAgent = (t: Turn): boolean => t.author.endsWith(' (agent)');
  return extractLead({
    name: ticket.user.name,
    userTexts: transcript
      .filter((t) => !isAnswer(t) && !isAgent(t))
      .map((t) => t.text.replace(/^\(asked for a human\) /, '')),
    answerTexts: transcript.filter(isAnswer).map((t) => t.text),
    openedListings: opened,
  });
}

/** The message a conversation thread hangs on (Slack: the root's ts; Discord: the thread, named after its root). */
function rootOf(place: Place): { place: Place; id: string } {
  return {
    place: { surface: place.surface, workspace: place.workspace, channel: place.channel },
    id: place.thread ?? '',
  };
}

function surfaceLabel(s: Place['surface']): string {
  return s === 'slack' ? 'Slack' : s === 'discord' ? 'Discord' : s;
}

function fileLines(attachments: Attachment[]): string {
  return attachments.map((a) => `\n[file: ${asText(a.name)}]`).join('');
}

/** A relayed message's words and its writer's name: the user's or the agent's, shown as text. */
function asText(text: string): string {
  return shownAsText(untrusted(text));
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'under a minute' : m === 1 ? '1 minute' : `${m} minutes`;
}
