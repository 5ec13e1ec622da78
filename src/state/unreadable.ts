/**
 * A sealed record that opens with neither STATE_ENCRYPTION_KEY nor STATE_ENCRYPTION_KEY_PREVIOUS (a
 * key dropped too early, a record changed on disk). Whoever reads it skips it and goes on with the
 * others (the token refresh sweep, the offices' sweeps): it is logged once per process by its name
 * (its store key, which holds no secret), never again on every pass. `npm run rotate-key` counts them.
 */
import type { Logger } from 'pino';

export class UnreadableRecord extends Error {
  constructor(
    /** The record's store key. */
    readonly record: string,
    cause: unknown,
  ) {
    super(`the sealed record ${record} cannot be read with STATE_ENCRYPTION_KEY or STATE_ENCRYPTION_KEY_PREVIOUS`, {
      cause,
    });
    this.name = 'UnreadableRecord';
  }
}

const reported = new Set<string>();

/** Logs an unreadable record once per process (a sweep meets it on every pass). */
export function reportUnreadable(log: Pick<Logger, 'error'> | undefined, err: UnreadableRecord): void {
  if (reported.has(err.record)) return;
  reported.add(err.record);
  log?.error(
    { record: err.record },
    'state: a sealed record cannot be read with STATE_ENCRYPTION_KEY or STATE_ENCRYPTION_KEY_PREVIOUS; skipped (run `npm run rotate-key` to count them)',
  );
}
