/**
 * RETENTION_DAYS in the stores: every record the bridge writes (values, queue items, outbox intents,
 * rate logs) expires at most the retention period after its last write, whatever its writer asked
 * for; a record written without a time to live gets the retention period.
 */
import { checkTtl } from './canonical-json';

export interface RetentionOptions {
  /** The longest any record lives after its last write (ms); absent: records live as long as asked. */
  retentionMs?: number;
}

/** The time to live a write gets: the one asked for, capped at the retention period. */
export function retainedTtl(ttlMs: number | undefined, retentionMs: number | undefined): number | undefined {
  const ttl = checkTtl(ttlMs);
  if (retentionMs === undefined) return ttl;
  return ttl === undefined ? retentionMs : Math.min(ttl, retentionMs);
}
