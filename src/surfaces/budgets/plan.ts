/**
 * The plan a BudgetScheduler spends long-window budgets by (Slack chat.update: 50 a minute), so that
 * a final that finds such a budget spent does not wait up to the whole window:
 * - reservation: every answer in flight registers the final it will need (`expectFinal`); interims
 *   only take tokens beyond those reserved finals;
 * - planned interims: what such a budget can give interims is what it holds now plus what it will
 *   refill before the answers in flight finish (their expected remaining time, learnt from the
 *   answers that finished before), minus the reserved finals and the finals of the answers expected
 *   to arrive meanwhile (at the rate they arrived lately); that is split evenly over the answers
 *   (`interimSpacingMs`), and an answer's interim waits until its turn (`interimDue`; the holder
 *   named in `expectFinal` is the coalesceKey of its calls). A lone answer then streams as fast as
 *   the caller allows, and a burst of answers finds the budget still there for their finals. An
 *   answer's first interim waits until it is `firstInterimAfterMs` old, so the plan has seen a surge
 *   arrive before it spends;
 * - commitments: something that will need a final later starts only while the budget has room for
 *   it (`reserveIfRoom`: a Slack native stream and its stop);
 * - fair shares: a budget spent by streams that each took a start token (`started`: Slack's appends)
 *   is split over the streams open now and the starts still possible (stream-shares.ts), and each
 *   stream's interims there are planned for an answer of unknown length.
 *
 * Pure bookkeeping on this process's clock: no timers, no store. The scheduler asks it when a job may
 * go and what it spends.
 */
import type { Priority, RateBudget } from '../../core/surface';
import { fairShare, StartShares, shareDue } from './stream-shares';

export interface PlanOptions {
  /** Fraction of each budget that interim calls may use; the rest is kept for finals. */
  interimShare?: number;
  /**
   * Budgets whose window is longer than this get final reservation and fair interim spacing; shorter
   * windows refill before a final could wait long.
   */
  reserveAboveWindowMs?: number;
  /** Expected length of an answer before any has finished (then learnt from finished ones). */
  expectedAnswerMs?: number;
  /**
   * Least age of an answer before its first planned interim. The plan sees a surge of answers only
   * once they have arrived for a moment: the first answers of a surge look alone, and interims they
   * spent at once were tokens the surge's finals then waited a whole window for (at 50 answers on
   * a 50-a-minute budget, one interim made one final wait most of a minute). The first words do not
   * wait for it: they go with the message's post, on another budget.
   */
  firstInterimAfterMs?: number;
  /**
   * Under load, about how many steps an answer grows in, counting its first words (see
   * loadStepMs); a lone answer is not held to it.
   */
  loadSteps?: number;
  now?: () => number;
}

/** An answer in flight that registered its final (see expectFinal). */
interface Holder {
  keys: string[];
  since: number;
  lastInterimAt: number;
  /** When this registration was made (a stream's: when it started). */
  openedAt: number;
  /** Per fair-share budget key: when the answer's interims took its tokens (kept across re-registrations). */
  spent: Map<string, number[]>;
}

/** What the plan needs to know of a waiting call. */
export interface PlannedCall {
  budgets: RateBudget[];
  priority: Priority;
  coalesceKey?: string;
}

/** How far back arrivals of answers count for the rate at which more will come. */
const ARRIVAL_LOOKBACK_MS = 2_000;

export class FinalsPlan {
  private readonly interimShare: number;
  private readonly reserveAboveWindowMs: number;
  private readonly firstInterimAfterMs: number;
  private readonly loadSteps: number;
  private readonly now: () => number;
  /** Per budget key: answers in flight that still need their final call. */
  private readonly finalsDue = new Map<string, number>();
  /** Answers in flight by holder name (the coalesceKey of their calls). */
  private readonly holders = new Map<string, Holder[]>();
  /** Per planned budget key: when this process took its tokens (within the window), oldest first. */
  private readonly taken = new Map<string, number[]>();
  /** Learnt length of an answer (an average over the answers that finished). */
  private answerMs: number;
  /**
   * Per planned budget key: when answers registered on it, within about an answer's length, oldest
   * first: the load the answers in flight have just seen (see loadStepMs).
   */
  private readonly registered = new Map<string, number[]>();
  /** When answers registered lately (within ARRIVAL_LOOKBACK_MS), oldest first. */
  private readonly arrivals: number[] = [];
  private readonly shares: StartShares;

