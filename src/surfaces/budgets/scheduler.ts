/**
 * One scheduler per surface gateway spends the platform's rate budgets for every call of that
 * surface at once.
 *
 * Budgets live in the state store (`takeToken`), so with Redis one workspace's budget is one budget
 * whichever instance spends it. Waiting calls are served finals first, then interims, FIFO within
 * each class. Interims may only use a share of each budget (an extra `<key>:interim` budget), so
 * streaming edits never starve the edits that show an answer's final text. Budgets with a long
 * window are spent by a plan (plan.ts: final reservation, planned interims, commitments).
 *
 * A final on short-window budgets only may be granted its tokens ahead (bookings.ts): it starts then,
 * on those tokens. A call the platform refused (429) is retried after Retry-After on the tokens it
 * took: the refused call did not count there.
 *
 * The scheduler is owned by a surface's gateway (one outbound path per surface, through
 * GatewayBudgets): every platform call of that surface runs through `run`, so "never over budget"
 * holds by construction.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { MAX_RETRY_AFTER_MS, type Priority, type RateBudget, rateLimitDelay } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { withBookings } from './bookings';
import { FinalsPlan, type PlanOptions } from './plan';
import { Refusals } from './refusals';

export interface SchedulerOptions extends PlanOptions {
  store: StateStore;
  log?: Logger;
  /** Calls of one job in all (the first and its retries after a platform 429). */
  maxTries?: number;
}

export interface RunOptions {
  /**
   * Coalescing: a job submitted while another job with the same key still waits for tokens
   * replaces that job's function (the newer content wins); both callers get the newer result.
   */
  coalesceKey?: string;
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Job {
  seq: number;
  budgets: RateBudget[];
  priority: Priority;
  fn: () => Promise<unknown>;
  waiters: Waiter[];
  tries: number;
  coalesceKey?: string;
  notBefore: number;
  /**
   * The job holds its tokens already: the platform refused its call (429), so that call did not
   * count there, and its retry goes out on the tokens it took (after Retry-After) instead of taking
   * more. Taking again would charge a storm twice and leave finals behind it waiting a whole window.
   */
  paid: boolean;
  /**
   * When the job's booked tokens start to count (performance.now(); 0: not booked): the store
   * granted them ahead (bookings.ts), and the job goes then, not before (its tokens would not count
   * yet) and not held later by the plan (the slot is its own).
   */
  bookedAt: number;
}

/** Raised to the callers of waiting jobs when the scheduler closes. */
export class SchedulerClosedError extends Error {
  constructor() {
    super('scheduler closed');
    this.name = 'SchedulerClosedError';
  }
}

const MIN_WAKE_MS = 5;

export class BudgetScheduler {
  private readonly store: StateStore;
  private readonly log?: Logger;
  private readonly maxTries: number;
  private readonly plan: FinalsPlan;
  private readonly now: () => number;
  private readonly waiting: Job[] = [];
  /** Budget keys the platform told us to leave alone until the given time (Retry-After). */
  private readonly pausedUntil = new Map<string, number>();
  /** Budgets the store refused, until their tokens may free (refusals.ts). */
  private readonly refusals = new Refusals();
  /** Budget keys whose over-the-ceiling Retry-After was logged, until it runs out (logged once). */
  private readonly ceilingLogged = new Map<string, number>();
  private seq = 0;
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;
  private running = 0;

  constructor(opts: SchedulerOptions) {
    this.store = opts.store;
    this.log = opts.log;
    this.maxTries = opts.maxTries ?? 5;
    this.now = opts.now ?? Date.now;
    this.plan = new FinalsPlan(opts);
  }

  /** Jobs waiting for tokens (not yet started). */
  get pending(): number {
    return this.waiting.length;
  }

  /** Jobs currently calling the platform. */
  get active(): number {
    return this.running;
  }

