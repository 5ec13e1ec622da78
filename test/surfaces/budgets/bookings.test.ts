import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RateBudget } from '../../../src/core/surface';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { StateStore, TokenBudget } from '../../../src/state/store';
import { BudgetScheduler } from '../../../src/surfaces/budgets/scheduler';
import { dropRedisPrefix } from '../../support/redis-prefix';
import { silentLog } from '../../support/silent-log';

const REDIS = 'redis://127.0.0.1:6379/9';
const prefix = `test:bookings:${randomBytes(4).toString('hex')}:`;
const dir = mkdtempSync(join(tmpdir(), 'bookings-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropRedisPrefix(REDIS, prefix);
});

/** The store, with the calls made of its rate budgets counted (one store call each). */
function counted(store: StateStore, calls: TokenBudget[][]): StateStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'takeTokens') {
        return (budgets: readonly TokenBudget[]) => {
          calls.push([...budgets]);
          return target.takeTokens(budgets);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const backings: Array<[string, (n: number) => StateStore]> = [
  ['SQLite (one file)', () => new SqliteStore(join(dir, 'state.db'))],
  ['Redis', () => new RedisStore(REDIS, { keyPrefix: prefix })],
];

describe.each(backings)('bookings on %s', (_name, open) => {
  let stores: StateStore[] = [];
  let schedulers: BudgetScheduler[] = [];

  afterEach(async () => {
    for (const s of schedulers) s.close();
    for (const s of stores) await s.close();
    stores = [];
    schedulers = [];
  });

  it('serves a herd of finals on a 1-a-window budget across instances with one store call each, a window apart', async () => {
    const calls: TokenBudget[][] = [];
    stores = [0, 1, 2].map((n) => open(n));
    schedulers = stores.map((store) => new BudgetScheduler({ store: counted(store, calls), log: silentLog }));
    const budget: RateBudget = { key: `herd-${randomBytes(3).toString('hex')}`, limit: 1, windowMs: 200 };
    const start = Date.now();
    const starts: number[] = [];
    await Promise.all(
      schedulers.flatMap((scheduler) =>
        [0, 1, 2].map(() =>
          scheduler.run([budget], 'final', async () => {
            starts.push(Date.now());
          }),
        ),
      ),
    );
    // No refusals: every job asked the store once, and every one asked with a booking allowed.
    expect(calls).toHaveLength(9);
    for (const c of calls) expect(c[0]?.aheadMs).toBeGreaterThan(0);
    // A booked job starts no earlier than its slot: the k-th call cannot start before k windows
    // have passed since the herd arrived (a loaded machine only makes the gaps larger).
    starts.sort((x, y) => x - y);
    for (let i = 1; i < starts.length; i++) {
      expect((starts[i] ?? 0) - start).toBeGreaterThanOrEqual(i * budget.windowMs - 5);
    }
  });

  it('books nothing for interims or for a call that also spends a long-window budget', async () => {
    const calls: TokenBudget[][] = [];
    stores = [open(0)];
    schedulers = [new BudgetScheduler({ store: counted(stores[0]!, calls), log: silentLog })];
    const tag = randomBytes(3).toString('hex');
    const short: RateBudget = { key: `short-${tag}`, limit: 1, windowMs: 200 };
    const long: RateBudget = { key: `long-${tag}`, limit: 20, windowMs: 60_000, plan: false };
    await schedulers[0]!.run([short, long], 'final', async () => undefined);
    await schedulers[0]!.run([short], 'interim', async () => undefined);
    // A call books only as far as its least allowed budget does (the store's all-or-none at one time).
    // (The interim may have been refused once while the final's token held the short budget.)
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const c of calls) expect(Math.min(...c.map((b) => b.aheadMs ?? 0))).toBe(0);
  });
});
