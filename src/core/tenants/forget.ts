/**
 * A tenant leaves (a Discord server removes the bot, a Slack workspace uninstalls it): every record
 * the state store keeps for it is deleted, found by how core builds its keys, not by searching text.
 *
 * What is found: the tenant's whole part of the store (`t:<kind>:<id>:`: its votes, ticket indexes,
 * office record, chatbot limits), and outside it:
 * - keys that name the tenant (surface + workspace): `recent:`, `seen:`, `assistant:welcomed:`, and
 *   the ticket indexes `ticketthread:` / `ticketmsg:` of threads and messages in its channels;
 * - values that name it: conversations (`conv:<id>`, whose place is the tenant's), rated answers
 *   (`feedback:answer:`), answers in flight (`inflight:`), tickets whose asker's thread is the tenant's;
 * - then what hangs off those by id: a conversation's session, transcript, handoff mark and lead
 *   (`conv:<id>:*`), its queue items (`convq:`, emptied), lease (`convlease:`, released), pending
 *   and crash marks (`convpending:`, `convstarted:`), askers (`convasker:`), Retry records
 *   (`retry:` / `retrying:`); a ticket's open, late and index keys and its notices still pending in
 *   the outbox (completed unsent, so nothing is posted to a place that is gone); an answer's votes
 *   (`feedback:vote:<id>:*`) and in-flight lease;
 * - a surface's own keys, through `surfaceKeys` (the places found are handed to it).
 *
 * Not found by key (they carry no tenant): a person's flood limits and "lead opened" marks (keyed by
 * surface and user id, and a Discord user is the same person in every server), the agent roster, the
 * day's leads digest, applied chatbot settings (per chatbot) and the mail outbox; rate-budget logs are
 * not listed by the store and empty themselves within their window (seconds).
 */
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import { forgetTenantKeys, tenantFor } from '../../state/tenant-store';
import { conversationSchema, keys as convKeys, parseStored, placeSchema } from '../conversations/model';
import { NOTICE_BOX } from '../handoff/notice';
import { ticketKeys, ticketSchema, type Ticket } from '../handoff/model';
import type { Place, SurfaceName } from '../surface';

export interface Tenant {
  surface: SurfaceName;
  /** Slack team (or enterprise) id, Discord guild id. */
  workspace: string;
}

export interface ForgetOptions {
  /** The surface's own keys for the tenant and the places found in its records. */
  surfaceKeys?: (places: Place[]) => string[] | Promise<string[]>;
}

export interface Forgotten {
  /** Keys deleted (emptied queues and released leases are not counted). */
  records: number;
  conversations: number;
  tickets: number;
}

/** Pending notices looked at per drain of the ticket outbox when a tenant leaves. */
const NOTICE_SCAN = 10_000;
/** How long a completed-unsent notice id is remembered (a replay stays a no-op meanwhile). */
const NOTICE_DONE_TTL_MS = 86_400_000;

const placeOnly = z.object({ place: placeSchema });
const ratedOnly = z.object({ surface: z.string(), workspace: z.string(), channel: z.string() });
const retryOnly = z.object({ conv: z.string() });

const isTenant = (t: Tenant, p: { surface: string; workspace: string } | undefined): boolean =>
  p !== undefined && p.surface === t.surface && p.workspace === t.workspace;

/** The start of every placeKey of the tenant's places (placeKey encodes each part). */
function placePrefix(t: Tenant): string {
  return `${encodeURIComponent(t.surface)}:${encodeURIComponent(t.workspace)}:`;
}

/** Keys whose name carries the tenant. */
async function namedKeys(store: StateStore, t: Tenant): Promise<string[]> {
  const prefixes = [
    `recent:${placePrefix(t)}`,
    `seen:${t.surface}:${t.workspace}:`,
    `assistant:welcomed:${t.surface}:${t.workspace}:`,
    `ticketthread:${placePrefix(t)}`,
    `ticketmsg:${placePrefix(t)}`,
  ];
  return (await Promise.all(prefixes.map((p) => store.keys(p)))).flat();
}

/** The tenant's conversations: ids and places. */
async function conversationsOf(store: StateStore, t: Tenant): Promise<Map<string, Place>> {
  const found = new Map<string, Place>();
  for (const key of await store.keys('conv:')) {
    if (key.indexOf(':', 'conv:'.length) >= 0) continue;
    const conv = parseStored(conversationSchema, await store.get(key));
    if (conv && isTenant(t, conv.place)) found.set(conv.id, conv.place);
  }
  return found;
}

/** The conversation id a key of `conv:<id>...`, `convstarted:<id>:...` or `convasker:<id>:...` names. */
function convIdOfKey(key: string): string {
  return key.split(':')[1] ?? '';
}

/**
 * Everything stored under the conversations' ids (listed once per prefix, not once per conversation:
 * a store lists keys by scanning); their queues are emptied and their leases released.
 */
