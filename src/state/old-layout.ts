/**
 * Whether the store may still hold records of the layout before every tenant's records lived in its
 * part of the store (`conv:<id>`, `feedback:answer:<id>`, `tenant:connection:...`: global keys that
 * moved-records.ts and its callers move on first read). Looking for a record at its old key costs a
 * command on every read of the answer's path, so it is settled once, at start, instead: a store known
 * to hold none answers those reads without asking.
 *
 * Settled by a mark in the store (`layout:tenant-parts`), written by the first start that walks the
 * store's value keys and finds each in a tenant's part or one of the global families (global-keys.ts):
 * a key of neither kind may be an old record, so the mark is not written and every read keeps looking
 * at the old key (as before; those records move as they are used, or expire). With the mark, a later
 * start reads it (one command) and walks nothing. An instance of a version before the tenants' parts
 * writing old records beside this one is not looked for: upgrade across that version by stopping the
 * old instances first (their records, left, are found by the walk).
 */
import { isGlobalKey } from './global-keys';
import type { StateStore } from './store';

/** The mark: no record of the old layout is left (global-keys.ts lists it). */
export const TENANT_PARTS_MARK = 'layout:tenant-parts';

/** Stores known to hold no old record, by object: each process settles its own store once. */
const settled = new WeakSet<StateStore>();

/** False once the store is known to hold no record of the old layout (settleOldLayout). */
export function oldLayoutMayRemain(store: StateStore): boolean {
  return !settled.has(store);
}

/** Whether a value key is of the current layout: in a tenant's part or a global family. */
function current(key: string): boolean {
  return key.startsWith('t:') || isGlobalKey(key);
}

/**
 * Settles whether the store may hold old records (at start): the mark, else a walk of the value keys
 * (the mark written when none is old). True when none can remain; false leaves the old keys looked at.
 */
export async function settleOldLayout(store: StateStore, now: number): Promise<boolean> {
  if ((await store.get(TENANT_PARTS_MARK)) === undefined) {
    for (const key of await store.keys('')) {
      if (current(key)) continue;
      settled.delete(store);
      return false;
    }
    await store.set(TENANT_PARTS_MARK, now);
  }
  settled.add(store);
  return true;
}

/**
 * Whether a record may be at `legacy`: a global key of the old layout, unless the store is known to
 * hold none; a key in a tenant's part (a record that moved twice, from a part several shared) always.
 */
export function oldKeyMayHold(store: StateStore, legacy: string): boolean {
  return legacy.startsWith('t:') || oldLayoutMayRemain(store);
}

/** The record at an old key, unless the store is known to hold none there (no command then). */
export async function readOld(store: StateStore, legacy: string) {
  return oldKeyMayHold(store, legacy) ? store.get(legacy) : undefined;
}
