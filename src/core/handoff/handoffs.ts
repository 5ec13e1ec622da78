/**
 * Handoff: a conversation handed to a human in a handoff channel (possibly on another surface),
 * claimed by one agent, relayed both ways, passed on or handed back. This class only loads a
 * ticket, asks `decide` (decide.ts: the state machine and its permission table), stores the result
 * with its notices in one atomic step (tickets.ts) and has the outbox carry them out (notices.ts).
 * All state is in the store, so any instance (or a restarted one) can continue a ticket; every
 * change is a compare-and-set on the ticket, so two presses (or two instances) never both win.
 * Refusals are told to the person who acted, ephemerally; nothing changes.
 */
import { randomBytes } from 'node:crypto';
import type { CoreContext } from '../context';
import { convRef, placeKey, type Conversation, type ConvRef } from '../conversations/model';
import { appendTurn } from '../conversations/transcript';
import type { Actor, Attachment, IncomingMessage, Invocation, OutMessage, Place, SurfacePort } from '../surface';
import { decide, ends, permit, refusalOf } from './decide';
import { BRIDGE, type Decision, type HandoffEvent, type HandoffStep, type Refused, type Who } from './events';
import { HandoffHours } from './hours/hours';
import { afterHoursLines } from './hours/office';
import { isOpen } from './hours/office-hours';
import { OfficeBook } from './hours/ticket-office';
import type { HoursStep } from './hours/steps';
import { HANDOFF_ACTIONS, ticketConv, ticketKeys, type Ticket } from './model';
import { noticeIntents } from './notice';
import { TicketNotices } from './notices';
import { queueMessage } from './queue';
import { dueSteps, sweepTiming } from './sweep';
import { leadOf, quietly } from './ticket-view';
import { TicketStore } from './tickets';
import { handoffTarget } from './channel';
import type { Gate } from './permissions';
import { type Acting, askerOf, type Intent, whoIs } from './who';
import { routeHandoff, viewTenants } from '../tenants/offices';
import type { Tenant } from '../../state/tenant-store';

const CAS_ATTEMPTS = 10;
const NOTE_PREFIX = /^\s*note\s*:/i;
/** Stands for the asker of a conversation nobody is known to have started: it matches no one. */
const NOBODY: Actor = { id: '', name: 'the person who asked', isAdmin: false };
const BUSY: Refused = { refusal: 'The ticket is busy; please press the button again.' };

export class Handoffs {
  /** The outbox of ticket notices: drained on start and periodically by the bridge (through `drain`). */
  readonly notices: TicketNotices;
  private readonly tickets: TicketStore;

  /** Office hours, e-mail, response targets, round-robin, the day's leads (hours/). */
  readonly hours: HandoffHours;

  constructor(private readonly ctx: CoreContext) {
    this.tickets = new TicketStore(ctx);
    this.notices = new TicketNotices(ctx, this.tickets);
    this.hours = new HandoffHours({
      ctx,
      inProgress: () => this.tickets.inProgress(),
      load: (id) => this.tickets.load(id),
      leadOf: (t) => leadOf(ctx, t),
      apply: (id, step) => this.applyHours(id, step),
      handoffSurfaceOf: (t) => {
        const name = t.root?.place.surface ?? handoffTarget(this.ctx, t.userPlace)?.surface;
        return name ? this.ctx.surfaces.get(name) : undefined;
      },
    });
  }

  /** The open or claimed ticket of a conversation, if it is in handoff. */
  activeTicket(conv: ConvRef): Promise<Ticket | undefined> {
    return this.tickets.active(conv);
  }

  ticketForThread(place: Place): Promise<string | undefined> {
    return this.tickets.idForThread(place);
  }

  load(id: string): Promise<Ticket | undefined> {
    return this.tickets.load(id);
  }

  /** Every stored ticket (the figures walk them). */
  allTickets(): Promise<Ticket[]> {
    return this.tickets.all();
  }

