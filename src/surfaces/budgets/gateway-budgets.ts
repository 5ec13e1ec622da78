/**
 * What a surface's gateway spends its platform's budgets with: one scheduler, and the three things
 * the rest of the surface may ask of it (a call, a final's reservation, a promotion). Ports and the
 * relay ask the gateway, which asks this: nothing outside the gateway reaches the scheduler.
 */
import type { Logger } from 'pino';
import type { Priority, RateBudget } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { BudgetScheduler } from './scheduler';

/** How a surface's gateway is asked for one platform call: a final unless said otherwise. */
export interface GatewayCall {
  priority?: Priority;
  coalesceKey?: string;
}

export interface GatewayBudgetsOptions {
  store: StateStore;
  log: Logger;
  /** Calls of one job in all (the first and its retries after a platform 429). */
  maxTries?: number;
}

export class GatewayBudgets {
  private readonly scheduler: BudgetScheduler;

  constructor(opts: GatewayBudgetsOptions) {
    this.scheduler = new BudgetScheduler({
      store: opts.store,
      log: opts.log,
      ...(opts.maxTries === undefined ? {} : { maxTries: opts.maxTries }),
    });
  }

  /**
   * One platform call: it names its budgets, its priority (final unless said otherwise: a reply
   * someone waits for) and what it coalesces with, and nothing else.
   */
  call<T>(budgets: RateBudget[], c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.scheduler.run(
      budgets,
      c.priority ?? 'final',
      fn,
      c.coalesceKey === undefined ? {} : { coalesceKey: c.coalesceKey },
    );
  }

  /** An answer in flight will need one final call on `budgets` (BudgetScheduler.expectFinal). */
  reserveFinal(budgets: RateBudget[], holder?: string): () => void {
    return this.scheduler.expectFinal(budgets, holder);
  }

  /** A final on `budgets` only while they have room for it (BudgetScheduler.reserveIfRoom). */
  reserveIfRoom(budgets: RateBudget[]): (() => void) | undefined {
    return this.scheduler.reserveIfRoom(budgets);
  }

  /** A start token now or never, for a stream that will spend `shared` (BudgetScheduler.takeStart). */
  takeStart(start: RateBudget, shared: RateBudget): Promise<boolean> {
    return this.scheduler.takeStart(start, shared);
  }

  /** The waiting call with this coalesceKey becomes a final (its answer just finished). */
  promote(coalesceKey: string): void {
    this.scheduler.promote(coalesceKey);
  }

  /** Answers registered on budget `key` that still need their final call. */
  finalsAwaited(key: string): number {
    return this.scheduler.finalsAwaited(key);
  }

  /** Calls still waiting for budget fail. */
  close(): void {
    this.scheduler.close();
  }
}
