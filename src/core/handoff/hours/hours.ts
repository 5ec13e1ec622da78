/**
 * Handoff around the clock, as the periodic sweep and the ticket's opening see it: the e-mails a
 * ticket owes (after hours; still unclaimed after its last reminder), the response target's warning
 * and escalation, round-robin offers, and the day's leads. Every ticket change goes through the
 * handoff's one change path (`apply`, with the outbox); every e-mail through the mail outbox, owed
 * once under a stable id, so a restart or a second instance neither loses nor doubles one.
 */
import { MailOutbox } from '../../../mail/outbox';
import type { CoreContext } from '../../context';
import { readTranscript } from '../../conversations/transcript';
import type { SurfacePort } from '../../surface';
import { handoffTarget } from '../channel';
import type { LeadSummary } from '../lead';
import { MAX_REMINDERS, type Ticket } from '../model';
import { duration } from '../render';
import { checkLeadsDigest } from './leads-digest';
import { ALWAYS_OPEN, type Office, readOffice } from './office';
import { describeOpening, isOpen, nextOpening, officeTimeBetween } from './office-hours';
import { targetStep } from './response-target';
import { Roster } from './roster';
import type { HoursStep } from './steps';
import { type TicketMailReason, ticketMail } from './ticket-mail';

/** An after-hours ticket is e-mailed once its message is posted (its link goes in), or after this. */
const MAIL_LINK_WAIT_MS = 30_000;

export interface HoursDeps {
  ctx: CoreContext;
  /** Open and claimed tickets. */
  inProgress(): Promise<Ticket[]>;
  load(id: string): Promise<Ticket | undefined>;
  allTickets(): Promise<Ticket[]>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
  /** The handoff's one change path for a bridge step; the ticket after it, or undefined when it no longer applied. */
  apply(ticketId: string, step: HoursStep): Promise<Ticket | undefined>;
  /** The surface and channel tickets of `ticket` go to. */
  handoffSurfaceOf(ticket: Ticket): SurfacePort | undefined;
}

export class HandoffHours {
  readonly roster: Roster;
  private mailOutbox: MailOutbox | undefined;

  constructor(private readonly deps: HoursDeps) {
    this.roster = new Roster(deps.ctx.store, () => deps.ctx.now());
  }

  /** Built on first use, with the context's mailer as it is then (a test may hand one in after start). */
  get outbox(): MailOutbox {
    const { ctx } = this.deps;
    this.mailOutbox ??= new MailOutbox({
      store: ctx.store,
      log: ctx.log,
      ...(ctx.mailer ? { mailer: ctx.mailer } : {}),
      instanceId: ctx.config.instanceId,
      now: () => ctx.now(),
      retentionMs: ctx.config.retentionMs ?? 90 * 24 * 3600 * 1000,
    });
    return this.mailOutbox;
  }

  private get ctx(): CoreContext {
    return this.deps.ctx;
  }

  private get config() {
    return this.ctx.config.office ?? ALWAYS_OPEN;
  }

  readOffice(): Promise<Office> {
    return readOffice(this.ctx);
  }

  /** Office time between two instants (all of it when always open): reminders and the claim timeout count this. */
  async elapsed(): Promise<(t0: number, t1: number) => number> {
    const office = await this.readOffice();
    return (t0, t1) => officeTimeBetween(office.hours, t0, t1);
  }

  /** Whether e-mail goes out for tickets: SMTP configured and a TalkToHumanEmail (or HANDOFF_EMAIL) known. */
  mailsTickets(office: Office): boolean {
    return this.outbox.enabled && office.ticketEmail !== undefined;
  }

  /** A new ticket: e-mailed right away when after hours, offered right away with round-robin (the sweep does both again). */
  async opened(ticketId: string): Promise<void> {
    const ticket = await this.deps.load(ticketId);
    if (!ticket || (ticket.status !== 'open' && ticket.status !== 'claimed')) return;
    const office = await this.readOffice();
    await this.mails(ticket, office);
    await this.offer(ticket, office);
    await this.outbox.drain();
  }

  /** Every in-progress ticket's e-mails, target and offers; then the outbox sends what is owed. */
  async sweep(): Promise<void> {
    const office = await this.readOffice();
    for (const ticket of await this.deps.inProgress()) {
      try {
        await this.mails(ticket, office);
        await this.target(ticket, office);
        await this.offer(ticket, office);
      } catch (err) {
        this.ctx.log.error({ err, ticket: ticket.id }, 'handoff hours: sweeping a ticket failed');
      }
    }
    await this.outbox.drain();
  }

  /** The day's leads, when due (once per day across instances). */
  async digest(): Promise<void> {
    await checkLeadsDigest({
      ctx: this.ctx,
      outbox: this.outbox,
      tickets: () => this.deps.allTickets(),
      leadOf: (t) => this.deps.leadOf(t),
    });
    await this.outbox.drain();
  }

