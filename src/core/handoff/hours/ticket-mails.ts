/**
 * A ticket's e-mails as the notice outbox carries them out: the `mail` notice a ticket change owes
 * (decided with the change, stored with it in one atomic step) becomes a mail owed to the mail outbox
 * under a stable id, so a replayed notice owes it once and the mail outbox sends it once.
 */
import { MailOutbox } from '../../../mail/outbox';
import type { CoreContext } from '../../context';
import { memorySlot } from '../../memory';
import { readTranscript } from '../../conversations/transcript';
import { ticketConv, type Ticket } from '../model';
import { TicketStore } from '../tickets';
import { leadOf } from '../ticket-view';
import type { Office } from './office';
import { OfficeBook } from './ticket-office';
import { describeOpening, nextOpening } from './office-hours';
import { type TicketMailReason, ticketMail } from './ticket-mail';

/** One mail outbox per core context (in its memory), built on first use with the context's mailer as it is then. */
const OUTBOX = memorySlot<MailOutbox>('mail outbox');

export function mailOutboxOf(ctx: CoreContext): MailOutbox {
  return ctx.memory.get(
    OUTBOX,
    () =>
      new MailOutbox({
        store: ctx.store,
        log: ctx.log,
        ...(ctx.mailer ? { mailer: ctx.mailer } : {}),
        instanceId: ctx.config.instanceId,
        now: () => ctx.now(),
        retentionMs: ctx.config.retentionMs ?? 90 * 24 * 3600 * 1000,
        stillWanted: (id) => ticketMailWanted(ctx, id),
      }),
  );
}

/** Whether tickets are e-mailed: SMTP configured and a TalkToHumanEmail (or HANDOFF_EMAIL) known. */
export function mailsTickets(ctx: CoreContext, office: Office): boolean {
  return mailOutboxOf(ctx).enabled && office.ticketEmail !== undefined;
}

export const ticketMailId = (ticketId: string, reason: TicketMailReason): string => `ticket:${ticketId}:${reason}`;

/**
 * Whether a ticket's reason to be e-mailed still holds. "Still unclaimed" stops holding once the ticket
 * is claimed or ended (a mail that waited for a retry or a restart meanwhile is not sent late). The
 * after-hours mail always holds: the user was told their request went there.
 */
const reasonHolds = (reason: TicketMailReason, t: Ticket | undefined): boolean =>
  reason !== 'unclaimed' || t?.status === 'open';

/** The mail outbox's question before a send, for a mail owed under `ticketMailId`. */
async function ticketMailWanted(ctx: CoreContext, mailId: string): Promise<boolean> {
  // Only "unclaimed" can stop holding: the ticket is read for that one alone.
  const unclaimed = /^ticket:(.+):unclaimed$/.exec(mailId);
  return !unclaimed || reasonHolds('unclaimed', await new TicketStore(ctx).load(unclaimed[1]!));
}

/** Owes the ticket's e-mail for `reason` (once for life: a second call is a no-op). */
export async function oweTicketMail(ctx: CoreContext, t: Ticket, reason: TicketMailReason): Promise<void> {
  // The office the ticket opened in, while it is still its asker's tenant's: its TalkToHumanEmail,
  // its hours, its clock. One that is gone (disconnected, left) has the ticket mailed to no one.
  const { office, gone } = await new OfficeBook(ctx).forTicket(t);
  if (gone) {
    ctx.log.info({ ticket: t.id, reason }, 'handoff: the ticket’s office is gone: not e-mailed');
    return;
  }
  const outbox = mailOutboxOf(ctx);
  const to = office.ticketEmail;
  const id = ticketMailId(t.id, reason);
  if (!to || !outbox.enabled || (await outbox.isOwed(id))) return;
  if (!reasonHolds(reason, t)) return; // claimed before its notice was carried out
  const back = nextOpening(office.hours, t.createdAt);
  const transcript = await readTranscript(ctx.store, ticketConv(t));
  const mail = ticketMail({
    ticket: t,
    lead: await leadOf(ctx, t, transcript),
    transcript,
    reason,
    to,
    ...(back !== undefined && t.afterHours ? { backAt: describeOpening(back, office.timeZone, t.createdAt) } : {}),
  });
  if (await outbox.owe(id, mail)) ctx.log.info({ ticket: t.id, reason }, 'handoff: ticket e-mail owed');
}
