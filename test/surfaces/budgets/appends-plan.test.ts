/**
 * The appends planner (FinalsPlan with fair shares, stream-shares.ts) on an injected clock: streams
 * that each took a start token share the append budget: what it holds, split over the streams open
 * now and the starts still possible this minute. Driven like the scheduler drives it: every 50 ms
 * each open stream's append goes when the plan says it is due, and the plan is told it was granted.
 */
import type { RateBudget } from '../../../src/core/surface';
import { FinalsPlan, type PlannedCall } from '../../../src/surfaces/budgets/plan';
import { fairShare, shareDue } from '../../../src/surfaces/budgets/stream-shares';

const APPEND: RateBudget = { key: 'slack:T:chat.appendStream', limit: 100, windowMs: 60_000 };
const START: RateBudget = { key: 'slack:T:chat.startStream', limit: 20, windowMs: 60_000 };
const TICK_MS = 50;

interface Stream {
  name: string;
  endsAt: number;
  appends: number;
  release: () => boolean;
  open: boolean;
}

/** A plan on a clock the test moves, and the streams it plans. */
class Bench {
  now = 1_000_000;
  readonly plan = new FinalsPlan({ now: () => this.now });
  readonly streams: Stream[] = [];
  /** When each append was granted (to check the budget's window is never over its limit). */
  readonly grants: number[] = [];
  /** Appends the plan said were due but the budget (less the reserved finals) refused. */
  refused = 0;
  private seq = 0;

  /** A stream starts now (its start token taken) and lasts `lengthMs`, unknown to the plan. */
  open(lengthMs: number): Stream {
    this.plan.started(APPEND, START);
    const name = `answer-${this.seq++}`;
    const s: Stream = {
      name,
      endsAt: this.now + lengthMs,
      appends: 0,
      release: this.plan.expectFinal([APPEND], name),
      open: true,
    };
    this.streams.push(s);
    return s;
  }

  private call(s: Stream): PlannedCall {
    return { budgets: [APPEND], priority: 'interim', coalesceKey: s.name };
  }

  /** Moves the clock by `ms`, granting every append that is due, and ending streams whose answer ended. */
  run(ms: number): void {
    const until = this.now + ms;
    while (this.now < until) {
      this.now += TICK_MS;
      for (const s of this.streams) {
        if (!s.open) continue;
        if (s.endsAt <= this.now) {
          s.open = false;
          s.release();
          continue;
        }
        if (this.plan.interimDue(this.call(s)) > this.now) continue;
        // The scheduler grants only within the limit left after the reserved finals.
        const [b] = this.plan.spend(this.call(s));
        if (b && this.inWindow() >= b.limit) {
          this.refused++;
          continue;
        }
        this.plan.granted(this.call(s), this.now);
        this.grants.push(this.now);
        s.appends++;
      }
    }
  }

  /** Appends granted within the last window. */
  inWindow(at = this.now): number {
    return this.grants.filter((t) => t > at - APPEND.windowMs && t <= at).length;
  }

  /** The most appends any window held, over the whole run. */
  busiestWindow(): number {
    return Math.max(0, ...this.grants.map((t) => this.inWindow(t)));
  }
}

/** Answer lengths between 2 and 5 s, none known to the plan (seeded, so the test is repeatable). */
function lengths(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 2_000 + ((i * 7_919) % 3_001));
}

