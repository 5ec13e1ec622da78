/**
 * Whether records an older version wrote may still be in the store where only a scan finds them: the
 * global keys of the layout before the tenants' parts, and tickets, answers in flight and `/ask`s
 * written before their indexes (a tenant's index of tickets, the due indexes of work in flight). A
 * leaving looks for them (forget.ts, and a surface's own old keys) only until every such record
 * has expired: a horizon set on the first leaving this version handles, as long as the longest life
 * of any of them (the retention period, at most RETENTION_DAYS, plus a day). From then on a leaving
 * reads the tenant's own part and indexes only: its cost does not grow with other tenants' records.
 */
import type { StateStore } from '../../state/store';
import { DEFAULT_RETENTION_MS } from '../conversations/transcript';

/** Global: until when (epoch ms) records without the indexes may remain. */
const HORIZON_KEY = 'layout:unindexed-until';
const DAY_MS = 24 * 60 * 60 * 1000;

/** True while an older version's unindexed records may remain (the first call starts the horizon). */
export async function unindexedMayRemain(store: StateStore, now: number, retentionMs?: number): Promise<boolean> {
  const until = await store.get(HORIZON_KEY);
  if (typeof until === 'number') return now < until;
  await store.setIfAbsent(HORIZON_KEY, now + Math.max(retentionMs ?? 0, DEFAULT_RETENTION_MS) + DAY_MS);
  return true;
}
