import { useScheduler } from './use-scheduler';
import type { Place, RateBudget } from '../../../src/core/surface';
import { RelayTestbed } from '../../core/relay/testbed';
import { TEST_SURFACE } from '../../support/test-surface';
import { FakeAnswerStream } from '../../core/relay/fake-stream';
import { waitFor } from '../../../fakes/wait-for';

/** `promise`'s value, failing if it has not settled within `timeoutMs`. */
async function within<T>(promise: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let settled: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => {
      settled = { value };
    },
    (error: unknown) => {
      settled = { error };
    },
  );
  const result = await waitFor(() => settled, what, timeoutMs);
  if ('error' in result) throw result.error;
  return result.value;
}

describe('BudgetScheduler final reservation', () => {
  const made = useScheduler();

  it('leaves one token per awaited final: interims use only what is beyond', async () => {
    // A long window: a final that found the budget spent would wait 10 s.
    const budget: RateBudget = { key: 'long', limit: 4, windowMs: 10_000 };
    const releases = [1, 2, 3].map(() => made.scheduler.expectFinal([budget]));
    expect(made.scheduler.finalsAwaited('long')).toBe(3);
    let interims = 0;
    const waiting = Array.from({ length: 3 }, () =>
      made.scheduler.run([budget], 'interim', async () => {
        interims++;
      }),
    );
    // The interim share alone would allow 2; the reservation allows 4 - 3 = 1.
    await waitFor(
      () => interims === 1 && made.scheduler.pending === 2,
      'interims === 1 && made.scheduler.pending === 2',
    );
    // A final that found the budget spent would wait for the next 10 s window: all three are shown
    // well before (a bound on the wait, not a measurement).
    const finals = await within(
      Promise.all([1, 2, 3].map(() => made.scheduler.run([budget], 'final', async () => 'shown'))),
      'the three finals',
      5_000,
    );
    expect(finals).toEqual(['shown', 'shown', 'shown']);
    for (const release of releases) release();
    releases[0]?.();
    expect(made.scheduler.finalsAwaited('long')).toBe(0);
    expect(interims).toBe(1);
    made.scheduler.close();
    await Promise.allSettled(waiting);
  });

  it('lets a refused interim run once a release frees its token', async () => {
    const budget: RateBudget = { key: 'freed', limit: 2, windowMs: 10_000 };
    const release = made.scheduler.expectFinal([budget]);
    const other = made.scheduler.expectFinal([budget]);
    let ran = false;
    const interim = made.scheduler.run([budget], 'interim', async () => {
      ran = true;
    });
    await waitFor(() => made.scheduler.pending === 1, 'scheduler.pending === 1');
    expect(ran).toBe(false);
    release();
    await interim;
    expect(ran).toBe(true);
    other();
  });
});

