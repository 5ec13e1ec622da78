/**
 * Records that instances change concurrently (a Slack installation, a tenant's connection, its office
 * record) carry a `version` and are written only by compare-and-set against the record as it was
 * read (`StateStore.compareAndSet`: one SQLite transaction, one Lua script on Redis). A writer that
 * read an older record loses the race and reads again, so a slower instance can never put back what
 * another replaced or removed: the newest state wins. Nothing writes back a record it only read (a
 * record in use is kept alive with `touch`, which writes no value).
 */
import type { Json } from './store';

/** What a versioned record holds besides its own fields. */
export interface Versioned {
  version: number;
}

/** The two primitives a versioned write needs: a StateStore or a TenantStore (keys of its kind). */
export interface CasStore<K> {
  get(key: K): Promise<Json | undefined>;
  compareAndSet(key: K, expected: Json | undefined, next: Json, ttlMs?: number): Promise<boolean>;
}

/** How many lost races a write retries before it gives up (each loss means another writer moved on). */
const MAX_TRIES = 16;

/** The version a record read back carries (0: none, or a record written before versions). */
export function versionOf(raw: Json | undefined): number {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && typeof raw.version === 'number'
    ? raw.version
    : 0;
}

/**
 * Reads `key`, asks `change` for the record that follows the one there (`undefined` when absent), and
 * writes it with the next version by compare-and-set; a lost race reads and asks again. `change`
 * returning undefined writes nothing. Returns what was written (undefined when nothing was).
 */
export async function updateVersioned<K, T extends { [key: string]: Json }>(
  store: CasStore<K>,
  key: K,
  change: (current: Json | undefined) => T | undefined,
  ttlMs?: number,
): Promise<(T & Versioned) | undefined> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const current = await store.get(key);
    const body = change(current);
    if (body === undefined) return undefined;
    const next = { ...body, version: versionOf(current) + 1 };
    if (await store.compareAndSet(key, current, next, ttlMs)) return next;
  }
  throw new Error(`a versioned record kept changing under its writer (${MAX_TRIES} tries): ${String(key)}`);
}

/**
 * Replaces the record only when it is still exactly `read` (the version this writer started from):
 * false when another writer changed or removed it meanwhile (the caller reads the newest again).
 */
export async function replaceIfUnchanged<K, T extends { [key: string]: Json }>(
  store: CasStore<K>,
  key: K,
  read: Json,
  body: T,
  ttlMs?: number,
): Promise<boolean> {
  return store.compareAndSet(key, read, { ...body, version: versionOf(read) + 1 }, ttlMs);
}
