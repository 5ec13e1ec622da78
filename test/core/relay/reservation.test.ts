import { BudgetScheduler } from '../../../src/core/relay/scheduler';
import { Relay } from '../../../src/core/relay/relay';
import type { Place, RateBudget } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { TEST_SURFACE, TestSurface } from '../../support/test-surface';
import { FakeAnswerStream, silentLog } from './fake-stream';
import { waitFor } from '../../support/wait-for';

describe('BudgetScheduler final reservation', () => {
  let store: SqliteStore;
  let scheduler: BudgetScheduler;

  beforeEach(() => {
    store = new SqliteStore(':memory:');
    scheduler = new BudgetScheduler({ store, log: silentLog });
  });

  afterEach(async () => {
    scheduler.close();
    await store.close();
  });

  it('leaves one token per awaited final: interims use only what is beyond', async () => {
    // A long window: a final that found the budget spent would wait 10 s.
    const budget: RateBudget = { key: 'long', limit: 4, windowMs: 10_000 };
    const releases = [1, 2, 3].map(() => scheduler.expectFinal([budget]));
    expect(scheduler.finalsAwaited('long')).toBe(3);
    let interims = 0;
    const waiting = Array.from({ length: 3 }, () =>
      scheduler.run([budget], 'interim', async () => {
        interims++;
      }),
    );
    // The interim share alone would allow 2; the reservation allows 4 - 3 = 1.
    await waitFor(() => interims === 1 && scheduler.pending === 2, 'interims === 1 && scheduler.pending === 2');
    const started = Date.now();
    const finals = await Promise.all([1, 2, 3].map(() => scheduler.run([budget], 'final', async () => 'shown')));
    expect(finals).toEqual(['shown', 'shown', 'shown']);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const release of releases) release();
    releases[0]?.();
    expect(scheduler.finalsAwaited('long')).toBe(0);
    expect(interims).toBe(1);
    scheduler.close();
    await Promise.allSettled(waiting);
  });

  it('lets a refused interim run once a release frees its token', async () => {
    const budget: RateBudget = { key: 'freed', limit: 2, windowMs: 10_000 };
    const release = scheduler.expectFinal([budget]);
    const other = scheduler.expectFinal([budget]);
    let ran = false;
    const interim = scheduler.run([budget], 'interim', async () => {
      ran = true;
    });
    await waitFor(() => scheduler.pending === 1, 'scheduler.pending === 1');
    expect(ran).toBe(false);
    release();
    await interim;
    expect(ran).toBe(true);
    other();
  });

  it('does not reserve on short windows, and spaces interims by the answers sharing a long one', () => {
    const short: RateBudget = { key: 's', limit: 2, windowMs: 400 };
    const long: RateBudget = { key: 'l', limit: 50, windowMs: 60_000 };
    scheduler.expectFinal([short]);
    expect(scheduler.finalsAwaited('s')).toBe(0);
    expect(scheduler.interimSpacingMs([short])).toBe(0);
    // 50 a minute, shared by 1 and then 10 answers.
    const first = scheduler.expectFinal([long]);
    expect(scheduler.interimSpacingMs([long])).toBe(1_200);
    const more = Array.from({ length: 9 }, () => scheduler.expectFinal([long]));
    expect(scheduler.interimSpacingMs([short, long])).toBe(12_000);
    first();
    for (const r of more) r();
  });
});

describe('Relay on a long-window budget', () => {
  it('registers each answer until its final is shown, and keeps interims off a crowded budget', async () => {
    const store = new SqliteStore(':memory:');
    const scheduler = new BudgetScheduler({ store, log: silentLog });
    const relay = new Relay({ store, scheduler, log: silentLog, instanceId: 'inst-r', options: { minInterimIntervalMs: 10 } });
    // Four answers share an edit budget of 4 a minute: each needs its final, none may spend an interim.
    const surface = new TestSurface({ budget: { edit: { limit: 4, windowMs: 60_000 } } });
    try {
      const streams = [0, 1, 2, 3].map(() => new FakeAnswerStream());
      const runs = streams.map((events, i) => {
        const place: Place = { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: `T${i}` };
        return relay.run({
          surface,
          place,
          events,
          finalButtons: [],
          retry: { action: 'answer.retry', value: `q${i}` },
          idleTimeoutMs: 5_000,
          answerKey: `reserve-${i}`,
        });
      });
      await waitFor(() => scheduler.finalsAwaited('test:edit:W') === 4 && surface.count('post') === 4, 'scheduler.finalsAwaited(\'test:edit:W\') === 4 && surface.count(\'post...');
      for (const [i, s] of streams.entries()) {
        for (let k = 0; k < 5; k++) s.push(`part ${k} of ${i}. `);
      }
      const started = Date.now();
      for (const s of streams) s.final();
      const results = await Promise.all(runs);
      expect(Date.now() - started).toBeLessThan(2_000);
      for (const r of results) expect(r.status).toBe('complete');
      expect(surface.count('edit')).toBe(4);
      expect(surface.violations).toBe(0);
    } finally {
      scheduler.close();
      await store.close();
    }
  });
});