  /** The open tickets (waiting and claimed) of one tenant, oldest first, as `/handoff queue` and App Home show them. */
  queue(viewer: Tenant): Promise<Ticket[]> {
    return this.tickets.of(viewTenants(this.ctx, viewer), 'open');
  }

  /** Every ticket of one tenant (its figures walk them). */
  ticketsOf(viewer: Tenant): Promise<Ticket[]> {
    return this.tickets.of(viewTenants(this.ctx, viewer), 'all');
  }

  async queueMessage(viewer: Tenant): Promise<OutMessage> {
    const lines = await this.hours.queueLines(viewTenants(this.ctx, viewer));
    return queueMessage(await this.queue(viewer), this.ctx.now(), lines);
  }

  /** Who `by` is for `intent` (who.ts), for a step asked outside this class (the rating form). */
  readonly whoIs = (by: Acting, intent: Intent): Promise<Who> => whoIs(this.ctx, by, intent);
  /**
   * Why `actor` may not do what touches no ticket (the queue, away/back, Retry; `asker`: who asked,
   * for Retry), from the one permission table with the role who.ts gives them; undefined: they may.
   */
  async refusal(gate: Gate, by: Acting, asker?: Actor): Promise<string | undefined> {
    return permit(gate, await whoIs(this.ctx, by, { action: gate, asker }), asker)?.refusal;
  }

  /** Pending notices carried out (a restart's replay, an instance that died), and unpostable tickets called off. */
  async drain(): Promise<number> {
    // Once per start: tickets from before the tenants' own indexes join them.
    await this.tickets.indexTenantsOnce();
    const done = await this.notices.drain();
    await this.callOffUnposted();
    // E-mails owed (and those waiting for a retry) go out on the same beat.
    await this.hours.outbox.drain();
    return done;
  }

  /**
   * Hands `conv` to a human for its asker (`actor` is the asker, or an admin acting for them): the
   * user sees the chatbot's TalkToHumanResponseMessage with a Cancel button, and a ticket with a
   * Claim button appears in the handoff channel. Returns why not, when refused (nothing changed).
   */
  async request(conv: Conversation, actor: Actor, surface: SurfacePort, reason: string): Promise<string | undefined> {
    // A channel of the conversation's own workspace, or of its office on another surface: never another tenant's.
    const ref = convRef(conv);
    const target = await routeHandoff(this.ctx, ref.tenant);
    if ('refusal' in target) return target.refusal;
    if (!this.ctx.surfaces.get(target.surface))
      return 'Sorry, no human handoff channel is configured, so I cannot reach a person from here. Ask an admin to set a handoff channel.';
    const asker = (await askerOf(this.ctx, conv, actor)) ?? (actor.isAdmin ? actor : NOBODY);
    const active = await this.tickets.active(ref);
    const by = { actor, surface, tenant: ref.tenant };
    const who = await whoIs(this.ctx, by, { action: 'open', ticket: active, asker });
    const at = this.ctx.now();
    // Outside office hours the ticket still opens, marked; the user is told when agents are back.
    // The office and the words of the conversation's tenant's chatbot; its office kept with the ticket.
    const { office, talkToHuman, captured } = await new OfficeBook(this.ctx).opening(conv.place);
    const afterHours = !isOpen(office.hours, at);
    const mails = this.hours.mailsTickets(office);
    const noticeText = afterHours ? [talkToHuman, ...afterHoursLines(office, at, mails)].join('\n') : talkToHuman;
    const decided = decide(
      active,
      {
        kind: 'open',
        at,
        opening: {
          id: randomBytes(6).toString('hex'),
          convId: conv.id,
          place: conv.place,
          asker,
          reason,
          noticeText,
          channel: { surface: target.surface, workspace: target.workspace, channel: target.channel },
          ...(afterHours ? { afterHours, mails } : {}),
          ...(captured ? { office: captured } : {}),
        },
      },
      who,
    );
    if ('refusal' in decided) return decided.refusal;
    const { ticket } = decided;
    // The ticket first, short-lived until it is handed its conversation (a crash before that leaves a
    // record nothing points to, which expires), so no mark ever points to a ticket not written yet.
    await this.tickets.create(ticket);
    const intents = noticeIntents(decided.notices);
    // The one atomic step: the conversation is in handoff with this ticket, and its opening notices are owed.
    if (!(await this.tickets.markHandoff(convRef(conv), ticket.id, intents))) {
      // Another trigger (another instance, a double click) won the race; its ticket (and its line) stands.
      await this.tickets.discard(ticket.id);
      return undefined;
    }
    // The transcript's "(asked for a human)" line only for the trigger that won: the ticket, the lead
    // and the e-mail read it, so a loser's line would show twice.
    if (decided.turn) await appendTurn(this.ctx, convRef(conv), { ...decided.turn, at }, this.tickets.retentionMs);
    // Its full retention, its open mark: a compare-and-set, since a drain elsewhere may already be
    // recording its posts on it. (A crash before this: the opening's own writes do the same.)
    await this.tickets.update(ticket.id, (t) => ({ ...t }));
    await this.deliver(intents);
    // Its round-robin offer right away rather than at the next sweep, and its e-mail (owed above) sent.
    await this.hours.opened(ticket.id).catch((err: unknown) => {
      this.ctx.log.error({ err, ticket: ticket.id }, 'handoff hours: a new ticket could not be offered or e-mailed');
    });
    return undefined;
  }

