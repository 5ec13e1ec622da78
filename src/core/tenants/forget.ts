/**
 * A tenant leaves (a Discord server removes the bot, a Slack workspace uninstalls it): every record
 * the state store keeps for it is deleted, found by how core builds its keys, not by searching text.
 *
 * The tenant's own part of the store (`t:<kind>:<id>:`, state/tenant-store.ts) goes whole: its
 * conversations and everything per conversation (session, transcript, handoff mark, lead, crash
 * marks, askers, Retry records, dedupe marks, recent conversations), votes, ticket indexes, office
 * record and limits. Its queues are emptied first (a queue is not a key), through its own view.
 *
 * Then the global infrastructure that names it (state/tenant-store.ts says why each is global):
 * - of its conversations, listed through its view: their leases (released) and pending marks;
 * - tickets whose asker's thread is the tenant's (its own ticket markers and its conversations' handoff
 *   marks name them), with
 *   their open, late and lookup keys, the lookups of threads in its channels, and their notices still
 *   pending in the outbox (completed unsent, so nothing is posted to a place that is gone);
 * - answers in flight and `/ask`s not yet queued whose place is the tenant's (by value, read through
 *   the due indexes of work in flight), with their leases;
 * - its connection (`/chatbot connect`), and the applied settings (`settings:applied:<chatbot>`) of
 *   its own chatbot when no other tenant's connection names that chatbot (read before its part goes);
 * - a surface's own keys, through `surfaceKeys` (the places found are handed to it);
 * - its leads waiting for the day's digest and its entry in the digests' due index (leads-index.ts);
 * - what the layout before the tenants' parts still holds of it (forget-legacy.ts).
 *
 * Not found by key (they carry no tenant): a person's flood limits and "lead opened" marks (keyed by
 * surface and user id, and a Discord user is the same person in every server), the
 * day's leads digest and the mail outbox; rate-budget logs are not listed by the store and empty
 * themselves within their window (seconds).
 */
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import { forgetTenantKeys, scopedPrefix, tenantStore, type Tenant, type TenantStore } from '../../state/tenant-store';
import { conversationSchema, convKeys, infraKeys, parseStored, placeSchema } from '../conversations/model';
import { ASK_INTENT_INDEX, ASK_INTENT_PREFIX } from '../conversations/ask-intents';
import { INFLIGHT_INDEX, INFLIGHT_PREFIX, inflightKey, inflightLease } from '../relay/inflight';
import { NOTICE_BOX } from '../handoff/notice';
import { forgetLeads } from '../handoff/hours/leads-index';
import { ticketKeys, ticketSchema, type Ticket } from '../handoff/model';
import { appliedSettingsKey } from '../settings/applied';
import type { Place } from '../surface';
import { chatbotTagOf, chatbotUsedByOthers, connectedChatbotTag, connectionGlobalKeys } from './connections';
import { isTenantsPlace, legacyRecordsOf, placePrefix } from './forget-legacy';
import { OFFICE_KEY } from './office-record';

export type { Tenant } from '../../state/tenant-store';

