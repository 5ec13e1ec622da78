/**
 * Which of a call's budgets may book a token ahead (TokenBudget.aheadMs) instead of being refused.
 *
 * A short-window budget spent by several instances at once (Slack's 1 a second per channel: four
 * answers of one channel on three instances) otherwise wakes every waiting caller when its oldest
 * token ages out: one wins, the others are refused and wait again, a store call each time. Booked,
 * each caller gets its own slot in one store call and starts then, holding its token.
 *
 * Only short windows book: a long-window budget is spent by the plan (plan.ts: finals reserved,
 * interims in turn), whose decisions a slot booked far ahead would bypass. A call that also spends a
 * long-window budget therefore books nothing (a booking must fit every budget of the call).
 *
 * Only finals book: a booked slot is taken in the order calls asked, so an interim booked first
 * would go before a final that asked after it. Interims wait for a token free now, as before, and
 * the finals' bookings make them wait behind every final booked (their refusal says how long).
 */
import type { Priority, RateBudget } from '../../core/surface';

/** Budgets with a window up to this may book ahead. */
const BOOKABLE_WINDOW_MS = 2_000;
/** How far ahead a token may be booked: about as far as a burst of one channel's answers reaches. */
const BOOK_AHEAD_MS = 10_000;

/** The budgets as asked of the store: the ones that may book with their `aheadMs`. */
export function withBookings(budgets: RateBudget[], priority: Priority): Array<RateBudget & { aheadMs: number }> {
  const books = priority === 'final';
  return budgets.map((b) => ({ ...b, aheadMs: books && b.windowMs <= BOOKABLE_WINDOW_MS ? BOOK_AHEAD_MS : 0 }));
}