  /** Claim button: exactly one agent wins (compare-and-set on the ticket); the others are told who. */
  async claim(inv: Invocation, ticketId: string): Promise<void> {
    // An agent who claims is on the round-robin roster from then on.
    if (await this.act(inv, ticketId, { kind: 'claim' }))
      await this.hours.roster(inv.tenant).join(inv.surface.name, inv.actor);
  }

  /** Release: the claimer hands the ticket back to the queue; the user is told someone else will pick it up. */
  async release(inv: Invocation, ticketId: string): Promise<void> {
    await this.act(inv, ticketId, { kind: 'release' });
  }

  /** Take over: asks the pressing agent to confirm (the claimer is named), nothing changes yet. */
  async askTakeOver(inv: Invocation, ticketId: string): Promise<void> {
    const t = await this.tickets.load(ticketId);
    if (!t) return void (await inv.reply({ text: 'This ticket no longer exists.' }, { ephemeral: true }));
    const refused = refusalOf('takeOver', t, await whoIs(this.ctx, inv, { action: 'takeOver', ticket: t }));
    if (refused) return void (await inv.reply({ text: refused.refusal }, { ephemeral: true }));
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
    const from = cut < 0 ? '' : value.slice(cut + 1);
    const taken = await this.act(inv, ticketId, { kind: 'takeOver', from });
    if (taken?.reply) await inv.reply({ text: taken.reply }, { ephemeral: true }).catch(() => undefined);
  }

  /**
   * Close (claimer or admin) or Cancel (asker or admin): the thread goes back to the bot, both sides
   * are told, the user's Cancel button goes, and after a close the user is asked for a rating.
   */
  async end(ticketId: string, how: 'closed' | 'cancelled', inv: Invocation): Promise<boolean> {
    return (await this.act(inv, ticketId, { kind: how === 'closed' ? 'close' : 'cancel' })) !== undefined;
  }

  /** A rating (`ticket:score`; the survey's with a comment): the asker, once; on the ticket and in the figures. */
  async rate(inv: Invocation, value: string, comment?: string): Promise<void> {
    const [ticketId = '', raw = ''] = value.split(':');
    // Answered on the interaction, before the notices (a press after a restart finds the rating
    // given and is thanked again), so not an outbox notice.
    await this.act(inv, ticketId, { kind: 'rate', score: Number(raw), comment }, async (d) => {
      const thanks: OutMessage = { text: d.reply ?? '' };
      if (inv.update) await quietly(this.ctx, () => inv.update!(thanks), 'replacing the rating prompt');
      else await inv.reply(thanks, { ephemeral: true });
    });
  }

