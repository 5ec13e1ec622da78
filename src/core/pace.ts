/**
 * Spending a surface's rate budgets for the platform calls core makes outside the relay (a ticket
 * message refreshed on claim, a placeholder turned into an error). The relay's scheduler paces
 * answers; these calls draw from the same budgets in the store, so with Redis the workspace's one
 * budget covers every instance and every kind of edit.
 */
import type { StateStore } from '../state/store';
import { PlatformRateLimitError, type RateBudget } from './surface';

/** Longest a call waits for its budgets before it is refused as rate-limited. */
export const MAX_PACE_WAIT_MS = 60_000;

/** Takes one token of each budget, waiting (bounded) for the ones that are spent. */
export async function spendBudgets(store: StateStore, budgets: RateBudget[], maxWaitMs = MAX_PACE_WAIT_MS): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  for (const b of budgets) {
    for (;;) {
      const d = await store.takeToken(b.key, b.limit, b.windowMs);
      if (d.granted) break;
      if (Date.now() + d.retryInMs > deadline) throw new PlatformRateLimitError(d.retryInMs);
      await new Promise((resolve) => setTimeout(resolve, Math.max(5, d.retryInMs)));
    }
  }
}
