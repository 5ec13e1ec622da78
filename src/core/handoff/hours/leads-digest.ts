/**
 * Sends the day's leads once per day per office across instances: each office (the tenants answered
 * by one chatbot; those on the environment's default share its digest) gets the leads of its own
 * tickets (a ticket's office is its asker's tenant's) at the digest hour in its own time zone, to its
 * own EmailForDailyLeads. Each mail is owed in the outbox under the office's and the day's id, which
 * the store lets exactly one instance write (the lock), and the outbox sends it once. Checked every
 * minute; a digest whose hour passed while the bridge was down goes out on the first check after it.
 */
import type { MailOutbox } from '../../../mail/outbox';
import type { CoreContext } from '../../context';
import { memorySlot } from '../../memory';
import type { Place } from '../../surface';
import type { LeadSummary } from '../lead';
import type { Ticket } from '../model';
import { type DigestDay, digestMail, dueDigestDay } from './digest';
import { digestId } from './mail-owner';
import { ALWAYS_OPEN } from './office';
import { OfficeBook, type TicketOffice } from './ticket-office';

export interface LeadsDigestDeps {
  ctx: CoreContext;
  outbox: MailOutbox;
  tickets(): Promise<Ticket[]>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
}

const EMPTY_DAY_TTL_MS = 3 * 24 * 3600 * 1000;
/** How long the offices found by the last walk over the tickets stand in for a new walk. */
const WALK_EVERY_MS = 15 * 60 * 1000;

/** The offices the last walk found (a tenant of each), so a check whose digests are all done walks nothing. */
const LAST_WALK = memorySlot<{ at: number; offices: Place[] }>('leads digest: the last walk');

const emptyDayKey = (id: string) => `leadsdigest-empty:${id.slice('leads:'.length)}`;

/** The office's due day and digest id, when it has an address to mail its leads to. */
function dueOf(ctx: CoreContext, o: TicketOffice): { day: DigestDay; id: string; to: string } | undefined {
  if (o.chatbotId === undefined || !o.office.leadsEmail) return undefined;
  const day = dueDigestDay(ctx.now(), o.office.timeZone, (ctx.config.office ?? ALWAYS_OPEN).digestHour);
  return { day, id: digestId(ctx, o.chatbotId, day.date), to: o.office.leadsEmail };
}

async function done(deps: LeadsDigestDeps, id: string): Promise<boolean> {
  return (await deps.outbox.isOwed(id)) || (await deps.ctx.store.get(emptyDayKey(id))) !== undefined;
}

/** Owes the due digest of each office unless it was owed before. True when this call owed one. */
export async function checkLeadsDigest(deps: LeadsDigestDeps): Promise<boolean> {
  const { ctx, outbox } = deps;
  if (!outbox.enabled) return false;
  const book = new OfficeBook(ctx);
  const last = ctx.memory.get(LAST_WALK, () => ({ at: Number.NEGATIVE_INFINITY, offices: [] }));
  if (ctx.now() - last.at < WALK_EVERY_MS && (await allDone(deps, book, last.offices))) return false;
  // Each ticket to its office: the chatbot of its asker's tenant.
  const offices = new Map<string, { office: TicketOffice; place: Place; tickets: Ticket[] }>();
  for (const ticket of await deps.tickets()) {
    const o = await book.of(ticket.userPlace);
    // A tenant no chatbot serves (not connected, no default) has no office whose mail its leads could join.
    if (o.chatbotId === undefined) continue;
    const group = offices.get(o.chatbotId) ?? { office: o, place: ticket.userPlace, tickets: [] };
    group.tickets.push(ticket);
    offices.set(o.chatbotId, group);
  }
  last.at = ctx.now();
  last.offices = [...offices.values()].map((g) => g.place);
  let owed = false;
  for (const group of offices.values()) {
    const due = dueOf(ctx, group.office);
    if (due && !(await done(deps, due.id))) owed = (await oweDigest(deps, due, group.tickets)) || owed;
  }
  return owed;
}

async function allDone(deps: LeadsDigestDeps, book: OfficeBook, places: Place[]): Promise<boolean> {
  for (const place of places) {
    const due = dueOf(deps.ctx, await book.of(place));
    if (due && !(await done(deps, due.id))) return false;
  }
  return true;
}

/** One office's digest of its day, from its own tickets only. */
async function oweDigest(
  deps: LeadsDigestDeps,
  due: { day: DigestDay; id: string; to: string },
  tickets: Ticket[],
): Promise<boolean> {
  const { ctx, outbox } = deps;
  const { day, id } = due;
  const ofDay = tickets
    .filter((t) => t.createdAt >= day.from && t.createdAt < day.to)
    .sort((a, b) => a.createdAt - b.createdAt);
  if (ofDay.length === 0) {
    // A day without tickets sends nothing; remembered so the check does not walk the tickets again.
    await ctx.store.set(emptyDayKey(id), 1, EMPTY_DAY_TTL_MS);
    return false;
  }
  const entries = await Promise.all(ofDay.map(async (ticket) => ({ ticket, lead: await deps.leadOf(ticket) })));
  const owed = await outbox.owe(id, digestMail(day, entries, due.to, id));
  if (owed)
    ctx.log.info({ day: day.date, digest: id, tickets: ofDay.length }, "leads digest: the day's leads are e-mailed");
  return owed;
}
