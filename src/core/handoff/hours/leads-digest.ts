/**
 * Sends the day's leads once per day across instances: the mail is owed in the outbox under the
 * day's id, which the store lets exactly one instance write (the lock), and the outbox sends it once.
 * Checked every minute; a digest whose hour passed while the bridge was down goes out on the first
 * check after the restart.
 */
import type { MailOutbox } from '../../../mail/outbox';
import type { CoreContext } from '../../context';
import type { LeadSummary } from '../lead';
import type { Ticket } from '../model';
import { digestMail, dueDigestDay } from './digest';
import { ALWAYS_OPEN, readOffice } from './office';

export interface LeadsDigestDeps {
  ctx: CoreContext;
  outbox: MailOutbox;
  tickets(): Promise<Ticket[]>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
}

const emptyDayKey = (date: string) => `leadsdigest-empty:${date}`;
const EMPTY_DAY_TTL_MS = 3 * 24 * 3600 * 1000;

/** Owes the due day's digest unless it was owed before. True when this call owed it. */
export async function checkLeadsDigest(deps: LeadsDigestDeps): Promise<boolean> {
  const { ctx, outbox } = deps;
  if (!outbox.enabled) return false;
  const office = await readOffice(ctx);
  if (!office.leadsEmail) return false;
  const day = dueDigestDay(ctx.now(), office.timeZone, (ctx.config.office ?? ALWAYS_OPEN).digestHour);
  const id = `leads:${day.date}`;
  if ((await outbox.isOwed(id)) || (await ctx.store.get(emptyDayKey(day.date))) !== undefined) return false;
  const tickets = (await deps.tickets())
    .filter((t) => t.createdAt >= day.from && t.createdAt < day.to)
    .sort((a, b) => a.createdAt - b.createdAt);
  if (tickets.length === 0) {
    // A day without tickets sends nothing; remembered so the check does not walk the tickets again.
    await ctx.store.set(emptyDayKey(day.date), 1, EMPTY_DAY_TTL_MS);
    return false;
  }
  const entries = await Promise.all(tickets.map(async (ticket) => ({ ticket, lead: await deps.leadOf(ticket) })));
  const owed = await outbox.owe(id, digestMail(day, entries, office.leadsEmail));
  if (owed) ctx.log.info({ day: day.date, tickets: tickets.length }, "leads digest: the day's leads are e-mailed");
  return owed;
}
