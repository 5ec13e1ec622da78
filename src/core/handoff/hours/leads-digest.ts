/**
 * Sends the day's leads once per day per office across instances: each office (the tenants answered
 * by one chatbot; those on the environment's default share its digest) gets the leads of its own
 * tickets (a ticket's office is its asker's tenant's) at its digest hour (`/chatbot hours leads`, else
 * LEADS_DIGEST_HOUR) in its own time zone, to its
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
import { recordedTenant, tenantKey } from '../../tenants/tenant';
import { OfficeBook } from './ticket-office';

export interface LeadsDigestDeps {
  ctx: CoreContext;
  outbox: MailOutbox;
  tickets(): Promise<Ticket[]>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
}

const EMPTY_DAY_TTL_MS = 3 * 24 * 3600 * 1000;
/** How long the offices found by the last walk over the tickets stand in for a new walk. */
const WALK_EVERY_MS = 15 * 60 * 1000;

/** The offices the last walk found (a place of each of their tenants), so a check whose digests are all done walks nothing. */
const LAST_WALK = memorySlot<{ at: number; offices: Place[][] }>('leads digest: the last walk');

const emptyDayKey = (id: string) => `leadsdigest-empty:${id.slice('leads:'.length)}`;

interface Due {
  day: DigestDay;
  id: string;
  to: string;
}

/**
 * An office's due day and digest id, when it has an address to mail its leads to. `places`: one of each
 * of its tenants (they share the chatbot, so its TimeZone and EmailForDailyLeads); the hour is the
 * earliest any of them set (`/chatbot hours leads`), else LEADS_DIGEST_HOUR.
 */
async function dueOf(ctx: CoreContext, book: OfficeBook, places: Place[]): Promise<Due | undefined> {
  const offices = await Promise.all(places.map((p) => book.of(p)));
  const first = offices[0];
  if (first?.chatbotId === undefined || !first.office.leadsEmail) return undefined;
  const hour = Math.min(...offices.map((o) => o.office.digestHour));
  const day = dueDigestDay(ctx.now(), first.office.timeZone, hour);
  return { day, id: digestId(ctx, first.chatbotId, day.date), to: first.office.leadsEmail };
}

async function done(deps: LeadsDigestDeps, id: string): Promise<boolean> {
  return (await deps.outbox.isOwed(id)) || (await deps.ctx.store.get(emptyDayKey(id))) !== undefined;
}

/** Owes the due digest of each office unless it was owed before. True when this call owed one. */
export async function checkLeadsDigest(deps: LeadsDigestDeps): Promise<boolean> {
  const { ctx, outbox } = deps;
  if (!outbox.enabled) return false;
  const book = new OfficeBook(ctx);
  const last = ctx.memory.get(LAST_WALK, () => ({ at: Number.NEGATIVE_INFINITY, offices: [] as Place[][] }));
  if (ctx.now() - last.at < WALK_EVERY_MS && (await allDone(deps, book, last.offices))) return false;
  const offices = await officesOf(book, await deps.tickets());
  last.at = ctx.now();
  last.offices = [...offices.values()].map((g) => [...g.places.values()]);
  let owed = false;
  for (const group of offices.values()) {
    const due = await dueOf(ctx, book, [...group.places.values()]);
    if (due && !(await done(deps, due.id))) owed = (await oweDigest(deps, due, group.tickets)) || owed;
  }
  return owed;
}

/** Each ticket to its office: the chatbot of its asker's tenant (with a place of each of the office's tenants). */
async function officesOf(book: OfficeBook, tickets: Ticket[]) {
  const offices = new Map<string, { places: Map<string, Place>; tickets: Ticket[] }>();
  for (const ticket of tickets) {
    const o = await book.of(ticket.userPlace);
    // A tenant no chatbot serves (not connected, no default) has no office whose mail its leads could join.
    if (o.chatbotId === undefined) continue;
    const group = offices.get(o.chatbotId) ?? { places: new Map<string, Place>(), tickets: [] };
    group.places.set(tenantKey(recordedTenant(ticket.userPlace)), ticket.userPlace);
    group.tickets.push(ticket);
    offices.set(o.chatbotId, group);
  }
  return offices;
}

async function allDone(deps: LeadsDigestDeps, book: OfficeBook, offices: Place[][]): Promise<boolean> {
  for (const places of offices) {
    const due = await dueOf(deps.ctx, book, places);
    if (due && !(await done(deps, due.id))) return false;
  }
  return true;
}

/** One office's digest of its day, from its own tickets only. */
async function oweDigest(deps: LeadsDigestDeps, due: Due, tickets: Ticket[]): Promise<boolean> {
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