  /**
   * A message in the user's thread while in handoff (the asker's, or a participant's question):
   * relayed word for word to the ticket thread, through the outbox under the message's id, so a
   * replayed queue item neither loses nor doubles it (and it waits for a ticket message not posted yet).
   */
  async relayFromUser(
    ticket: Ticket,
    actor: Actor,
    surface: SurfacePort,
    text: string,
    attachments: Attachment[],
    msgId: string,
  ): Promise<void> {
    const stableId = `from-user:${encodeURIComponent(msgId)}`;
    if (await this.notices.redo(ticket.id, stableId)) return;
    const by = { actor, surface, tenant: ticketConv(ticket).tenant };
    const who = await whoIs(this.ctx, by, { action: 'forward', ticket });
    await this.apply(ticket.id, { kind: 'forward', text, files: attachments.map((a) => a.name) }, who, stableId);
  }

  /**
   * A message in a ticket thread: the claiming agent's reaches the user; a "note:" of theirs, and
   * other agents', stays with the team (marked so its writer knows). Anyone who is not an agent is
   * told, ephemerally, that it reached no one. Through the outbox under the platform message id: a
   * redelivered event is carried out once.
   */
  async relayFromAgent(ticketId: string, msg: IncomingMessage, surface: SurfacePort): Promise<void> {
    const stableId = `from-agent:${encodeURIComponent(placeKey(msg.place))}:${encodeURIComponent(msg.id)}`;
    if (await this.notices.redo(ticketId, stableId)) return;
    const ticket = await this.tickets.load(ticketId);
    if (!ticket) return;
    const holder = ticket.status === 'claimed' && ticket.claimedBy?.id === msg.actor.id;
    const step: HandoffStep =
      holder && !NOTE_PREFIX.test(msg.text)
        ? { kind: 'relay', text: msg.text, files: msg.attachments.map((a) => a.name) }
        : { kind: 'note', text: msg.text };
    const who = await whoIs(this.ctx, { actor: msg.actor, surface, tenant: msg.tenant }, { action: step.kind, ticket });
    const done = await this.apply(ticketId, step, who, stableId);
    if ('refusal' in done && !done.quiet) await surface.notify(msg.place, msg.actor, { text: done.refusal });
  }

  /**
   * The periodic sweep of waiting tickets (what is due: sweep.ts). Each step is a state machine
   * event of the bridge, so a restart or a second instance that read the same ticket never repeats one.
   */
  async sweepUnclaimed(): Promise<void> {
    // Each ticket by its asker's tenant's office (its hours, its e-mail), read once per tenant this pass.
    const offices = new OfficeBook(this.ctx);
    // Once per start: open tickets from before the index join it (the sweep reads only the index).
    await this.tickets.indexTenantsOnce();
    for (const id of await this.tickets.openIds()) {
      try {
        const ticket = await this.tickets.load(id);
        if (ticket?.status !== 'open') continue;
        const { office } = await offices.forTicket(ticket);
        // The last reminder of a ticket also owes its e-mail when its office e-mails tickets.
        const mails = this.hours.mailsTickets(office);
        const toldLate = (await this.ctx.store.get(ticketKeys.late(id))) !== undefined;
        for (const step of dueSteps(ticket, this.ctx.now(), sweepTiming(office), toldLate))
          await this.apply(id, step.kind === 'remind' && step.to === 'agents' ? { ...step, mails } : step, BRIDGE);
      } catch (err) {
        this.ctx.log.error({ err, ticket: id }, 'handoff: sweeping a waiting ticket failed');
      }
    }
    // Then what the hours owe: response targets, offers; and the e-mails owed meanwhile are sent.
    await this.hours.sweep(offices);
  }

