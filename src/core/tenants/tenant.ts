/**
 * A tenant: whose installation a request comes from, which chooses its chatbot, its handoff channel
 * and its admins. A Slack workspace (team id, or the enterprise for an org-wide install), a Discord
 * server (guild id), or the shell. Derived in this one function from where the request happened;
 * the surface is part of it, so a Slack team and a Discord guild can never share a record.
 *
 * The type is the state store's (state/tenant-store.ts): the same value opens the tenant's own part
 * of the store, so whatever core reads for a tenant is read through that tenant's view.
 */
import { type RequestTenant, type Tenant, tenantFor } from '../../state/tenant-store';
import type { Place } from '../surface';

export type { RequestTenant, Tenant } from '../../state/tenant-store';

/**
 * The tenant of a place that may name no workspace: a handoff channel (the environment's, configured,
 * names none on Slack: the '' tenant of a one-workspace deployment's records; or the one a ticket was
 * posted to), and the matching of stored places where a blank one must not stop a sweep (leaving,
 * the mail outbox). Never a request's tenant: that is `requestTenant`'s, carried on the request, and
 * stored work's is `recordedTenant`'s.
 */
export function tenantOf(place: Pick<Place, 'surface' | 'workspace'>): Tenant {
  return tenantFor(place.surface, place.workspace);
}

/**
 * The request's tenant, decided once where the platform's event arrives (each surface, and the
 * bridge for the few calls a surface makes with a place); throws on an empty or blank workspace id
 * (the request is then refused).
 */
export function requestTenant(place: Pick<Place, 'surface' | 'workspace'>): RequestTenant {
  if (place.workspace.trim() === '')
    throw new Error(`a ${place.surface} request without a workspace: no tenant to act for`);
  return tenantOf(place) as RequestTenant;
}

/**
 * The tenant of stored work (a conversation, a ticket, an `/ask` in progress, a rated answer): such
 * records keep the place their request happened at, and its tenant is the one `requestTenant`
 * decided from that place then, so background work (the queue worker, the sweeps, a ticket's steps
 * and e-mails) finds it again the same way. The one place core maps a stored place back to a tenant;
 * the work of a request reads `BridgeRequest.tenant`.
 */
export function recordedTenant(place: Pick<Place, 'surface' | 'workspace'>): RequestTenant {
  return requestTenant(place);
}

/** One string per tenant, for store keys and caches. */
export function tenantKey(t: Tenant): string {
  return `${t.surface}:${t.id}`;
}

/**
 * Direct messages with the bot are no server's: Discord's '@me' (surfaces/discord/direct-messages.ts),
 * each DM a tenant of its own (`@me:<DM channel>`, one per user and the bot).
 */
const DIRECT: Partial<Record<Tenant['surface'], string>> = { discord: '@me' };

/** Whether `t` is a direct message with the bot. */
export function isDirectTenant(t: Tenant): boolean {
  const direct = DIRECT[t.surface];
  return direct !== undefined && (t.id === direct || t.id.startsWith(`${direct}:`));
}
