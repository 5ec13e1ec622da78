/**
 * Handoff around the clock, as the periodic sweep and the ticket's opening see it: the e-mails a
 * ticket owes are notices of its changes (ticket-mails.ts); here: the response target's warning
 * and escalation, round-robin offers, and the day's leads. Every ticket change goes through the
 * handoff's one change path (`apply`, with the outbox); every e-mail through the mail outbox, owed
 * once under a stable id, so a restart or a second instance neither loses nor doubles one.
 */
import type { MailOutbox } from '../../../mail/outbox';
import type { CoreContext } from '../../context';
import type { SurfacePort } from '../../surface';
import { handoffTarget } from '../channel';
import type { LeadSummary } from '../lead';
import type { Ticket } from '../model';
import { duration } from '../render';
import type { Tenant } from '../../../state/tenant-store';
import { tenantOf } from '../../tenants/tenant';
import { checkLeadsDigest } from './leads-digest';
import { mailConcerns } from './mail-owner';
import { ALWAYS_OPEN, type Office } from './office';
import { isOpen, officeTimeBetween } from './office-hours';
import { missedStep, targetStep } from './response-target';
import { rosterOf, type Roster } from './roster';
import type { HoursStep } from './steps';
import { mailOutboxOf, mailsTickets } from './ticket-mails';
import { OfficeBook, type TicketOffice } from './ticket-office';

export interface HoursDeps {
  ctx: CoreContext;
  /** Open and claimed tickets. */
  inProgress(): Promise<Ticket[]>;
  load(id: string): Promise<Ticket | undefined>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
  /** The handoff's one change path for a bridge step; the ticket after it, or undefined when it no longer applied. */
  apply(ticketId: string, step: HoursStep): Promise<Ticket | undefined>;
  /** The surface and channel tickets of `ticket` go to. */
  handoffSurfaceOf(ticket: Ticket): SurfacePort | undefined;
}

export class HandoffHours {
  constructor(private readonly deps: HoursDeps) {}

  /** The round-robin roster of `tenant`'s agents (its own part of the store: roster.ts). */
  roster(tenant: Tenant): Roster {
    return rosterOf(this.deps.ctx, tenant);
  }

  /** The mail outbox (one per core context; see ticket-mails.ts). */
  get outbox(): MailOutbox {
    return mailOutboxOf(this.deps.ctx);
  }

  private get ctx(): CoreContext {
    return this.deps.ctx;
  }

  private get config() {
    return this.ctx.config.office ?? ALWAYS_OPEN;
  }

  /** Whether e-mail goes out for tickets: SMTP configured and a TalkToHumanEmail (or HANDOFF_EMAIL) known. */
  mailsTickets(office: Office): boolean {
    return mailsTickets(this.ctx, office);
  }

  /** A new ticket: offered right away with round-robin (the sweep does it again); its e-mail, owed with it, sent. */
  async opened(ticketId: string): Promise<void> {
    const ticket = await this.deps.load(ticketId);
    if (!ticket || (ticket.status !== 'open' && ticket.status !== 'claimed')) return;
    await this.offer(ticket, await new OfficeBook(this.ctx).forTicket(ticket));
    await this.outbox.drain();
  }

  /**
   * Every in-progress ticket's target and offers, each by its tenant's office (`offices`: the pass's
   * book, shared with the reminders'); then the mail outbox sends what is owed.
   */
  async sweep(offices = new OfficeBook(this.ctx)): Promise<void> {
    for (const ticket of await this.deps.inProgress()) {
      try {
        const office = await offices.forTicket(ticket);
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
      load: (id) => this.deps.load(id),
      leadOf: (t) => this.deps.leadOf(t),
    });
    await this.outbox.drain();
  }