async function forgetConversations(store: StateStore, ids: Set<string>): Promise<string[]> {
  const listed = (await Promise.all(['conv:', 'convstarted:', 'convasker:'].map((p) => store.keys(p)))).flat();
  const out = listed.filter((k) => ids.has(convIdOfKey(k)));
  for (const id of ids) {
    out.push(convKeys.pending(id));
    for (let item = await store.peek(convKeys.queue(id)); item; item = await store.peek(convKeys.queue(id)))
      await store.ack(convKeys.queue(id), item.id);
    const lease = await store.leaseInfo(convKeys.lease(id));
    if (lease) await store.releaseLease(convKeys.lease(id), lease.owner);
  }
  return out;
}

/** Retry records of the tenant's conversations. */
async function retriesOf(store: StateStore, convs: Map<string, Place>): Promise<string[]> {
  const out: string[] = [];
  for (const key of await store.keys('retry:')) {
    const retry = parseStored(retryOnly, await store.get(key));
    if (retry && convs.has(retry.conv)) out.push(key, convKeys.retrying(key.slice('retry:'.length)));
  }
  return out;
}

/** Tickets asked for in the tenant (by the asker's thread, or the conversation): with their keys. */
async function ticketsOf(store: StateStore, t: Tenant, convs: Map<string, Place>): Promise<Ticket[]> {
  const out: Ticket[] = [];
  for (const key of await store.keys(ticketKeys.prefix)) {
    const ticket = parseStored(ticketSchema, await store.get(key));
    if (ticket && (isTenant(t, ticket.userPlace) || convs.has(ticket.convId))) out.push(ticket);
  }
  return out;
}

function ticketKeysOf(ticket: Ticket): string[] {
  return [
    ticketKeys.ticket(ticket.id),
    ticketKeys.open(ticket.id),
    ticketKeys.late(ticket.id),
    ...(ticket.thread ? [ticketKeys.byThread(ticket.thread)] : []),
    ...(ticket.root ? [ticketKeys.byMessage(ticket.root)] : []),
  ];
}

/** Notices of these tickets still waiting in the outbox are completed without being carried out. */
async function dropNotices(store: StateStore, tickets: Ticket[]): Promise<void> {
  if (tickets.length === 0) return;
  const ids = new Set(tickets.map((x) => x.id));
  for (const intent of await store.pendingIntents(NOTICE_BOX, NOTICE_SCAN)) {
    const ticketId = intent.id.split(':')[0] ?? '';
    if (ids.has(ticketId)) await store.completeIntent(NOTICE_BOX, intent.id, NOTICE_DONE_TTL_MS);
  }
}

/** Rated answers (with their votes) and answers in flight of the tenant, and the places they name. */
async function answersOf(store: StateStore, t: Tenant, places: Place[]): Promise<string[]> {
  const out: string[] = [];
  const answers = new Set<string>();
  for (const key of await store.keys('feedback:answer:')) {
    const rated = parseStored(ratedOnly, await store.get(key));
    if (isTenant(t, rated)) answers.add(key.slice('feedback:answer:'.length));
  }
  for (const id of answers) out.push(`feedback:answer:${id}`);
  // A vote's key is feedback:vote:<answer id>:<user>; answer ids hold no colon.
  for (const key of await store.keys('feedback:vote:')) if (answers.has(key.split(':')[2] ?? '')) out.push(key);
  for (const key of await store.keys('inflight:')) {
    const inflight = parseStored(placeOnly, await store.get(key));
    if (!inflight || !isTenant(t, inflight.place)) continue;
    out.push(key);
    const lease = await store.leaseInfo(`lease:${key}`);
    if (lease) await store.releaseLease(`lease:${key}`, lease.owner);
    places.push(inflight.place);
  }
  return out;
}

/** Deletes every record of `tenant` the store can name (see the header for what it cannot). */
export async function forgetTenant(store: StateStore, tenant: Tenant, opts: ForgetOptions = {}): Promise<Forgotten> {
  const doomed = new Set(await namedKeys(store, tenant));
  const convs = await conversationsOf(store, tenant);
  for (const key of await forgetConversations(store, new Set(convs.keys()))) doomed.add(key);
  for (const key of await retriesOf(store, convs)) doomed.add(key);
  const tickets = await ticketsOf(store, tenant, convs);
  for (const ticket of tickets) for (const key of ticketKeysOf(ticket)) doomed.add(key);
  await dropNotices(store, tickets);
  const places = [...convs.values(), ...tickets.flatMap((x) => (x.thread ? [x.thread] : []))];
  for (const key of await answersOf(store, tenant, places)) doomed.add(key);
  for (const key of (await opts.surfaceKeys?.(places)) ?? []) doomed.add(key);
  // The tenant's own part of the store (t:<kind>:<id>:, state/tenant-store.ts) goes whole.
  let records = await forgetTenantKeys(store, tenantFor(tenant.surface, tenant.workspace));
  for (const key of doomed) {
    if ((await store.get(key)) === undefined) continue;
    await store.delete(key);
    records += 1;
  }
  return { records, conversations: convs.size, tickets: tickets.length };
}
