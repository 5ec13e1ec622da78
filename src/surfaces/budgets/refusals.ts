/**
 * What the store last refused, per budget: a sliding-window budget frees a token only when its
 * oldest grant ages out, so a refusal with `retryInMs` holds for that long whoever asks (every
 * instance spends the same log). The scheduler asks the store again only after that, instead of on
 * every wake-up: one store call per platform call, not one per wake-up while the budget is full.
 *
 * Measured on the process's monotonic clock, not the scheduler's injectable one: the wait is the
 * store's (real time), and a test's stopped clock must not hold a budget refused for ever.
 */
import { performance } from 'node:perf_hooks';
import type { RateBudget } from '../../core/surface';

interface Refusal {
  until: number;
  /** The limit the refusal was for: a call allowed more of the budget (a final) may still fit. */
  limit: number;
}

export class Refusals {
  private readonly byKey = new Map<string, Refusal>();

  refused(b: RateBudget, retryInMs: number): void {
    this.byKey.set(b.key, { until: performance.now() + Math.max(0, retryInMs), limit: b.limit });
  }

  /** The store would refuse `b` now (a refusal for this limit or a higher one still holds). */
  holds(b: RateBudget): boolean {
    const r = this.byKey.get(b.key);
    if (!r) return false;
    if (r.until <= performance.now()) {
      this.byKey.delete(b.key);
      return false;
    }
    return b.limit <= r.limit;
  }

  /** How long the refusal of `b` still holds (ms). */
  waitMs(b: RateBudget): number {
    const r = this.byKey.get(b.key);
    return r ? Math.max(0, r.until - performance.now()) : 0;
  }
}