  /**
   * What `/handoff queue` and App Home add: who of `viewers`' agents (the viewing tenant's) is away,
   * and the e-mails of `viewers` the SMTP server has not taken yet.
   */
  async queueLines(viewers: readonly Tenant[]): Promise<string[]> {
    const lines: string[] = [];
    const away = new Map<string, string>();
    for (const viewer of viewers)
      for (const e of await this.roster(viewer).entries()) if (e.away) away.set(e.key, e.actor.name);
    if (away.size > 0) lines.push(`Away: ${[...away.values()].join(', ')}`);
    const now = this.ctx.now();
    for (const f of await this.outbox.failures()) {
      if (!(await mailConcerns(this.ctx, this.deps.load, f.id, viewers))) continue;
      lines.push(
        f.gaveUp
          ? `E-mail not sent (given up after ${f.tries} tries): "${f.subject}": ${f.error}`
          : `E-mail not sent yet: "${f.subject}": ${f.error} (try ${f.tries}, next in ${duration(Math.max(0, f.nextAt - now))})`,
      );
    }
    return lines;
  }

  private async target(t: Ticket, { office, kind, gone }: TicketOffice): Promise<void> {
    // The office's own target (`/handoff settings`), else HANDOFF_FIRST_REPLY_S.
    const targetMs = office.rules.firstReplyMs;
    if (targetMs === undefined || t.status !== 'claimed' || t.firstClaimedAt === undefined) return;
    const now = this.ctx.now();
    // Missed and still no reply: the ticket message's "missed by N min" is kept current, in steps.
    if (t.escalatedAt !== undefined && t.firstReplyAt === undefined) {
      const step = missedStep(now - t.escalatedAt);
      if (step > (t.missedShown ?? 0)) await this.deps.apply(t.id, { kind: 'missedBy', at: now, step });
      return;
    }
    const elapsed = officeTimeBetween(office.hours, t.firstClaimedAt, now);
    const step = targetStep(t, targetMs, elapsed);
    if (step === 'warn')
      await this.deps.apply(t.id, { kind: 'warnTarget', at: now, leftMs: targetMs - elapsed, targetMs });
    if (step === 'escalate') {
      const surface = this.deps.handoffSurfaceOf(t);
      // Only HANDOFF_ESCALATE's ids of the ticket's own platform: the only group mention the bridge builds.
      // They are the operator's people: only the operator's office, and only while the ticket's own
      // office is still the tenant's (a tenant that disconnected is no office of theirs).
      const mentions = (kind === 'operator' && !gone ? this.config.escalate : [])
        .map((id) => surface?.directory.mentionGroup(id))
        .filter((m): m is string => m !== undefined);
      await this.deps.apply(t.id, { kind: 'escalate', at: now, mentions, targetMs });
    }
  }

  private async offer(t: Ticket, { ctx, office }: TicketOffice): Promise<void> {
    if (office.rules.assign !== 'round-robin' || t.status !== 'open') return;
    const now = this.ctx.now();
    // Nobody is offered a ticket while the office is closed: the first offer waits for the opening.
    if (!isOpen(office.hours, now)) return;
    const surface = this.deps.handoffSurfaceOf(t);
    if (!surface) return;
    // The handoff channel's people where the surface lists them (Slack, Discord), else who joined the roster.
    const place = t.root?.place ?? handoffTarget(ctx, t.userPlace);
    const members = place && (await surface.directory.channelAgents(place).catch(() => undefined));
    // The agents of the channel the ticket is in: that tenant's roster and turn, not the asker's.
    const roster = this.roster(tenantOf(place ?? t.userPlace));
    const current = t.offered?.at(-1);
    const holder = (await roster.on(surface.name, members)).find((e) => e.key === current);
    const expired = t.offeredAt !== undefined && now - t.offeredAt >= office.rules.offerMs;
    if (t.offeredTo && holder && !holder.away && !expired) return;
    const next = await roster.next(surface.name, {
      ...(current ? { after: current } : {}),
      skip: t.offered ?? [],
      ...(members ? { members } : {}),
    });
    // One agent available and already offered: their offer simply stands.
    if (!next || (next.key === current && holder && !holder.away)) return;
    // Mentioned in the ticket thread and told privately, both owed with the offer in one step.
    await this.deps.apply(t.id, {
      kind: 'offer',
      at: now,
      to: next.actor,
      key: next.key,
      mention: surface.mention(next.actor),
      offerMs: office.rules.offerMs,
      ...(t.offeredAt !== undefined ? { previousAt: t.offeredAt } : {}),
    });
  }
}
