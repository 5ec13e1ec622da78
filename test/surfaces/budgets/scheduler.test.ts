import { useScheduler } from './use-scheduler';
import { BudgetScheduler } from '../../../src/surfaces/budgets/scheduler';
import { PlatformRateLimitError, type RateBudget } from '../../../src/core/surface';

describe('BudgetScheduler', () => {
  const made = useScheduler();

  it('runs at once while tokens last and never beyond the budget', async () => {
    const budget: RateBudget = { key: 'b', limit: 4, windowMs: 200 };
    const times: number[] = [];
    const start = Date.now();
    await Promise.all(
      Array.from({ length: 12 }, () =>
        made.scheduler.run([budget], 'final', async () => {
          times.push(Date.now());
        }),
      ),
    );
    expect(times).toHaveLength(12);
    times.sort((a, b) => a - b);
    // The k-th token of a window-limited budget cannot be granted before floor(k / limit) windows
    // have passed. A call runs after its grant, so a loaded machine only makes these gaps larger:
    // the bound holds whatever the load, and fails only if the scheduler overspends.
    for (let i = budget.limit; i < times.length; i++) {
      expect((times[i] ?? 0) - start).toBeGreaterThanOrEqual(Math.floor(i / budget.limit) * budget.windowMs - 5);
    }
  });

  it('serves waiting finals before interims, FIFO within each', async () => {
    const budget: RateBudget = { key: 'tight', limit: 1, windowMs: 120 };
    const order: string[] = [];
    const job = (name: string) => async (): Promise<string> => {
      order.push(name);
      return name;
    };
    await made.scheduler.run([budget], 'final', job('first'));
    const runs = [
      made.scheduler.run([budget], 'interim', job('i1')),
      made.scheduler.run([budget], 'interim', job('i2')),
      made.scheduler.run([budget], 'final', job('f1')),
      made.scheduler.run([budget], 'final', job('f2')),
    ];
    await Promise.all(runs);
    expect(order).toEqual(['first', 'f1', 'f2', 'i1', 'i2']);
  });

  it('keeps part of each budget for finals', async () => {
    const budget: RateBudget = { key: 'shared', limit: 4, windowMs: 10_000 };
    let interims = 0;
    // Interims may use half of the budget: two of them run, the rest wait.
    const waiting = Array.from({ length: 4 }, () =>
      made.scheduler.run([budget], 'interim', async () => {
        interims++;
      }),
    );
    const finals = Array.from({ length: 2 }, () => made.scheduler.run([budget], 'final', async () => 'done'));
    expect(await Promise.all(finals)).toEqual(['done', 'done']);
    expect(interims).toBe(2);
    made.scheduler.close();
    await Promise.allSettled(waiting);
  });

  it('coalesces a waiting job with a newer one of the same key', async () => {
    const budget: RateBudget = { key: 'c', limit: 1, windowMs: 150 };
    const called: string[] = [];
    await made.scheduler.run([budget], 'final', async () => 'warm');
    const a = made.scheduler.run([budget], 'interim', async () => called.push('old'), { coalesceKey: 'msg1' });
    const b = made.scheduler.run([budget], 'interim', async () => called.push('new'), { coalesceKey: 'msg1' });
    await Promise.all([a, b]);
    expect(called).toEqual(['new']);
  });

  it('promotes a waiting interim to final', async () => {
    const budget: RateBudget = { key: 'p', limit: 1, windowMs: 120 };
    const order: string[] = [];
    await made.scheduler.run([budget], 'final', async () => undefined);
    const i1 = made.scheduler.run([budget], 'interim', async () => order.push('i1'));
    const i2 = made.scheduler.run([budget], 'interim', async () => order.push('i2'), { coalesceKey: 'k' });
    expect(made.scheduler.promote('k')).toBe(true);
    await Promise.all([i1, i2]);
    expect(order).toEqual(['i2', 'i1']);
  });

  it('obeys Retry-After from the platform and retries, bounded', async () => {
    let calls = 0;
    const started = Date.now();
    const value = await made.scheduler.run([], 'final', async () => {
      calls++;
      if (calls < 3) throw new PlatformRateLimitError(60);
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);

    let always = 0;
    const limited = new BudgetScheduler({ store: made.store, maxTries: 3 });
    await expect(
      limited.run([], 'final', async () => {
        always++;
        throw new PlatformRateLimitError(5);
      }),
    ).rejects.toBeInstanceOf(PlatformRateLimitError);
    expect(always).toBe(3);
    limited.close();
  });

  it('retries a call the platform refused (429) on the token that call took, not on another', async () => {
    const budget: RateBudget = { key: 'refused', limit: 3, windowMs: 60_000 };
    let calls = 0;
    await made.scheduler.run([budget], 'final', async () => {
      if (++calls === 1) throw new PlatformRateLimitError(5);
    });
    expect(calls).toBe(2);
    // Two calls went out, one was refused: Slack counted one, and so did the budget.
    let left = 0;
    while ((await made.store.takeToken(budget.key, budget.limit, budget.windowMs)).granted) left++;
    expect(left).toBe(budget.limit - 1);
  });

  it('reserves a final only while its budget has room beside the tokens taken and the finals awaited', async () => {
    const budget: RateBudget = { key: 'room', limit: 3, windowMs: 60_000 };
    await made.scheduler.run([budget], 'final', async () => undefined);
    const first = made.scheduler.reserveIfRoom([budget]);
    const second = made.scheduler.reserveIfRoom([budget]);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(made.scheduler.finalsAwaited('room')).toBe(2);
    // One taken and two awaited: the budget's three are all spoken for.
    expect(made.scheduler.reserveIfRoom([budget])).toBeUndefined();
    first!();
    const third = made.scheduler.reserveIfRoom([budget]);
    expect(third).toBeDefined();
    second!();
    third!();
    expect(made.scheduler.finalsAwaited('room')).toBe(0);
  });

  it('a job waiting for one budget holds back no job that shares only its other budgets', async () => {
    const global: RateBudget = { key: 'global', limit: 40, windowMs: 1_000, plan: false };
    const busy: RateBudget = { key: 'busy-channel', limit: 1, windowMs: 60_000, plan: false };
    const free: RateBudget = { key: 'free-channel', limit: 1, windowMs: 60_000, plan: false };
    await made.scheduler.run([busy, global], 'final', async () => undefined);
    const order: string[] = [];
    // Queued first, at the same priority: it waits a minute for its channel.
    const waiting = made.scheduler
      .run([busy, global], 'final', async () => order.push('busy'))
      .then(
        () => 'ran',
        (err: Error) => err.message,
      );
    await made.scheduler.run([free, global], 'final', async () => order.push('free'));
    expect(order).toEqual(['free']);
    made.scheduler.close();
    expect(await waiting).toBe('scheduler closed');
  });

  it('passes other errors through without retrying', async () => {
    let calls = 0;
    await expect(
      made.scheduler.run([], 'final', async () => {
        calls++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});

describe('BudgetScheduler: a 429 on a job out of tries', () => {
  const clocked = useScheduler({ clock: true, maxTries: 1 });

  it('still holds the budget for the Retry-After: the next call on it waits that out', async () => {
    const s = clocked.scheduler;
    const stop: RateBudget = { key: 'chat.stopStream', limit: 20, windowMs: 60_000 };
    await expect(
      s.run([stop], 'final', async () => {
        throw new PlatformRateLimitError(1_000);
      }),
    ).rejects.toBeInstanceOf(PlatformRateLimitError);
    // The caller gives up on that call and makes another (a recovery's stop): it waits.
    let ran = false;
    const next = s.run([stop], 'final', async () => {
      ran = true;
    });
    // Calls on other budgets pass through the pump meanwhile: the held one stays held.
    await s.run([], 'final', async () => undefined);
    clocked.now += 999;
    await s.run([], 'final', async () => undefined);
    expect(ran).toBe(false);
    clocked.now += 1;
    await s.run([], 'final', async () => undefined);
    await next;
    expect(ran).toBe(true);
  });
});