  constructor(opts: PlanOptions) {
    this.interimShare = opts.interimShare ?? 0.5;
    this.reserveAboveWindowMs = opts.reserveAboveWindowMs ?? 1_000;
    this.answerMs = opts.expectedAnswerMs ?? 6_000;
    this.firstInterimAfterMs = opts.firstInterimAfterMs ?? 1_000;
    this.loadSteps = opts.loadSteps ?? 3;
    this.now = opts.now ?? Date.now;
    this.shares = new StartShares(this.now);
  }

  /** A stream that will spend `shared` took a token of `start` (see stream-shares.ts). */
  started(shared: RateBudget, start: RateBudget): void {
    this.shares.started(shared, start);
  }

  /**
   * Registers an answer that will need one final call on `budgets` (see BudgetScheduler.expectFinal).
   * The release answers whether it freed a planned token (the first time only).
   */
  expectFinal(budgets: RateBudget[], holder?: string): () => boolean {
    const keys = budgets.filter((b) => this.reserves(b)).map((b) => b.key);
    for (const k of keys) this.finalsDue.set(k, (this.finalsDue.get(k) ?? 0) + 1);
    const now = this.now();
    const h: Holder = { keys, since: now, lastInterimAt: 0, openedAt: now, spent: new Map() };
    if (holder !== undefined) this.addHolder(holder, h);
    let released = false;
    return () => {
      if (released) return false;
      released = true;
      for (const k of keys) {
        const left = (this.finalsDue.get(k) ?? 1) - 1;
        if (left > 0) this.finalsDue.set(k, left);
        else this.finalsDue.delete(k);
      }
      if (holder !== undefined) this.dropHolder(holder, h);
      return keys.length > 0;
    };
  }

  private addHolder(holder: string, h: Holder): void {
    const list = this.holders.get(holder) ?? [];
    if (list.length === 0 && h.keys.length > 0) this.arrivals.push(h.since);
    // Counted once per answer and budget (a re-registration moves an answer, it adds no load).
    const before = new Set(list.flatMap((x) => x.keys));
    for (const k of h.keys) {
      if (before.has(k)) continue;
      const times = this.registered.get(k) ?? [];
      times.push(h.since);
      this.registered.set(k, times);
    }
    // A re-registration (the answer's edits moved to another budget) keeps its interim rhythm.
    const prev = list[list.length - 1];
    if (prev) {
      h.since = prev.since;
      h.lastInterimAt = prev.lastInterimAt;
      h.spent = prev.spent;
    }
    list.push(h);
    this.holders.set(holder, list);
  }

  private dropHolder(holder: string, h: Holder): void {
    const list = (this.holders.get(holder) ?? []).filter((x) => x !== h);
    if (list.length > 0) {
      this.holders.set(holder, list);
      return;
    }
    this.holders.delete(holder);
    // Learn how long answers take: the plan spreads interims over what is left of them.
    const took = this.now() - h.since;
    if (h.keys.length > 0 && took > 0) this.answerMs = this.answerMs * 0.8 + took * 0.2;
  }

  /** Answers registered on budget `key` that still need their final call. */
  finalsAwaited(key: string): number {
    return this.finalsDue.get(key) ?? 0;
  }

  /** True when each (planned) budget has room for one more final: see BudgetScheduler.reserveIfRoom. */
  hasRoom(budgets: RateBudget[]): boolean {
    return !budgets.some((b) => this.reserves(b) && this.takenIn(b) + this.finalsAwaited(b.key) >= b.limit);
  }

