/**
 * Handoff: a conversation handed to a human in a handoff channel (possibly on another surface),
 * claimed by one agent, relayed both ways, then handed back. All state is in the store, so any
 * instance (or a restarted one) can continue a ticket.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Json } from '../../state/store';
import type { CoreContext, HandoffTarget } from '../context';
import { appendTurn, readTranscript } from '../conversations/transcript';
import { keys, parseStored, toJson, type Conversation } from '../conversations/model';
import type { Actor, Attachment, IncomingMessage, Invocation, OutMessage, Place, SurfacePort } from '../surface';
import { DEFAULT_TALK_TO_HUMAN, HANDOFF_ACTIONS, ticketKeys, ticketSchema, type Ticket } from './model';
import { renderTicket } from './render';

const appliedSettingsSchema = z.object({ TalkToHumanResponseMessage: z.string().optional() }).passthrough();

const CAS_ATTEMPTS = 10;

type Ended = 'closed' | 'cancelled';

export class Handoffs {
  constructor(private readonly ctx: CoreContext) {}

  /** The open or claimed ticket of a conversation, if it is in handoff. */
  async activeTicket(convId: string): Promise<Ticket | undefined> {
    const id = await this.ctx.store.get<string>(keys.handoff(convId));
    if (typeof id !== 'string') return undefined;
    const ticket = await this.load(id);
    if (!ticket || ticket.status === 'closed' || ticket.status === 'cancelled') return undefined;
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

  /**
   * Hands `conv` to a human: the user sees the chatbot's TalkToHumanResponseMessage with a Cancel
   * button, and a ticket with a Claim button appears in the handoff channel.
   */
  async request(conv: Conversation, user: Actor, reason: string): Promise<void> {
    const userSurface = this.surface(conv.place);
    const active = await this.activeTicket(conv.id);
    if (active) {
      const who = active.status === 'claimed' ? `${active.claimedBy?.name ?? 'An agent'} is already with you here` : 'A human has already been asked to join this conversation';
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
    const ticket: Ticket = {
      id: randomBytes(6).toString('hex'),
      convId: conv.id,
      status: 'open',
      user,
      userPlace: conv.place,
      reason,
      createdAt: this.ctx.now(),
    };
    await this.ctx.store.set(ticketKeys.ticket(ticket.id), toJson(ticket));
    if (!(await this.ctx.store.setIfAbsent(keys.handoff(conv.id), ticket.id))) {
      // Another trigger (another instance, a double click) won the race; its ticket stands.
      await this.ctx.store.delete(ticketKeys.ticket(ticket.id));
      return;
    }
    await this.ctx.store.set(ticketKeys.open(ticket.id), 1);
    await appendTurn(this.ctx.store, conv.id, { author: user.name, text: `(asked for a human) ${reason}`, at: this.ctx.now() });

    await userSurface.post(conv.place, {
      text: await this.talkToHumanMessage(),
      buttons: [{ action: HANDOFF_ACTIONS.cancel, label: 'Cancel', value: ticket.id }],
    });

    try {
      const channel: Place = { surface: target.surface, workspace: target.workspace, channel: target.channel };
      const msg = await this.renderFor(ticket, handoffSurface);
      const { thread, root } = await handoffSurface.startThread(channel, msg, `Handoff: ${user.name}`);
      await this.update(ticket.id, (t) => ({ ...t, root, thread }));
      await this.ctx.store.set(ticketKeys.byThread(thread), ticket.id);
      await this.ctx.store.set(ticketKeys.byMessage(root), ticket.id);
    } catch (err) {
      this.ctx.log.error({ err, ticket: ticket.id }, 'handoff: posting the ticket failed');
      await this.end(ticket.id, 'cancelled', { id: 'bridge', name: 'the bridge', isAdmin: false }, { quiet: true });
      await userSurface.post(conv.place, {
        text: 'Sorry, I could not reach the handoff channel, so no human was notified. The bot keeps answering here; try /handoff again later.',
      });
    }
  }

  /** Claim button: exactly one agent wins (compare-and-set on the ticket); the others are told who. */
  async claim(inv: Invocation, ticketId: string): Promise<void> {
    const agent = inv.actor;
    let won: Ticket | undefined;
    for (let attempt = 0; attempt < CAS_ATTEMPTS && !won; attempt++) {
      const raw = await this.ctx.store.get(ticketKeys.ticket(ticketId));
      const ticket = parseStored(ticketSchema, raw);
      if (!ticket) {
        await inv.reply({ text: 'This ticket no longer exists.' }, { ephemeral: true });
        return;
      }
      if (ticket.status === 'claimed') {
        await inv.reply({ text: `Already claimed by ${ticket.claimedBy?.name ?? 'another agent'}.` }, { ephemeral: true });
        return;
      }
      if (ticket.status !== 'open') {
        await inv.reply({ text: `This ticket is ${ticket.status}.` }, { ephemeral: true });
        return;
      }
      const next: Ticket = { ...ticket, status: 'claimed', claimedBy: agent, claimedAt: this.ctx.now() };
      if (await this.ctx.store.compareAndSet(ticketKeys.ticket(ticketId), raw, toJson(next))) won = next;
    }
    if (!won) {
      await inv.reply({ text: 'The ticket is busy; please press Claim again.' }, { ephemeral: true });
      return;
    }
    await this.refreshTicketMessage(won);
    if (won.thread) {
      await this.surface(won.thread).post(won.thread, {
        text: `${agent.name} claimed this ticket. Messages in this thread go to ${won.user.name}; theirs appear here. Press Close to hand them back to the bot.`,
      });
    }
    await this.surface(won.userPlace).post(won.userPlace, {
      text: `${agent.name} (agent) has joined the conversation and will answer you here.`,
    });
  }

  /** Close (agent) or cancel (user): the thread goes back to the bot, and both sides are told. */
  async end(ticketId: string, how: Ended, by: Actor, opts: { quiet?: boolean; inv?: Invocation } = {}): Promise<boolean> {
    let ended: Ticket | undefined;
    for (let attempt = 0; attempt < CAS_ATTEMPTS && !ended; attempt++) {
      const raw = await this.ctx.store.get(ticketKeys.ticket(ticketId));
      const ticket = parseStored(ticketSchema, raw);
      if (!ticket || ticket.status === 'closed' || ticket.status === 'cancelled') {
        await opts.inv?.reply({ text: 'This handoff has already ended.' }, { ephemeral: true });
        return false;
      }
      const next: Ticket = { ...ticket, status: how, endedBy: by };
      if (await this.ctx.store.compareAndSet(ticketKeys.ticket(ticketId), raw, toJson(next))) ended = next;
    }
    if (!ended) {
      await opts.inv?.reply({ text: 'The ticket is busy; please try again.' }, { ephemeral: true });
      return false;
    }
    // Only this ticket's mark: a later handoff of the same thread has its own.
    if ((await this.ctx.store.get(keys.handoff(ended.convId))) === ended.id) {
      await this.ctx.store.delete(keys.handoff(ended.convId));
    }
    await this.ctx.store.delete(ticketKeys.open(ended.id));
    if (opts.quiet) return true;
    await this.refreshTicketMessage(ended);
    const toAgents =
      how === 'closed'
        ? `${by.name} closed this ticket. The bot answers ${ended.user.name} again.`
        : `${ended.user.name} cancelled the request. The bot answers them again.`;
    const toUser =
      how === 'closed'
        ? `${by.name} closed the handoff. I'm back: ask me anything here.`
        : `Handoff cancelled. I'm back: ask me anything here.`;
    if (ended.thread) await this.surface(ended.thread).post(ended.thread, { text: toAgents });
    await this.surface(ended.userPlace).post(ended.userPlace, { text: toUser });
    return true;
  }

  /** A user's message in a thread in handoff: relayed word for word to the ticket thread. */
  async relayFromUser(ticket: Ticket, actor: Actor, text: string, attachments: Attachment[]): Promise<void> {
    await appendTurn(this.ctx.store, ticket.convId, { author: actor.name, text, at: this.ctx.now() });
    if (!ticket.thread) {
      this.ctx.log.warn({ ticket: ticket.id }, 'handoff: user message before the ticket thread exists');
      return;
    }
    await this.surface(ticket.thread).post(ticket.thread, { text: `*${actor.name}:* ${text}${fileLines(attachments)}`, markdown: true });
  }

  /** A message in a ticket thread: relayed to the user once claimed. */
  async relayFromAgent(ticketId: string, msg: IncomingMessage, surface: SurfacePort): Promise<void> {
    const ticket = await this.load(ticketId);
    if (!ticket) return;
    if (ticket.status === 'open') {
      await surface.notify(msg.place, msg.actor, { text: 'Press Claim on the ticket first: until someone claims it, messages here are not sent to the user.' });
      return;
    }
    if (ticket.status !== 'claimed') {
      await surface.notify(msg.place, msg.actor, { text: `This ticket is ${ticket.status}: the user no longer sees messages here.` });
      return;
    }
    await appendTurn(this.ctx.store, ticket.convId, { author: `${msg.actor.name} (agent)`, text: msg.text, at: this.ctx.now() });
    await this.surface(ticket.userPlace).post(ticket.userPlace, {
      text: `*${msg.actor.name} (agent):* ${msg.text}${fileLines(msg.attachments)}`,
      markdown: true,
    });
  }

  /** Tickets nobody claimed within the configured time: the user is told once; the ticket stays open. */
  async sweepUnclaimed(): Promise<void> {
    const now = this.ctx.now();
    for (const key of await this.ctx.store.keys(ticketKeys.openPrefix)) {
      const id = key.slice(ticketKeys.openPrefix.length);
      const ticket = await this.load(id);
      if (ticket?.status !== 'open') continue;
      if (now - ticket.createdAt < this.ctx.config.handoffClaimTimeoutMs) continue;
      if (!(await this.ctx.store.setIfAbsent(ticketKeys.late(id), now))) continue;
      await this.surface(ticket.userPlace).post(ticket.userPlace, {
        text:
          `No one has picked up your request yet (${minutes(now - ticket.createdAt)}). It stays open in the handoff channel ` +
          'and an agent will reply in this thread. Use /handoff cancel to go back to the bot.',
      });
    }
  }

  private async update(id: string, change: (t: Ticket) => Ticket): Promise<void> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const raw: Json | undefined = await this.ctx.store.get(ticketKeys.ticket(id));
      const ticket = parseStored(ticketSchema, raw);
      if (!ticket) return;
      if (await this.ctx.store.compareAndSet(ticketKeys.ticket(id), raw, toJson(change(ticket)))) return;
    }
    throw new Error(`ticket ${id}: could not update (contention)`);
  }

  private async refreshTicketMessage(ticket: Ticket): Promise<void> {
    if (!ticket.root) return;
    const surface = this.surface(ticket.root.place);
    const msg = await this.renderFor(ticket, surface);
    await surface.edit(ticket.root, msg);
  }

  private async renderFor(ticket: Ticket, handoffSurface: SurfacePort): Promise<OutMessage> {
    const userSurface = this.ctx.surfaces.get(ticket.userPlace.surface);
    // A mention only notifies on its own platform; across surfaces, the name and origin say who.
    const label =
      userSurface && userSurface.name === handoffSurface.name
        ? `${userSurface.mention(ticket.user)} (${ticket.user.name})`
        : `${ticket.user.name} (${ticket.userPlace.surface} user ${ticket.user.id})`;
    const transcript = await readTranscript(this.ctx.store, ticket.convId);
    return renderTicket(ticket, label, transcript, handoffSurface.limits.maxMessageLength);
  }

  private target(from: Place): HandoffTarget | undefined {
    const configured = this.ctx.config.handoff;
    return configured[from.surface] ?? Object.values(configured).find((t): t is HandoffTarget => t !== undefined);
  }

  private surface(place: Place): SurfacePort {
    const surface = this.ctx.surfaces.get(place.surface);
    if (!surface) throw new Error(`surface ${place.surface} is not running`);
    return surface;
  }

  private async talkToHumanMessage(): Promise<string> {
    const applied = parseStored(appliedSettingsSchema, await this.ctx.store.get(`settings:applied:${this.ctx.config.chatbotId}`));
    const text = applied?.TalkToHumanResponseMessage?.trim();
    return text ? text : DEFAULT_TALK_TO_HUMAN;
  }
}

function fileLines(attachments: Attachment[]): string {
  return attachments.map((a) => `\n[file: ${a.name}]`).join('');
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'under a minute' : m === 1 ? '1 minute' : `${m} minutes`;
}