  /**
   * A bridge step of handoff around the clock (hours/steps.ts), decided like every event, stored with
   * its notices in one atomic step, then carried out. The ticket after it, or undefined if it no longer applied.
   */
  private async applyHours(ticketId: string, step: HoursStep): Promise<Ticket | undefined> {
    const done = await this.commit(ticketId, (t) => decide(t, step, BRIDGE));
    return 'refusal' in done ? undefined : done.ticket;
  }

  /** A person's button or command on a ticket: a refusal is told to them, ephemerally. */
  private async act(
    inv: Invocation,
    ticketId: string,
    step: HandoffStep,
    first?: (d: Decision) => Promise<void>,
  ): Promise<Decision | undefined> {
    // Whether they are its agents depends on the ticket (the channel it was posted to), so decided on it as read.
    const who = (ticket: Ticket) => whoIs(this.ctx, inv, { action: step.kind, ticket });
    const done = await this.apply(ticketId, step, who, undefined, first);
    if (!('refusal' in done)) return done;
    await inv.reply({ text: done.refusal }, { ephemeral: true });
    return undefined;
  }

  /**
   * The one path of every ticket change: load, decide, store the ticket with its notices in one
   * atomic step (retried when the ticket changed meanwhile), then carry the notices out (`first`:
   * what must not wait for them).
   */
  private async apply(
    ticketId: string,
    step: HandoffStep,
    who: Who | ((t: Ticket) => Promise<Who>),
    stableId?: string,
    first?: (d: Decision) => Promise<void>,
  ): Promise<Decision | Refused> {
    const event = { ...step, at: this.ctx.now() } as HandoffEvent;
    const decideOn = async (t: Ticket) => decide(t, event, typeof who === 'function' ? await who(t) : who);
    return this.commit(ticketId, decideOn, { at: event.at, stableId, first });
  }

  /** The compare-and-set loop under `apply` (and the hours' steps): `decideOn` sees the ticket as read. */
  private async commit(
    ticketId: string,
    decideOn: (t: Ticket) => Decision | Refused | Promise<Decision | Refused>,
    opts: { at?: number; stableId?: string; first?: (d: Decision) => Promise<void> } = {},
  ): Promise<Decision | Refused> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const { ticket, raw } = await this.tickets.read(ticketId);
      if (!ticket) return { refusal: 'This ticket no longer exists.' };
      const decided = await decideOn(ticket);
      if ('refusal' in decided) return decided;
      const intents = noticeIntents(decided.notices, opts.stableId);
      if (!(await this.tickets.write(ticketId, raw, decided.ticket, intents))) continue;
      const at = opts.at ?? this.ctx.now();
      if (decided.turn)
        await appendTurn(this.ctx, ticketConv(ticket), { ...decided.turn, at }, this.tickets.retentionMs);
      if (ends(ticket, decided.ticket)) await this.tickets.clearMarks(decided.ticket);
      await opts.first?.(decided);
      await this.deliver(intents);
      return decided;
    }
    this.ctx.log.warn({ ticket: ticketId }, 'handoff: a ticket change lost every compare-and-set');
    return BUSY;
  }

  private async deliver(intents: Parameters<TicketNotices['deliver']>[0]): Promise<void> {
    await this.notices.deliver(intents);
    await this.callOffUnposted();
  }

  /** A ticket message the outbox gave up posting: the bridge cancels the ticket, and the user is told. */
  private async callOffUnposted(): Promise<void> {
    for (const id of this.notices.unposted()) {
      await this.apply(id, { kind: 'cancel', unreachable: true }, BRIDGE).catch((err: unknown) => {
        this.ctx.log.error({ err, ticket: id }, 'handoff: calling off an unposted ticket failed');
      });
    }
  }
}
