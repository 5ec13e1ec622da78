/**
 * Where the day's leads digest finds its work, so that a check reads what is due, never every ticket
 * of every tenant (issue 38: with 1,000 installed workspaces, most of them idle, the old walk read
 * every ticket ever written every 15 minutes):
 *
 * - `digests`: a due index of the tenants that have leads not yet digested, due when their digest
 *   may be (a new lead makes its tenant due at once; a check moves it to the next quarter-hour while
 *   it still has leads, and drops it when it has none). Quarter-hours: every tenant of one office is
 *   due on the same beat (an office's hour is the earliest of its tenants'), and a digest hour is a
 *   quarter-hour in every time zone.
 * - `leads:<tenant>`: each tenant's leads (its askers' tickets) not yet digested, by when they were
 *   opened; a digest removes the ones it mailed, a check those whose day's digest is past.
 *
 * Both are written with every change of an open ticket (a crash between two changes loses nothing;
 * writing again is a no-op) and when the tenant sets its digest hour.
 */
import type { StateStore } from '../../../state/store';
import { type Tenant, TENANT_KINDS, tenantFor } from '../../../state/tenant-store';
import { tenantKey, tenantOf } from '../../tenants/tenant';
import type { Ticket } from '../model';

export const DIGESTS_INDEX = 'digests';
const QUARTER_HOUR_MS = 15 * 60 * 1000;
/** Leads read for one tenant's digest at most (a day's; the rest wait for the next check). */
export const LEADS_PER_CHECK = 10_000;

/** The due index of one tenant's leads not yet digested. */
export function leadsIndex(t: Tenant): string {
  return `leads:${t.surface}:${encodeURIComponent(t.id)}`;
}

/** The tenant a `digests` member names; undefined for one this version does not know. */
export function digestTenant(member: string): Tenant | undefined {
  const colon = member.indexOf(':');
  const surface = member.slice(0, colon);
  if (colon <= 0 || !(TENANT_KINDS as readonly string[]).includes(surface)) return undefined;
  return tenantFor(surface as Tenant['surface'], member.slice(colon + 1));
}

/** The next quarter-hour after `now`: when a tenant with leads left is looked at again. */
export function nextCheckAt(now: number): number {
  return Math.floor(now / QUARTER_HOUR_MS) * QUARTER_HOUR_MS + QUARTER_HOUR_MS;
}

/**
 * A ticket's lead joins its asker's tenant's leads, and the tenant is due for a look. Both indexes
 * live `retentionMs` after their last write (RETENTION_DAYS, like the ticket).
 */
export async function noteLead(
  store: StateStore,
  ticket: Pick<Ticket, 'id' | 'userPlace' | 'createdAt'>,
  retentionMs: number,
): Promise<void> {
  const tenant = tenantOf(ticket.userPlace);
  // The lead first: a check that drops the tenant meanwhile finds it when it reads again (settle below).
  await store.schedule(leadsIndex(tenant), ticket.id, ticket.createdAt, retentionMs);
  await store.schedule(DIGESTS_INDEX, tenantKey(tenant), ticket.createdAt, retentionMs);
}

/** The tenant changed its digest hour: with leads waiting, it is looked at on the next check. */
export async function digestConfigured(store: StateStore, tenant: Tenant, now: number, retentionMs: number) {
  if ((await store.due(leadsIndex(tenant), Number.MAX_SAFE_INTEGER, 1)).length > 0)
    await store.schedule(DIGESTS_INDEX, tenantKey(tenant), now, retentionMs);
}

/**
 * After a check: the tenant is due again at the next quarter-hour if leads are left, else it leaves
 * the index. Dropped first, then read: a lead noted meanwhile puts it back itself (noteLead's order).
 */
export async function settleTenant(store: StateStore, tenant: Tenant, now: number, retentionMs: number) {
  await store.unschedule(DIGESTS_INDEX, tenantKey(tenant));
  if ((await store.due(leadsIndex(tenant), Number.MAX_SAFE_INTEGER, 1)).length > 0)
    await store.schedule(DIGESTS_INDEX, tenantKey(tenant), nextCheckAt(now), retentionMs);
}

/** A tenant leaves: its leads and its place in the digests' index go (they name it). */
export async function forgetLeads(store: StateStore, tenant: Tenant): Promise<void> {
  const index = leadsIndex(tenant);
  for (;;) {
    const left = await store.due(index, Number.MAX_SAFE_INTEGER, LEADS_PER_CHECK);
    if (left.length === 0) break;
    for (const { member } of left) await store.unschedule(index, member);
  }
  await store.unschedule(DIGESTS_INDEX, tenantKey(tenant));
}