  /**
   * Least time between two interim calls of one answer on `budgets`, from the real budget: what each
   * long-window budget holds now (as far as this process spent it) plus what it refills before the
   * answers in flight are expected to finish, minus one reserved final per answer, split evenly over
   * those answers (0 when no budget applies).
   */
  interimSpacingMs(budgets: RateBudget[], since?: number): number {
    let spacing = 0;
    const horizon = this.horizonMs();
    // Answers arriving before those in flight finish will need their finals too: projected from
    // the arrivals of the last moments (a surge of answers stops interims before it spends them).
    const coming = (this.recentArrivals() * horizon) / ARRIVAL_LOOKBACK_MS;
    for (const b of budgets) {
      if (!this.reserves(b)) continue;
      const sharers = Math.max(1, this.finalsAwaited(b.key));
      // The load: the answers sharing it now, or that registered on it within an answer's length
      // (as a surge ends, the last answers of it are not a lone answer's few).
      const load = Math.max(sharers, this.recentlyRegistered(b.key, since));
      // A tenth of the budget stays for finals nobody can foresee yet (answers, button updates).
      const holds = Math.max(0, b.limit - this.takenIn(b) - Math.ceil(b.limit / 10));
      // The store's budgets are sliding windows: what comes back within the horizon is what was
      // taken a window ago.
      const refills = this.expiringWithin(b, horizon);
      const spendable = holds + refills - sharers - coming;
      const gap = spendable <= 0 ? b.windowMs : (horizon * sharers) / spendable;
      spacing = Math.max(
        spacing,
        Math.min(b.windowMs, Math.max(gap, this.loadStepMs(load, b.loadSteps ?? this.loadSteps))),
      );
    }
    return Math.round(spacing);
  }

  /**
   * The least spacing of an answer's interims when `sharers` answers load a budget: none for a
   * lone answer (it grows as fast as the caller allows), rising with load towards a `steps`-th of
   * an answer's expected length, so that under load an answer grows in about `steps` steps
   * counting its first words, whatever burst the budget still holds. That burst spent on interims
   * under load buys readers little and costs the workspace many calls: 20 native streams at once
   * spent about 4 appends each without it.
   */
  private loadStepMs(sharers: number, steps: number): number {
    return (this.answerMs * (1 - 1 / Math.max(1, sharers))) / steps;
  }

  /**
   * Answers that registered on budget `key` within about an answer's length, or, for an answer
   * registered `since`, the ones that overlapped it (from an answer's length before it began).
   */
  private recentlyRegistered(key: string, since?: number): number {
    const times = this.registered.get(key);
    if (!times) return 0;
    const now = this.now();
    const kept = now - 2 * this.answerMs;
    while (times.length > 0 && (times[0] ?? 0) <= kept) times.shift();
    if (times.length === 0) this.registered.delete(key);
    const from = Math.min(now, since ?? now) - this.answerMs;
    return times.filter((t) => t > from).length;
  }

  /** Answers registered within the last ARRIVAL_LOOKBACK_MS. */
  private recentArrivals(): number {
    const from = this.now() - ARRIVAL_LOOKBACK_MS;
    while (this.arrivals.length > 0 && (this.arrivals[0] ?? 0) <= from) this.arrivals.shift();
    return this.arrivals.length;
  }

  /** How long the answers in flight are expected to go on (on average; at least a second). */
  private horizonMs(): number {
    const now = this.now();
    let sum = 0;
    let n = 0;
    for (const list of this.holders.values()) {
      const h = list[0];
      if (!h) continue;
      sum += Math.max(1_000, this.answerMs - (now - h.since));
      n++;
    }
    return n === 0 ? Math.max(1_000, this.answerMs) : sum / n;
  }

  /** Tokens of `b` this process took within its window. */
  private takenIn(b: RateBudget): number {
    const list = this.taken.get(b.key);
    if (!list) return 0;
    const from = this.now() - b.windowMs;
    while (list.length > 0 && (list[0] ?? 0) <= from) list.shift();
    return list.length;
  }

  /** Tokens of `b` this process took that leave its window within `ms`. */
  private expiringWithin(b: RateBudget, ms: number): number {
    const list = this.taken.get(b.key);
    if (!list) return 0;
    this.takenIn(b);
    const until = this.now() - b.windowMs + ms;
    let n = 0;
    for (const t of list) {
      if (t > until) break;
      n++;
    }
    return n;
  }

