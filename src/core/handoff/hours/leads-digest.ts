/**
 * Sends the day's leads once per day per office across instances: each office (the tenants answered
 * by one chatbot; those on the environment's default share its digest) gets the leads of its own
 * tickets (a ticket's office is its asker's tenant's) at its digest hour (`/chatbot hours leads`, else
 * LEADS_DIGEST_HOUR) in its own time zone, to its own EmailForDailyLeads. Each mail is owed in the
 * outbox under the office's and the day's id, which the store lets exactly one instance write (the
 * lock), and the outbox sends it once. Checked every minute; a digest whose hour passed while the
 * bridge was down goes out on the first check after it.
 *
 * A check reads what is due (leads-index.ts): the tenants with leads not yet digested whose look is
 * due, and of each only those leads, so an idle tenant costs a check nothing.
 */
import type { MailOutbox } from '../../../mail/outbox';
import type { Tenant } from '../../../state/tenant-store';
import type { CoreContext } from '../../context';
import { DEFAULT_RETENTION_MS } from '../../conversations/transcript';
import type { Place } from '../../surface';
import type { LeadSummary } from '../lead';
import type { Ticket } from '../model';
import { type DigestDay, digestMail, dueDigestDay } from './digest';
import { DIGESTS_INDEX, digestTenant, LEADS_PER_CHECK, leadsIndex, settleTenant } from './leads-index';
import { digestId } from './mail-owner';
import { tenantKey } from '../../tenants/tenant';
import { OfficeBook } from './ticket-office';

export interface LeadsDigestDeps {
  ctx: CoreContext;
  outbox: MailOutbox;
  load(id: string): Promise<Ticket | undefined>;
  leadOf(ticket: Ticket): Promise<LeadSummary>;
}

const retentionOf = (ctx: CoreContext): number => ctx.config.retentionMs ?? DEFAULT_RETENTION_MS;

/** Tenants looked at per check at most (the rest are due on the next). */
const TENANTS_PER_CHECK = 1_000;

/** The due tenants of one office (one chatbot; a tenant no chatbot serves is an office alone). */
interface OfficeGroup {
  tenants: Tenant[];
}

/** A place of the tenant, as the office book reads it (a tenant's office is its workspace's). */
const placeOf = (t: Tenant): Pick<Place, 'surface' | 'workspace'> => ({ surface: t.surface, workspace: t.id });

/** Owes the due digest of each office with due leads unless it was owed before. True when this call owed one. */
export async function checkLeadsDigest(deps: LeadsDigestDeps): Promise<boolean> {
  const { ctx } = deps;
  const now = ctx.now();
  const due = await ctx.store.due(DIGESTS_INDEX, now, TENANTS_PER_CHECK);
  if (due.length === 0) return false;
  const book = new OfficeBook(ctx);
  const offices = new Map<string, OfficeGroup>();
  for (const { member } of due) {
    const tenant = digestTenant(member);
    if (!tenant) {
      await ctx.store.unschedule(DIGESTS_INDEX, member);
      continue;
    }
    const office = await book.of(placeOf(tenant)).catch((err: unknown) => {
      ctx.log.error({ err, tenant: tenantKey(tenant) }, "leads digest: a tenant's office could not be read");
      return undefined;
    });
    // Looked at again on the next beat; the other tenants' digests go on.
    if (!office) {
      await settleTenant(ctx.store, tenant, now, retentionOf(ctx));
      continue;
    }
    const { chatbotId } = office;
    const key = chatbotId !== undefined ? `chatbot:${chatbotId}` : `alone:${tenantKey(tenant)}`;
    const group = offices.get(key) ?? { tenants: [] };
    group.tenants.push(tenant);
    offices.set(key, group);
  }
  let owed = false;
  for (const group of offices.values()) {
    try {
      owed = (await digestOffice(deps, book, group.tenants, now)) || owed;
    } finally {
      for (const t of group.tenants) await settleTenant(ctx.store, t, now, retentionOf(ctx));
    }
  }
  return owed;
}

interface DayLead {
  tenant: Tenant;
  id: string;
}

/**
 * The leads of the office's due day, from each tenant's index; those of an earlier day are dropped
 * (that day's digest is past: a missed one is replaced by the next, as the hour comes round).
 */
async function leadsOfDay(deps: LeadsDigestDeps, tenants: Tenant[], day: DigestDay): Promise<DayLead[]> {
  const { store } = deps.ctx;
  const out: DayLead[] = [];
  for (const tenant of tenants) {
    for (const { member, dueAt } of await store.due(leadsIndex(tenant), day.to - 1, LEADS_PER_CHECK)) {
      if (dueAt < day.from) await store.unschedule(leadsIndex(tenant), member);
      else out.push({ tenant, id: member });
    }
  }
  return out;
}

/**
 * One office's digest of its due day (its hour the earliest of its due tenants', its time zone and
 * address its chatbot's), from its own leads only. Leads of the day stay indexed until the digest
 * is owed (an office with no address yet may set one before the day is past).
 */
async function digestOffice(deps: LeadsDigestDeps, book: OfficeBook, tenants: Tenant[], now: number) {
  const { ctx, outbox } = deps;
  const offices = await Promise.all(tenants.map((t) => book.of(placeOf(t))));
  const first = offices[0];
  if (!first) return false;
  const hour = Math.min(...offices.map((o) => o.office.digestHour));
  const day = dueDigestDay(now, first.office.timeZone, hour);
  const leads = await leadsOfDay(deps, tenants, day);
  const to = first.office.leadsEmail;
  if (!outbox.enabled || first.chatbotId === undefined || !to || leads.length === 0) return false;
  const id = digestId(ctx, first.chatbotId, day.date);
  const owed = !(await outbox.isOwed(id)) && (await oweDigest(deps, day, id, to, leads));
  // Owed by this check or an earlier one (another instance's): the day's leads are in it.
  if (owed || (await outbox.isOwed(id)))
    for (const lead of leads) await ctx.store.unschedule(leadsIndex(lead.tenant), lead.id);
  return owed;
}

async function oweDigest(deps: LeadsDigestDeps, day: DigestDay, id: string, to: string, leads: DayLead[]) {
  const { ctx, outbox } = deps;
  const tickets = (await Promise.all(leads.map((l) => deps.load(l.id))))
    .filter((t): t is Ticket => t !== undefined && !t.opening && t.createdAt >= day.from && t.createdAt < day.to)
    .sort((a, b) => a.createdAt - b.createdAt);
  // A day whose leads are all gone (expired, a stranded opening) sends nothing.
  if (tickets.length === 0) return false;
  const entries = await Promise.all(tickets.map(async (ticket) => ({ ticket, lead: await deps.leadOf(ticket) })));
  const owed = await outbox.owe(id, digestMail(day, entries, to, id));
  if (owed)
    ctx.log.info({ day: day.date, digest: id, tickets: tickets.length }, "leads digest: the day's leads are e-mailed");
  return owed;
}
