/**
 * The way up for records a surface kept under global keys before every record of a tenant lived in
 * its part of the store (`slack:assistant:thread:<team>:...`, `discord:dm:<channel>`, ...). An upgrade
 * loses none of them: a record not found in the tenant's part is looked for at its old key, and when
 * it is there it is moved (written into the tenant's part unless something newer is, then deleted
 * from the old key), so the next read finds it in its place and the old keys empty as they are used
 * (or expire; a tenant that leaves first has them found by its surface's list of old families).
 */
import type { Json, StateStore } from './store';
import type { ScopedKey, TenantStore } from './tenant-store';

/**
 * Where a record lived before, newest layout first: one old key, or several when it moved twice
 * (a Discord DM's records: the global key, then the part every DM shared).
 */
export type OldKeys = string | readonly string[];

const listOf = (legacy: OldKeys): readonly string[] => (typeof legacy === 'string' ? [legacy] : legacy);

/** The record at `key` in the tenant's part; else the one at its old global key, moved (kept `ttlMs` from now). */
export async function readMoving(
  store: StateStore,
  view: TenantStore,
  key: ScopedKey,
  legacy: OldKeys,
  ttlMs?: number,
): Promise<Json | undefined> {
  const current = await view.get(key);
  if (current !== undefined) return current;
  for (const at of listOf(legacy)) {
    const old = await store.get(at);
    if (old === undefined) continue;
    // A newer record written meanwhile wins over the old one.
    await view.setIfAbsent(key, old, ttlMs);
    await store.delete(at);
    return view.get(key);
  }
  return undefined;
}

/**
 * setIfAbsent in the tenant's part, where a mark at the old global key counts as present (it is
 * moved): a "first time" mark (a title set, an event seen) is not taken a second time by an upgrade.
 */
export async function claimMoving(
  store: StateStore,
  view: TenantStore,
  key: ScopedKey,
  legacy: OldKeys,
  value: Json,
  ttlMs?: number,
): Promise<boolean> {
  if ((await readMoving(store, view, key, legacy, ttlMs)) !== undefined) return false;
  return view.setIfAbsent(key, value, ttlMs);
}

/** A write in the tenant's part: the old global key, if any, goes (it would only be older). */
export async function writeMoving(
  store: StateStore,
  view: TenantStore,
  key: ScopedKey,
  legacy: OldKeys,
  value: Json,
  ttlMs?: number,
): Promise<void> {
  await view.set(key, value, ttlMs);
  for (const at of listOf(legacy)) await store.delete(at);
}