  /**
   * A call's tokens were granted: the plan counts them, and an interim taken when it was due at
   * `dueAt` (the pass that granted it) has had its turn.
   */
  granted(call: PlannedCall, dueAt: number): void {
    for (const b of call.budgets) {
      if (!this.reserves(b)) continue;
      const list = this.taken.get(b.key) ?? [];
      list.push(this.now());
      this.taken.set(b.key, list);
    }
    if (call.priority === 'interim' && call.coalesceKey !== undefined) {
      const list = this.holders.get(call.coalesceKey) ?? [];
      for (const h of list) h.lastInterimAt = dueAt;
      const spent = list.at(-1)?.spent;
      for (const b of call.budgets) {
        if (!spent || !this.shares.shares(b.key)) continue;
        spent.set(b.key, [...(spent.get(b.key) ?? []), this.now()]);
      }
    }
  }

  /** When an interim may go by the plan: the answer's turn on its planned budgets (0: now). */
  interimDue(call: PlannedCall): number {
    if (call.priority !== 'interim' || call.coalesceKey === undefined) return 0;
    const h = this.holders.get(call.coalesceKey)?.at(-1);
    if (!h || h.keys.length === 0) return 0;
    const shared = call.budgets.filter((b) => this.shares.shares(b.key) && h.keys.includes(b.key));
    if (shared.length > 0) return Math.max(...shared.map((b) => this.shareDueOf(h, b)));
    const spacing = this.interimSpacingMs(call.budgets, h.since);
    if (spacing <= 0) return 0;
    // The first interim comes a whole turn after the answer's first words (its first message or
    // stream start carries them), and not before the plan has seen whether a surge is arriving
    // (firstInterimAfterMs).
    const due = h.lastInterimAt > 0 ? h.lastInterimAt + spacing : h.since + Math.max(spacing, this.firstInterimAfterMs);
    // An interim due within half a turn of the answer's expected end would show its text a moment
    // before the final does: it waits until half a turn past that end (an answer that ends as
    // expected sends its final instead; a longer one grows again then).
    const end = h.since + this.answerMs;
    return due > end - spacing / 2 && due < end + spacing / 2 ? end + spacing / 2 : due;
  }

  /** When holder `h`'s next interim on fair-share budget `b` may go (see stream-shares.ts). */
  private shareDueOf(h: Holder, b: RateBudget): number {
    const from = this.now() - b.windowMs;
    const within = (x: Holder): number => (x.spent.get(b.key) ?? []).filter((t) => t > from).length;
    let spentByOpen = 0;
    for (const list of this.holders.values()) {
      const x = list.at(-1);
      if (x?.keys.includes(b.key)) spentByOpen += within(x);
    }
    const share = fairShare({
      limit: b.limit,
      taken: this.takenIn(b),
      reserved: this.finalsAwaited(b.key),
      open: this.finalsAwaited(b.key),
      spentByOpen,
      startsLeft: this.shares.startsLeft(b.key),
    });
    return shareDue(within(h), share, h.openedAt, h.lastInterimAt, this.now());
  }

  private reserves(b: RateBudget): boolean {
    return b.plan !== false && b.windowMs > this.reserveAboveWindowMs;
  }

  /**
   * The budgets a call spends: interims spend their share first, so a refusal there costs finals
   * nothing, then the budget itself with the reserved finals left out of its limit (a sliding-window
   * store grants only while fewer than `limit` tokens were taken, so a lower limit leaves that many).
   */
  spend(call: PlannedCall): RateBudget[] {
    if (call.priority === 'final') return call.budgets;
    // Planned budgets need no share (the reservation and the plan keep their finals), nor do safety
    // buckets under a tighter budget (plan: false).
    const shares = call.budgets
      .filter((b) => b.plan !== false && !this.reserves(b))
      .map((b) => ({
        key: `${b.key}:interim`,
        limit: Math.max(1, Math.floor(b.limit * this.interimShare)),
        windowMs: b.windowMs,
      }));
    const unreserved = call.budgets.map((b) =>
      this.reserves(b) ? { ...b, limit: b.limit - this.finalsAwaited(b.key) } : b,
    );
    return [...shares, ...unreserved];
  }
}
