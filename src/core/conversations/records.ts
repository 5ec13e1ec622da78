/**
 * A conversation's records in its tenant's part of the store, and the way up from the layout before
 * it. Until tenants had their own parts, every record of a conversation was a global key (`conv:<id>`,
 * `conv:<id>:session`, ...: model.ts's `legacyKeys`). An upgrade loses none of them: a record not
 * found in the tenant's part is looked for at its old key, and when it is there it is moved (written
 * into the tenant's part unless something newer is, then deleted from the old key), so the next read
 * finds it in its place and the old key empties as conversations are used.
 */
import type { Json, StateStore } from '../../state/store';
import { type ScopedKey, type Tenant, type TenantStore, tenantStore } from '../../state/tenant-store';
import { readMoving } from '../../state/moved-records';
import {
  type Conversation,
  type ConvRef,
  conversationSchema,
  convKeys,
  infraKeys,
  legacyKeys,
  parseStored,
  toJson,
} from './model';

/** The tenant's part of the store that holds the conversation's records. */
export function convView(store: StateStore, of: ConvRef | Tenant): TenantStore {
  return tenantStore(store, 'tenant' in of ? of.tenant : of);
}

/**
 * The record at `key` in the tenant's part; else the one at its old global key, moved into the
 * tenant's part (kept `ttlMs`, the record's retention, from now) on this first read. A reader that
 * does not know the retention reads with `readEither` (the next writer moves it).
 */
export async function readMoved(
  store: StateStore,
  view: TenantStore,
  key: ScopedKey,
  legacy: string,
  ttlMs: number | undefined,
): Promise<Json | undefined> {
  // The one way up for moved records (a newer one written meanwhile, by the next turn, wins).
  return readMoving(store, view, key, legacy, ttlMs);
}

/** The record at `key` in the tenant's part, else the one at its old global key (left where it is). */
export async function readEither(
  store: StateStore,
  view: TenantStore,
  key: ScopedKey,
  legacy: string,
): Promise<Json | undefined> {
  return (await view.get(key)) ?? (await store.get(legacy));
}

/**
 * The conversation's record (moved from its old key on the first read after an upgrade, with its
 * session and the chatbot that opened it, so the chat goes on in the same session).
 */
export async function loadConversation(
  store: StateStore,
  ref: ConvRef,
  retentionMs: number,
): Promise<Conversation | undefined> {
  const view = convView(store, ref);
  const found = await view.get(convKeys.conversation(ref.id));
  if (found !== undefined) return parseStored(conversationSchema, found);
  const old = parseStored(conversationSchema, await store.get(legacyKeys.conversation(ref.id)));
  // Only the tenant's own: an old record of another tenant's place is not this tenant's to take.
  if (!old || old.place.surface !== ref.tenant.surface || old.place.workspace !== ref.tenant.id) return undefined;
  await readMoved(store, view, convKeys.session(ref.id), legacyKeys.session(ref.id), retentionMs);
  await readMoved(store, view, convKeys.sessionChatbot(ref.id), legacyKeys.sessionChatbot(ref.id), retentionMs);
  // A queue left in the old layout is marked with no tenant: it is this one's, so the sweep can reach it.
  await store.compareAndSet(infraKeys.pending(ref.id), 1, toJson(ref.tenant));
  return parseStored(
    conversationSchema,
    await readMoved(store, view, convKeys.conversation(ref.id), legacyKeys.conversation(ref.id), retentionMs),
  );
}

/** A Retry record (one written before an upgrade is moved into the tenant's part as it is read). */
export function retryRecordOf(store: StateStore, tenant: ConvRef['tenant'], retryId: string, ttlMs: number) {
  return readMoved(store, convView(store, tenant), convKeys.retry(retryId), legacyKeys.retry(retryId), ttlMs);
}

/** A pressed Retry is over: its button works again (a press from before an upgrade was marked at the old key). */
export async function retryDone(store: StateStore, conv: ConvRef, retryId: string): Promise<void> {
  await convView(store, conv)
    .delete(convKeys.retrying(retryId))
    .catch(() => undefined);
  await store.delete(legacyKeys.retrying(retryId)).catch(() => undefined);
}
