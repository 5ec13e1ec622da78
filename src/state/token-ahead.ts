/**
 * How far ahead a rate token may be booked (TokenBudget.aheadMs), the same on every store: a booked
 * token's log lives that much past its window, so the ceiling keeps logs short-lived.
 */
import type { TokenBudget } from './store';

/** Longest booking a caller may ask for (ms). */
const MAX_AHEAD_MS = 60_000;

/** Tokens a call takes of a budget (TokenBudget.count): a whole number, at least 1. */
export function countOf(b: TokenBudget): number {
  const n = Math.floor(b.count ?? 1);
  return Number.isFinite(n) && n > 1 ? n : 1;
}

/** A budget's allowed booking (ms): whole, within [0, MAX_AHEAD_MS]. */
export function aheadOf(b: TokenBudget): number {
  const ahead = Math.floor(b.aheadMs ?? 0);
  return Number.isFinite(ahead) ? Math.min(MAX_AHEAD_MS, Math.max(0, ahead)) : 0;
}