describe('BudgetScheduler: interims under load', () => {
  const clocked = useScheduler({ clock: true, expectedAnswerMs: 6_000 });

  it('does not reserve on short windows, and plans interims from what the budget holds and refills', async () => {
    const planned = clocked.scheduler;
    const short: RateBudget = { key: 's', limit: 2, windowMs: 400 };
    const long: RateBudget = { key: 'l', limit: 50, windowMs: 60_000 };
    planned.expectFinal([short], 'a0');
    expect(planned.finalsAwaited('s')).toBe(0);
    expect(planned.interimSpacingMs([short])).toBe(0);
    // A lone answer: 50 held (5 kept back for finals nobody foresees) - its final - the finals of
    // the answers arriving at its rate (1 in 2 s: 3 over its 6 s) = 41 interims' worth.
    const first = planned.expectFinal([long], 'a1');
    expect(planned.interimSpacingMs([long])).toBe(Math.round(6_000 / 41));
    // Ten answers at once: a surge (10 in 2 s: 30 more expected over 6 s) leaves 45 - 10 - 30.
    const more = Array.from({ length: 9 }, (_, i) => planned.expectFinal([long], `b${i}`));
    expect(planned.interimSpacingMs([short, long])).toBe(Math.round((6_000 * 10) / 5));
    // The surge is over (no arrivals for 2 s) and 30 tokens are spent: 15 - 10 = 5 left for ten
    // answers expected to go on 4 s more (nothing leaves the sliding window before a minute).
    clocked.now += 2_000;
    for (let i = 0; i < 30; i++) await planned.run([long], 'final', async () => undefined);
    expect(planned.interimSpacingMs([long])).toBe(Math.round((4_000 * 10) / 5));
    // 59 s on, the answers are expected to be over within a second, and the 30 tokens come back
    // then: the budget would give each of the ten answers an interim every 286 ms, but under load
    // an answer grows in about three steps (a third of its expected 6 s, less a tenth for ten
    // answers sharing: see loadStepMs).
    clocked.now += 59_000;
    // The budget's own plan, seen where the load step is negligible (a budget of a million steps).
    expect(planned.interimSpacingMs([{ ...long, loadSteps: 1_000_000 }])).toBe(
      Math.round((1_000 * 10) / (15 + 30 - 10)),
    );
    expect(planned.interimSpacingMs([long])).toBe(Math.round((6_000 * (1 - 1 / 10)) / 3));
    // A budget that grows its answers in one step under load (Slack's chat.update: first words,
    // then the final) spaces them by most of an answer.
    expect(planned.interimSpacingMs([{ ...long, loadSteps: 1 }])).toBe(Math.round(6_000 * (1 - 1 / 10)));
    first();
    for (const r of more) r();
  });

  it('spaces an answer by the load it has just seen, and a lone answer by the budget alone', () => {
    const planned = clocked.scheduler;
    const long: RateBudget = { key: 'l', limit: 100, windowMs: 60_000 };
    const lone = planned.expectFinal([long], 'lone');
    // Alone: no load step, the budget's plan only (well under a second).
    expect(planned.interimSpacingMs([long])).toBeLessThan(200);
    lone();
    // Ten answers of a surge, nine of which are over (at once: the learnt length stays 6 s): the
    // last one still grows in about three steps.
    clocked.now += 10_000;
    const surge = Array.from({ length: 10 }, (_, i) => planned.expectFinal([long], `s${i}`));
    for (const r of surge.slice(1)) r();
    clocked.now += 3_000;
    expect(planned.finalsAwaited('l')).toBe(1);
    expect(planned.interimSpacingMs([long])).toBe(Math.round((6_000 * (1 - 1 / 10)) / 3));
    // An answer's length later the surge is no load any more.
    clocked.now += 6_000;
    expect(planned.interimSpacingMs([long])).toBeLessThan(200);
    surge[0]?.();
  });
});

describe("BudgetScheduler: an answer's first planned interim", () => {
  const clocked = useScheduler({ clock: true, firstInterimAfterMs: 1_000 });

  it('waits until the plan has seen whether a surge arrives, then goes', async () => {
    const planned = clocked.scheduler;
    const long: RateBudget = { key: 'l', limit: 50, windowMs: 60_000 };
    const release = planned.expectFinal([long], 'a1');
    // Alone, the plan gives it a turn every few ms: still, nothing before it is 1 s old.
    expect(planned.interimSpacingMs([long])).toBeLessThan(1_000);
    let ran = false;
    const interim = planned.run(
      [long],
      'interim',
      async () => {
        ran = true;
      },
      { coalesceKey: 'a1' },
    );
    clocked.now += 999;
    // A final on another budget passes through the pump: the interim still waits.
    await planned.run([], 'final', async () => undefined);
    expect(ran).toBe(false);
    expect(planned.pending).toBe(1);
    clocked.now += 1;
    await planned.run([], 'final', async () => undefined);
    await interim;
    expect(ran).toBe(true);
    release();
  });
});

describe('Relay on a long-window budget', () => {
  it('registers each answer until its final is shown, and keeps interims off a crowded budget', async () => {
    const bed = new RelayTestbed();
    const relay = bed.relay('inst-r', { minInterimIntervalMs: 10 });
    // Four answers share an edit budget of 4 a minute: each needs its final, none may spend an interim.
    const surface = bed.surface({ budget: { edit: { limit: 4, windowMs: 60_000 } } });
    const scheduler = surface.scheduler!;
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
          native: surface.streaming !== undefined,
          answerKey: `reserve-${i}`,
        });
      });
      await waitFor(
        () => scheduler.finalsAwaited('test:edit:W') === 4 && surface.count('post') === 4,
        "scheduler.finalsAwaited('test:edit:W') === 4 && surface.count('post...",
      );
      for (const [i, s] of streams.entries()) {
        for (let k = 0; k < 5; k++) s.push(`part ${k} of ${i}. `);
      }
      for (const s of streams) s.final();
      // Each final had its token reserved: none waits for the next minute's window.
      const results = await within(Promise.all(runs), 'the four answers complete', 10_000);
      for (const r of results) expect(r.status).toBe('complete');
      expect(surface.count('edit')).toBe(4);
      expect(surface.violations).toBe(0);
    } finally {
      await bed.close();
    }
  });
});
