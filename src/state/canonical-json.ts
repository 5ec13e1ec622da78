import type { Json } from './store';

/**
 * JSON with object keys sorted at every depth, so that two deep-equal values serialise to the same
 * string. Both stores persist values in this form, which turns compareAndSet's deep-equal into a
 * plain string comparison that SQL and Lua can do atomically.
 */
export function canonicalJson(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      const inner = value[key];
      // JSON.stringify drops undefined members; skipping them here keeps the two forms identical.
      if (inner !== undefined) out[key] = sortKeys(inner);
    }
    return out;
  }
  return value;
}

/** TTLs are whole positive milliseconds in both stores; anything else is a caller bug. */
export function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive number, got ${ttlMs}`);
  return Math.ceil(ttlMs);
}

/** Queue ids are zero-padded so that string order matches push order in both stores. */
export function formatQueueId(seq: number): string {
  return String(seq).padStart(16, '0');
}
