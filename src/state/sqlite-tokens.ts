/**
 * Rate budgets on SQLite (SqliteStore.takeTokens): the same sliding-window logs with bookings as on
 * Redis (redis-tokens.ts, which says why a booked token keeps every window within its limit), one
 * row per token in `rate_log`, read and written in the caller's transaction.
 */
import type Database from 'better-sqlite3';
import type { RateDecision, TokenBudget } from './store';
import { aheadOf, countOf } from './token-ahead';

/**
 * One token of every budget at one time (now, or booked within every budget's aheadMs), or none.
 * Run inside an immediate transaction: `stmt` prepares (and caches) a statement.
 */
export function takeSqliteTokens(
  stmt: (sql: string) => Database.Statement,
  budgets: readonly TokenBudget[],
  now: number,
): RateDecision {
  let at = now;
  let worst = 0;
  let minAhead = Number.POSITIVE_INFINITY;
  for (const [i, b] of budgets.entries()) {
    minAhead = Math.min(minAhead, aheadOf(b));
    // `count` tokens fit once the (limit - count + 1)-th newest is out of the window. A limit
    // below the count leaves no token to age out: a full window rather than zero.
    const room = Math.floor(b.limit) - countOf(b) + 1;
    if (room <= 0) return { granted: false, retryInMs: b.windowMs, full: i };
    // Tokens out of every window count for nobody (an L-th newest among them leaves room now).
    stmt('DELETE FROM rate_log WHERE key = ? AND at <= ?').run(b.key, now - b.windowMs);
    const row = stmt('SELECT at FROM rate_log WHERE key = ? ORDER BY at DESC LIMIT 1 OFFSET ?').get(b.key, room - 1) as
      | { at: number }
      | undefined;
    if (row && row.at + b.windowMs > at) {
      at = row.at + b.windowMs;
      worst = i;
    }
  }
  if (at - now > minAhead) return { granted: false, retryInMs: Math.max(1, at - now - minAhead), full: worst };
  for (const b of budgets) {
    for (let n = 0; n < countOf(b); n++) stmt('INSERT INTO rate_log (key, at) VALUES (?, ?)').run(b.key, at);
  }
  return at > now ? { granted: true, retryInMs: 0, startInMs: at - now } : { granted: true, retryInMs: 0 };
}