export interface ForgetOptions {
  /**
   * The surface's own keys for the tenant and the places found in its records; `unindexed`: an older
   * version's keys may remain (unindexed.ts), which the surface then looks for too.
   */
  surfaceKeys?: (places: Place[], unindexed: boolean) => string[] | Promise<string[]>;
  /** Records an older version wrote without the indexes may remain (unindexed.ts; default true): scanned for too. */
  unindexed?: boolean;
  /** Chatbots whose applied settings stay whoever leaves (the environment's default, which serves others). */
  keepChatbots?: readonly string[];
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
const officeChatbot = z.object({ chatbotId: z.string().optional() });

/** The tenant's conversations, listed through its own view: ids and places. */
async function conversationsOf(view: TenantStore): Promise<Map<string, Place>> {
  const found = new Map<string, Place>();
  for (const key of await view.keys(convKeys.conversations)) {
    const parts = key.split(':');
    if (parts.length !== 2) continue;
    const conv = parseStored(conversationSchema, await view.get(key));
    if (conv) found.set(conv.id, conv.place);
  }
  return found;
}

/**
 * The conversations' queues emptied (through the tenant's view) and leases released; returns their
 * pending marks to delete. Found by the tenant's own conversations, not by reading every tenant's
 * marks: a mark whose conversation record expired first is dropped by the queue sweep, which finds
 * its queue empty (worker.ts).
 */
async function stopQueues(store: StateStore, view: TenantStore, ids: Set<string>): Promise<string[]> {
  const marks: string[] = [];
  for (const id of ids) {
    marks.push(infraKeys.pending(id));
    const queue = convKeys.queue(id);
    for (let item = await view.peek(queue); item; item = await view.peek(queue)) await view.ack(queue, item.id);
    const lease = await store.leaseInfo(infraKeys.lease(id));
    if (lease) await store.releaseLease(infraKeys.lease(id), lease.owner);
  }
  return marks;
}

/**
 * Tickets asked for in the tenant (by the asker's thread, or the conversation), found from its own
 * part: its ticket markers (`ticket:<id>`, written with every change of the ticket and expiring with
 * it) and its conversations' handoff marks. Other tenants' tickets are never read to find them (the
 * tickets of a version before the markers are marked when the bridge starts: TicketStore.indexTenants;
 * a tenant with conversations in the older layout is the one exception, below).
 */
async function ticketsOf(store: StateStore, t: Tenant, convs: Set<string>, upgraded: boolean): Promise<Ticket[]> {
  const view = tenantStore(store, t);
  const ids = new Set<string>();
  // A tenant with conversations still in the layout before its part has their handoff marks there
  // too: only then are the tickets read by value (once; its next leaving finds none of them).
  if (upgraded) for (const key of await store.keys(ticketKeys.prefix)) ids.add(key.slice(ticketKeys.prefix.length));
  const marked = scopedPrefix('ticket');
  for (const key of await view.keys(marked)) ids.add(decodeURIComponent(key.slice(marked.length)));
  for (const conv of convs) {
    const mark = await view.get(convKeys.handoff(conv));
    if (typeof mark === 'string') ids.add(mark);
  }
  const out: Ticket[] = [];
  for (const id of ids) {
    const ticket = parseStored(ticketSchema, await store.get(ticketKeys.ticket(id)));
    if (ticket && (isTenantsPlace(t, ticket.userPlace) || convs.has(ticket.convId))) out.push(ticket);
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

/** Work in flight a leaving looks at at most, per kind (far more than runs at once). */
const IN_FLIGHT_READ = 10_000;

/**
 * Work in flight of the tenant (by value: answers being streamed, `/ask`s not yet queued), their
 * leases released; the places they name are added. Found through the due indexes of work in flight
 * (what runs now, across the deployment), never by reading every record ever written.
 */
async function inflightOf(store: StateStore, t: Tenant, places: Place[], unindexed: boolean): Promise<string[]> {
  const out: string[] = [];
  const askKey = (id: string) => `${ASK_INTENT_PREFIX}${id}`;
  const kinds = [
    { index: INFLIGHT_INDEX, prefix: INFLIGHT_PREFIX, key: inflightKey, lease: inflightLease },
    { index: ASK_INTENT_INDEX, prefix: ASK_INTENT_PREFIX, key: askKey, lease: askKey },
  ];
  for (const kind of kinds) {
    const members = new Set(
      (await store.due(kind.index, Number.MAX_SAFE_INTEGER, IN_FLIGHT_READ)).map((e) => e.member),
    );
    // Written before the index (an older version): found only by their prefix.
    if (unindexed) for (const key of await store.keys(kind.prefix)) members.add(key.slice(kind.prefix.length));
    for (const member of members) {
      const key = kind.key(member);
      const inflight = parseStored(placeOnly, await store.get(key));
      if (!inflight || !isTenantsPlace(t, inflight.place)) continue;
      out.push(key);
      await store.unschedule(kind.index, member);
      const lease = await store.leaseInfo(kind.lease(member));
      if (lease) await store.releaseLease(kind.lease(member), lease.owner);
      places.push(inflight.place);
    }
  }
  return out;
}

/**
 * The global keys of its connection (its chatbot's index entry, a record of before the tenant's part
 * held it) and the applied settings of its own chatbot (its connection's, else its office record's)
 * unless another tenant's connection names the same chatbot, or it is one kept for all. Read before
 * the tenant's part (where the connection and office record are) goes. A connection keeps its chatbot
 * id sealed, with only a digest (tag) in plain: the settings record is the one whose chatbot has that tag.
 */
async function connectionKeysOf(store: StateStore, view: TenantStore, keep: readonly string[]): Promise<string[]> {
  const connected = await connectedChatbotTag(store, view.tenant);
  const officeBot = parseStored(officeChatbot, await view.get(OFFICE_KEY))?.chatbotId;
  const tag = connected ?? (officeBot ? chatbotTagOf(officeBot) : undefined);
  const kept = keep.some((id) => chatbotTagOf(id) === tag);
  const settings =
    tag === undefined || kept || (await chatbotUsedByOthers(store, tag, view.tenant))
      ? []
      : (await store.keys(appliedSettingsKey(''))).filter(
          (key) => chatbotTagOf(key.slice(appliedSettingsKey('').length)) === tag,
        );
  return [...connectionGlobalKeys(view.tenant, connected), ...settings];
}

/** Keys that name the tenant's places: ticket lookups of threads and messages in its channels. */
async function lookupsOf(store: StateStore, t: Tenant): Promise<string[]> {
  const prefixes = [`ticketthread:${placePrefix(t)}`, `ticketmsg:${placePrefix(t)}`];
  return (await Promise.all(prefixes.map((p) => store.keys(p)))).flat();
}

/** Deletes every record of `tenant` the store can name (see the header for what it cannot). */
export async function forgetTenant(store: StateStore, tenant: Tenant, opts: ForgetOptions = {}): Promise<Forgotten> {
  const view = tenantStore(store, tenant);
  const unindexed = opts.unindexed ?? true;
  const doomed = new Set(await connectionKeysOf(store, view, opts.keepChatbots ?? []));
  const convs = await conversationsOf(view);
  let upgraded = false;
  if (unindexed) {
    const legacy = await legacyRecordsOf(store, tenant);
    upgraded = legacy.convs.size > 0;
    for (const [id, place] of legacy.convs) convs.set(id, place);
    for (const key of [...legacy.keys, ...(await lookupsOf(store, tenant))]) doomed.add(key);
  }
  for (const key of await stopQueues(store, view, new Set(convs.keys()))) doomed.add(key);
  const tickets = await ticketsOf(store, tenant, new Set(convs.keys()), upgraded);
  for (const ticket of tickets) for (const key of ticketKeysOf(ticket)) doomed.add(key);
  await dropNotices(store, tickets);
  const places = [...convs.values(), ...tickets.flatMap((x) => (x.thread ? [x.thread] : []))];
  for (const key of await inflightOf(store, tenant, places, unindexed)) doomed.add(key);
  for (const key of (await opts.surfaceKeys?.(places, unindexed)) ?? []) doomed.add(key);
  await forgetLeads(store, tenant);
  // The records outside the part first, the part last: while the part is there, everything the
  // tenant left can still be found from it (a leave cut short is finished by the next), and an empty
  // part means the tenant is gone whole.
  let records = 0;
  for (const key of doomed) {
    if ((await store.get(key)) === undefined) continue;
    await store.delete(key);
    records += 1;
  }
  records += await forgetTenantKeys(store, tenant);
  return { records, conversations: convs.size, tickets: tickets.length };
}
