/**
 * A leaving tenant's records still in the layout from before tenants had their own part of the store
 * (an upgrade moves them as they are read, so some are left until they expire): global keys found by
 * how they were built, since nothing else leads to them. The new layout's records are forget.ts's.
 *
 * - keys that name the tenant (surface + workspace): `recent:`, `seen:`, `assistant:welcomed:`;
 * - values that name it: conversations (`conv:<id>`, whose place is the tenant's), rated answers
 *   (`feedback:answer:`, with their votes);
 * - what hangs off those by id: a conversation's session, transcript, handoff mark and lead
 *   (`conv:<id>:*`), its queue (`convq:`, emptied), crash marks (`convstarted:`), askers
 *   (`convasker:`), Retry records (`retry:` / `retrying:`).
 */
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import type { Tenant } from '../../state/tenant-store';
import { conversationSchema, legacyKeys, parseStored } from '../conversations/model';
import type { Place } from '../surface';

const ratedOnly = z.object({ surface: z.string(), workspace: z.string(), channel: z.string() });
const retryOnly = z.object({ conv: z.string() });

export const isTenantsPlace = (t: Tenant, p: { surface: string; workspace: string } | undefined): boolean =>
  p !== undefined && p.surface === t.surface && p.workspace === t.id;

/** The start of every placeKey of the tenant's places (placeKey encodes each part). */
export function placePrefix(t: Tenant): string {
  return `${encodeURIComponent(t.surface)}:${encodeURIComponent(t.id)}:`;
}

/** What the old layout still holds of a tenant: keys to delete, and its conversations found there. */
export interface LegacyRecords {
  keys: string[];
  convs: Map<string, Place>;
}

/** The conversations of the old layout whose place is the tenant's. */
async function legacyConversations(store: StateStore, t: Tenant): Promise<Map<string, Place>> {
  const found = new Map<string, Place>();
  for (const key of await store.keys('conv:')) {
    if (key.indexOf(':', 'conv:'.length) >= 0) continue;
    const conv = parseStored(conversationSchema, await store.get(key));
    if (conv && isTenantsPlace(t, conv.place)) found.set(conv.id, conv.place);
  }
  return found;
}

/** Everything stored under the conversations' ids (listed once per prefix); their old queues emptied. */
async function underIds(store: StateStore, ids: Set<string>): Promise<string[]> {
  const listed = (await Promise.all(['conv:', 'convstarted:', 'convasker:'].map((p) => store.keys(p)))).flat();
  const out = listed.filter((k) => ids.has(k.split(':')[1] ?? ''));
  for (const id of ids) {
    const queue = legacyKeys.queue(id);
    for (let item = await store.peek(queue); item; item = await store.peek(queue)) await store.ack(queue, item.id);
  }
  for (const key of await store.keys('retry:')) {
    const retry = parseStored(retryOnly, await store.get(key));
    if (retry && ids.has(retry.conv)) out.push(key, legacyKeys.retrying(key.slice('retry:'.length)));
  }
  return out;
}

/** Rated answers of the tenant kept before the tenant's part held them, with their votes. */
async function ratedAnswers(store: StateStore, t: Tenant): Promise<string[]> {
  const answers = new Set<string>();
  for (const key of await store.keys('feedback:answer:')) {
    if (isTenantsPlace(t, parseStored(ratedOnly, await store.get(key))))
      answers.add(key.slice('feedback:answer:'.length));
  }
  const out = [...answers].map((id) => `feedback:answer:${id}`);
  // A vote's key is feedback:vote:<answer id>:<user>; answer ids hold no colon.
  for (const key of await store.keys('feedback:vote:')) if (answers.has(key.split(':')[2] ?? '')) out.push(key);
  return out;
}

export async function legacyRecordsOf(store: StateStore, t: Tenant): Promise<LegacyRecords> {
  const named = [`recent:${placePrefix(t)}`, `seen:${t.surface}:${t.id}:`, `assistant:welcomed:${t.surface}:${t.id}:`];
  const convs = await legacyConversations(store, t);
  const keys = [
    ...(await Promise.all(named.map((p) => store.keys(p)))).flat(),
    ...(await underIds(store, new Set(convs.keys()))),
    ...(await ratedAnswers(store, t)),
  ];
  return { keys, convs };
}