  run<T>(budgets: RateBudget[], priority: Priority, fn: () => Promise<T>, opts: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new SchedulerClosedError());
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { resolve: resolve as (v: unknown) => void, reject };
      const key = opts.coalesceKey;
      const queued = key === undefined ? undefined : this.waiting.find((j) => j.coalesceKey === key);
      if (queued) {
        queued.fn = fn;
        queued.budgets = budgets;
        if (priority === 'final') queued.priority = 'final';
        queued.waiters.push(waiter);
      } else {
        this.waiting.push({
          seq: this.seq++,
          budgets,
          priority,
          fn,
          waiters: [waiter],
          tries: 0,
          coalesceKey: key,
          notBefore: 0,
          paid: false,
          bookedAt: 0,
        });
      }
      this.kick();
    });
  }

  /**
   * Registers an answer that will need one final call on `budgets`: until the returned release is
   * called, interims leave one token of each (long-window) budget for it. `holder` names the answer
   * (the coalesceKey of its calls): its interims on those budgets are then spaced by the plan (see
   * interimSpacingMs). Release is idempotent.
   */
  expectFinal(budgets: RateBudget[], holder?: string): () => void {
    const release = this.plan.expectFinal(budgets, holder);
    return () => {
      // Tokens an interim was refused for may be free now.
      if (release() && this.waiting.length > 0) this.kick();
    };
  }

  /** Answers registered on budget `key` that still need their final call. */
  finalsAwaited(key: string): number {
    return this.plan.finalsAwaited(key);
  }

  /**
   * Registers one final on each of `budgets` (as expectFinal) only while each has room for it: fewer
   * tokens taken within its window (by this process) plus finals already awaited than its limit.
   * Something that commits to a final call later (a native stream commits to its stop) starts only
   * when that final will find its token. Undefined when a budget is full.
   */
  reserveIfRoom(budgets: RateBudget[]): (() => void) | undefined {
    return this.plan.hasRoom(budgets) ? this.expectFinal(budgets) : undefined;
  }

  /**
   * Takes one token of `start` now, never waiting (undefined when none is free): a stream opens that
   * will spend `shared`, which the plan then splits in fair shares over the streams that may run
   * (see stream-shares.ts).
   */
  async takeStart(start: RateBudget, shared: RateBudget): Promise<boolean> {
    const { granted } = await this.store.takeToken(start.key, start.limit, start.windowMs);
    if (granted) this.plan.started(shared, start);
    return granted;
  }

  /** Least time between two interim calls of one answer on `budgets` (see FinalsPlan). */
  interimSpacingMs(budgets: RateBudget[], since?: number): number {
    return this.plan.interimSpacingMs(budgets, since);
  }

  /** Raise a waiting job to final priority (its answer has just finished). True when found. */
  promote(coalesceKey: string): boolean {
    const job = this.waiting.find((j) => j.coalesceKey === coalesceKey);
    if (!job) return false;
    job.priority = 'final';
    this.kick();
    return true;
  }

  /** Rejects every waiting job and stops the timers. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const job of this.waiting.splice(0)) for (const w of job.waiters) w.reject(new SchedulerClosedError());
  }

  private kick(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    void this.pump();
  }

  private ordered(): Job[] {
    const bySeq = (a: Job, b: Job): number => a.seq - b.seq;
    // Jobs holding their tokens first: they only start (no store call), and a booked one on time.
    const paid = this.waiting.filter((j) => j.paid).sort(bySeq);
    const finals = this.waiting.filter((j) => !j.paid && j.priority === 'final').sort(bySeq);
    const interims = this.waiting.filter((j) => !j.paid && j.priority === 'interim').sort(bySeq);
    return [...paid, ...finals, ...interims];
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    let wakeIn = Infinity;
    try {
      do {
        this.pumpAgain = false;
        wakeIn = Infinity;
        const blocked = new Set<string>();
        for (const job of this.ordered()) {
          if (this.closed) return;
          const now = this.now();
          const booked = job.bookedAt - performance.now();
          if (job.bookedAt > 0 && booked > 0) {
            wakeIn = Math.min(wakeIn, booked);
            continue;
          }
          const notBefore = Math.max(job.notBefore, job.bookedAt > 0 ? 0 : this.plan.interimDue(job));
          if (notBefore > now) {
            wakeIn = Math.min(wakeIn, notBefore - now);
            continue;
          }
          if (job.paid) {
            // A retry after a 429 holds its tokens already (see Job.paid): only a pause holds it.
            const paused = Math.max(0, ...job.budgets.map((b) => (this.pausedUntil.get(b.key) ?? 0) - now));
            if (paused > 0) wakeIn = Math.min(wakeIn, paused);
            else this.start(job);
            continue;
          }
          const budgets = this.plan.spend(job);
          // A key an earlier (higher-priority) job could not get stays blocked for later jobs, so
          // a token freed in the meantime goes to the earlier one on the next pass. Only that key:
          // the job's other budgets (a channel's job also spends the bot's global budget) stay open
          // to later jobs, or one channel waiting its turn would hold every other channel back.
          const stuck = budgets.find((b) => blocked.has(b.key) || (this.pausedUntil.get(b.key) ?? 0) > now);
          if (stuck) {
            const paused = (this.pausedUntil.get(stuck.key) ?? 0) - now;
            if (paused > 0) wakeIn = Math.min(wakeIn, paused);
            blocked.add(stuck.key);
            continue;
          }
          const reserved = budgets.filter((b) => b.limit <= 0);
          if (reserved.length > 0) {
            // All that is left is reserved for finals: a release or a promotion wakes the pump; the
            // timer is a backstop. Nothing is taken, so the interim share is not spent on a refusal.
            wakeIn = Math.min(wakeIn, 1_000);
            for (const b of reserved) blocked.add(b.key);
            continue;
          }
          // A budget the store refused lately stays refused until its oldest token ages out: asking
          // again before would cost a store call and get the same answer (tokens free only by time).
          const refused = budgets.find((b) => this.refusals.holds(b));
          if (refused) {
            wakeIn = Math.min(wakeIn, this.refusals.waitMs(refused));
            blocked.add(refused.key);
            continue;
          }
          wakeIn = Math.min(wakeIn, await this.take(job, budgets, now, blocked));
        }
      } while (this.pumpAgain && !this.closed);
    } catch (err) {
      // The store failing must not strand callers: fail the waiting jobs rather than hang them.
      this.log?.error({ err }, 'rate budget store failed');
      for (const job of this.waiting.splice(0)) for (const w of job.waiters) w.reject(err);
    } finally {
      this.pumping = false;
    }
    if (this.waiting.length > 0 && Number.isFinite(wakeIn)) this.wakeAfter(wakeIn);
  }

  /**
   * Every budget of the call in one store call: all its tokens, or none; now (the job starts), or
   * booked ahead (it starts then). Resolves to when the pump should look again for this job's sake.
   */
  private async take(job: Job, budgets: RateBudget[], now: number, blocked: Set<string>): Promise<number> {
    const decision =
      budgets.length === 0 ? undefined : await this.store.takeTokens(withBookings(budgets, job.priority));
    if (decision && !decision.granted) {
      const full = budgets[decision.full ?? 0] ?? budgets[0]!;
      this.refusals.refused(full, decision.retryInMs);
      blocked.add(full.key);
      return Math.min(decision.retryInMs, full.windowMs);
    }
    this.plan.granted(job, now);
    const startIn = decision?.startInMs ?? 0;
    if (startIn > 0) {
      // Booked: the job holds its tokens from then on and starts then (see Job.bookedAt).
      job.paid = true;
      job.bookedAt = performance.now() + startIn;
      return startIn;
    }
    this.start(job);
    return Infinity;
  }

  private wakeAfter(ms: number): void {
    if (this.closed) return;
    const at = this.now() + Math.max(MIN_WAKE_MS, ms);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.kick();
      },
      Math.max(MIN_WAKE_MS, ms),
    );
    // Waiting calls hold their callers' promises, not the process.
    this.timer.unref();
  }

  /**
   * A Retry-After past the ceiling: the call is not retried (its caller gets the 429), and the log
   * says so once per budget while that Retry-After lasts, however many calls meet it.
   */
  private pastCeiling(job: Job, delay: number): void {
    const now = this.now();
    const key = job.budgets.map((b) => b.key).join(',');
    if ((this.ceilingLogged.get(key) ?? 0) > now) return;
    this.ceilingLogged.set(key, now + delay);
    this.log?.warn(
      { retryAfterMs: delay, ceilingMs: MAX_RETRY_AFTER_MS, budgets: key },
      'platform Retry-After past the 60 s ceiling: the call fails as a 429, not retried',
    );
  }

  private start(job: Job): void {
    const i = this.waiting.indexOf(job);
    if (i >= 0) this.waiting.splice(i, 1);
    job.tries++;
    job.bookedAt = 0;
    this.running++;
    const fn = job.fn;
    void Promise.resolve()
      .then(fn)
      .then(
        (value) => {
          this.running--;
          for (const w of job.waiters) w.resolve(value);
        },
        (err: unknown) => {
          this.running--;
          const delay = rateLimitDelay(err);
          if (delay !== undefined && delay > MAX_RETRY_AFTER_MS) {
            this.pastCeiling(job, delay);
            for (const w of job.waiters) w.reject(err);
            return;
          }
          if (delay === undefined) {
            for (const w of job.waiters) w.reject(err);
            return;
          }
          // The platform's Retry-After holds for the budget whether or not this job tries again: a
          // job out of tries fails, and its caller's next call (a recovery, a fallback) waits too.
          const until = this.now() + Math.max(0, delay);
          for (const b of job.budgets) this.pausedUntil.set(b.key, Math.max(this.pausedUntil.get(b.key) ?? 0, until));
          if (job.tries < this.maxTries && !this.closed) {
            this.log?.warn({ retryAfterMs: delay, tries: job.tries }, 'platform rate limit, retrying');
            job.notBefore = until;
            job.paid = true;
            // A job that may have been coalesced into meanwhile must not be duplicated.
            this.waiting.push(job);
            this.kick();
            return;
          }
          for (const w of job.waiters) w.reject(err);
        },
      );
  }
}