  /** What `/handoff queue` and App Home add: who is away, and e-mails the SMTP server has not taken yet. */
  async queueLines(): Promise<string[]> {
    const lines: string[] = [];
    const away = (await this.roster.entries()).filter((e) => e.away).map((e) => e.actor.name);
    if (away.length > 0) lines.push(`Away: ${away.join(', ')}`);
    const now = this.ctx.now();
    for (const f of await this.outbox.failures()) {
      lines.push(
        f.gaveUp
          ? `E-mail not sent (given up after ${f.tries} tries): "${f.subject}": ${f.error}`
          : `E-mail not sent yet: "${f.subject}": ${f.error} (try ${f.tries}, next in ${duration(Math.max(0, f.nextAt - now))})`,
      );
    }
    return lines;
  }

  private async mails(t: Ticket, office: Office): Promise<void> {
    if (!this.mailsTickets(office) || !office.ticketEmail) return;
    if (t.afterHours && (t.root || this.ctx.now() - t.createdAt >= MAIL_LINK_WAIT_MS))
      await this.oweTicketMail(t, 'afterhours', office.ticketEmail, office);
    if (t.status === 'open' && (t.reminders ?? 0) >= MAX_REMINDERS)
      await this.oweTicketMail(t, 'unclaimed', office.ticketEmail, office);
  }

  private async oweTicketMail(t: Ticket, reason: TicketMailReason, to: string, office: Office): Promise<void> {
    const id = `ticket:${t.id}:${reason}`;
    if (await this.outbox.isOwed(id)) return;
    const back = nextOpening(office.hours, t.createdAt);
    const mail = ticketMail({
      ticket: t,
      lead: await this.deps.leadOf(t),
      transcript: await readTranscript(this.ctx.store, t.convId),
      reason,
      to,
      ...(back !== undefined && t.afterHours ? { backAt: describeOpening(back, office.timeZone, t.createdAt) } : {}),
    });
    if (await this.outbox.owe(id, mail)) this.ctx.log.info({ ticket: t.id, reason }, 'handoff: ticket e-mail owed');
  }

  private async target(t: Ticket, office: Office): Promise<void> {
    const targetMs = this.config.firstReplyMs;
    if (targetMs === undefined || t.status !== 'claimed' || t.firstClaimedAt === undefined) return;
    const now = this.ctx.now();
    const elapsed = officeTimeBetween(office.hours, t.firstClaimedAt, now);
    const step = targetStep(t, targetMs, elapsed);
    if (step === 'warn')
      await this.deps.apply(t.id, { kind: 'warnTarget', at: now, leftMs: targetMs - elapsed, targetMs });
    if (step === 'escalate') {
      const surface = this.deps.handoffSurfaceOf(t);
      // Only HANDOFF_ESCALATE's ids of the ticket's own platform: the only group mention the bridge builds.
      const mentions = this.config.escalate
        .map((id) => surface?.mentionGroup?.(id))
        .filter((m): m is string => m !== undefined);
      await this.deps.apply(t.id, { kind: 'escalate', at: now, mentions, targetMs });
    }
  }

  private async offer(t: Ticket, office: Office): Promise<void> {
    if (this.config.assign !== 'round-robin' || t.status !== 'open') return;
    const now = this.ctx.now();
    // Nobody is offered a ticket while the office is closed: the first offer waits for the opening.
    if (!isOpen(office.hours, now)) return;
    const surface = this.deps.handoffSurfaceOf(t);
    if (!surface) return;
    // The handoff channel's people where the surface lists them (Slack), else who joined the roster.
    const place = t.root?.place ?? handoffTarget(this.ctx, t.userPlace);
    const members = place && (await surface.channelAgents?.(place).catch(() => undefined));
    const current = t.offered?.at(-1);
    const holder = (await this.roster.on(surface.name, members)).find((e) => e.key === current);
    const expired = t.offeredAt !== undefined && now - t.offeredAt >= this.config.offerMs;
    if (t.offeredTo && holder && !holder.away && !expired) return;
    const next = await this.roster.next(surface.name, {
      ...(current ? { after: current } : {}),
      skip: t.offered ?? [],
      ...(members ? { members } : {}),
    });
    // One agent available and already offered: their offer simply stands.
    if (!next || (next.key === current && holder && !holder.away)) return;
    const changed = await this.deps.apply(t.id, {
      kind: 'offer',
      at: now,
      to: next.actor,
      key: next.key,
      mention: surface.mention(next.actor),
      offerMs: this.config.offerMs,
      ...(t.offeredAt !== undefined ? { previousAt: t.offeredAt } : {}),
    });
    if (!changed) return;
    // Told privately too (not an outbox notice: a lost one is made up for by the mention in the thread).
    const where = changed.thread ?? changed.root?.place;
    if (where) {
      await surface
        .notify(where, next.actor, {
          text: `A handoff ticket is offered to you: ${t.user.name} is waiting. Press Claim on it within ${Math.round(this.config.offerMs / 1000)} s${changed.ticketLink ? `: ${changed.ticketLink}` : '.'}`,
        })
        .catch((err: unknown) => this.ctx.log.warn({ err, ticket: t.id }, 'handoff: telling the offered agent failed'));
    }
  }
}