describe('appends planner: fair shares of the append budget', () => {
  it('a burst of 20 streams of unknown length: each shows at least 3 appends, within the budget', () => {
    const bench = new Bench();
    // 20 answers arriving 200 ms apart (a surge), as many as chat.startStream admits in a minute.
    for (const len of lengths(20)) {
      bench.open(len);
      bench.run(200);
    }
    bench.run(6_000);
    const counts = bench.streams.map((s) => s.appends);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(3);
    // Every open stream kept a token for its final (a promoted append): the plan never asked for one
    // the budget had to refuse.
    expect(bench.refused).toBe(0);
    expect(bench.busiestWindow()).toBeLessThanOrEqual(APPEND.limit);
    // The burst is spent on the streams, not left idle: about 4 each.
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(70);
  });

  it('the first appends come as soon as the relay allows; later ones further and further apart', () => {
    const bench = new Bench();
    const s = bench.open(60_000);
    const at: number[] = [];
    for (let t = 0; t < 10_000; t += TICK_MS) {
      const before = s.appends;
      bench.run(TICK_MS);
      if (s.appends > before) at.push(bench.now);
    }
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0));
    expect(at[0]! - 1_000_000).toBeLessThanOrEqual(500);
    expect(gaps.slice(0, 2).every((g) => g <= 450)).toBe(true);
    expect(gaps[2]!).toBeGreaterThan(gaps[1]!);
  });

  it('a lone stream claims only its share: the starts still possible this minute keep theirs', () => {
    const bench = new Bench();
    const lone = bench.open(30_000);
    bench.run(20_000);
    // (100 - 1 reserved final) / (1 open + 19 starts left): 4 appends, not the whole burst.
    expect(lone.appends).toBe(4);
    // The 19 that start now still find their share in the budget.
    for (const len of lengths(19)) bench.open(len);
    bench.run(6_000);
    for (const s of bench.streams.slice(1)) expect(s.appends).toBeGreaterThanOrEqual(3);
    expect(bench.busiestWindow()).toBeLessThanOrEqual(APPEND.limit);
    expect(bench.refused).toBe(0);
  });

  it('streams that end early leave their share to the streams still open', () => {
    const bench = new Bench();
    const short = Array.from({ length: 10 }, () => bench.open(1_000));
    const long = Array.from({ length: 10 }, () => bench.open(30_000));
    bench.run(2_000);
    // (100 - 20 reserved) / 20 claimants = 4 each while all are open.
    const before = long.map((s) => s.appends);
    bench.run(28_000);
    for (const s of short) expect(s.appends).toBeLessThanOrEqual(2);
    // Once the short ones ended, the long ones' share grew past 4: (100 - taken - 10 + spent) / 10.
    for (const [i, s] of long.entries()) expect(s.appends).toBeGreaterThan(Math.max(4, before[i] ?? 0));
    expect(bench.busiestWindow()).toBeLessThanOrEqual(APPEND.limit);
    expect(bench.refused).toBe(0);
  });

  it('streams starting at the full start rate for ever: each still shows at least 3 appends, budget refilled', () => {
    const bench = new Bench();
    // One start every 3 s (20 a minute) for 5 minutes, each answer 6 s long: the window refills.
    for (let i = 0; i < 100; i++) {
      bench.open(6_000);
      bench.run(3_000);
    }
    bench.run(6_000);
    const counts = bench.streams.map((s) => s.appends);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(3);
    expect(bench.busiestWindow()).toBeLessThanOrEqual(APPEND.limit);
    expect(bench.refused).toBe(0);
  });

  it('refill: after a burst spent the budget, streams a window later get their share again', () => {
    const bench = new Bench();
    for (const len of lengths(20)) bench.open(len);
    bench.run(8_000);
    const spentBurst = bench.grants.length;
    expect(spentBurst).toBeGreaterThanOrEqual(60);
    // Within the minute no start is possible (20 taken); a minute later both budgets refilled.
    bench.run(60_000);
    const later = lengths(20).map((len) => bench.open(len));
    bench.run(8_000);
    for (const s of later) expect(s.appends).toBeGreaterThanOrEqual(3);
    expect(bench.busiestWindow()).toBeLessThanOrEqual(APPEND.limit);
    expect(bench.refused).toBe(0);
  });

  it('fairShare and shareDue: the arithmetic', () => {
    // A full budget, the first stream of a minute: 99 / 20.
    expect(fairShare({ limit: 100, taken: 0, reserved: 1, open: 1, spentByOpen: 0, startsLeft: 19 })).toBeCloseTo(4.95);
    // Starts used up: what is left, plus what the open streams spent, over the open streams.
    expect(fairShare({ limit: 100, taken: 60, reserved: 20, open: 20, spentByOpen: 60, startsLeft: 0 })).toBe(4);
    // Share spent: looked at again in a second; otherwise 400 ms apart, then doubling.
    expect(shareDue(4, 4, 0, 5_000, 6_000)).toBe(7_000);
    expect(shareDue(0, 4, 1_000, 0, 1_000)).toBe(1_400);
    expect(shareDue(2, 5, 1_000, 2_000, 2_000)).toBe(2_400);
    expect(shareDue(3, 5, 1_000, 2_000, 2_000)).toBe(2_800);
    expect(shareDue(4, 5, 1_000, 2_000, 2_000)).toBe(3_600);
  });
});
