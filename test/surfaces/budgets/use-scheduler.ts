import { BudgetScheduler, type SchedulerOptions } from '../../../src/surfaces/budgets/scheduler';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { silentLog } from '../../support/silent-log';

interface Made {
  readonly store: SqliteStore;
  readonly scheduler: BudgetScheduler;
  /** The injected clock's time (only with `clock: true`). */
  now: number;
}

/**
 * A fresh scheduler on an in-memory store for each test, closed after it. With `clock: true` it
 * reads the time from `made.now`, which the test moves on.
 */
export function useScheduler(
  options: Omit<SchedulerOptions, 'store' | 'log' | 'now'> & { clock?: boolean } = {},
): Made {
  const { clock, ...rest } = options;
  let made: { store: SqliteStore; scheduler: BudgetScheduler } | undefined;
  const handle = {
    now: 1_000_000,
    get store(): SqliteStore {
      return current().store;
    },
    get scheduler(): BudgetScheduler {
      return current().scheduler;
    },
  };
  const current = () => {
    if (!made) throw new Error('the scheduler is made per test (read it inside one)');
    return made;
  };
  beforeEach(() => {
    handle.now = 1_000_000;
    const store = new SqliteStore(':memory:');
    const scheduler = new BudgetScheduler({
      store,
      log: silentLog,
      ...rest,
      ...(clock ? { now: () => handle.now } : {}),
    });
    made = { store, scheduler };
  });
  afterEach(async () => {
    made?.scheduler.close();
    await made?.store.close();
    made = undefined;
  });
  return handle;
}
