/**
 * One scheduler per process spends the platforms' rate budgets for every answer at once.
 *
 * Budgets live in the state store (`takeToken`), so with Redis one workspace's budget is one budget
 * whichever instance spends it. Waiting calls are served finals first, then interims, FIFO within
 * each class. Interims may only use a share of each budget (an extra `<key>:interim` budget), so
 * streaming edits never starve the edits that show an answer's final text.
 *
 * On budgets with a long window (Slack chat.update: 50 a minute) a final that finds the budget spent
 * waits up to the whole window, so two more rules keep finals from waiting there:
 * - reservation: every answer in flight registers the final it will need (`expectFinal`); interims
 *   only take tokens beyond those reserved finals;
 * - fair spacing: the rate of such a budget is split evenly among the answers in flight
 *   (`interimSpacingMs`), so interims get rarer as answers get more, and a burst of new answers
 *   finds the budget still there for their finals.
 */
import type { Logger } from 'pino';
import { PlatformRateLimitError, type RateBudget } from '../surface';
import type { StateStore } from '../../state/store';

export type Priority = 'final' | 'interim';

export interface SchedulerOptions {
  store: StateStore;
  log?: Logger;
  /** Calls of one job in all (the first and its retries after a platform 429). */
  maxTries?: number;
  /** Fraction of each budget that interim calls may use; the rest is kept for finals. */
  interimShare?: number;
  /**
   * Budgets whose window is longer than this get final reservation and fair interim spacing; shorter
   * windows refill before a final could wait long.
   */
  reserveAboveWindowMs?: number;
  now?: () => number;
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
}

/** Raised to the callers of waiting jobs when the scheduler closes. */
export class SchedulerClosedError extends Error {
  constructor() {
    super('scheduler closed');
    this.name = 'SchedulerClosedError';
  }
}

function rateLimitDelay(err: unknown): number | undefined {
  if (err instanceof PlatformRateLimitError) return err.retryAfterMs;
  // Duck-typed too: a surface bundled with another copy of the class must still be obeyed.
  if (err instanceof Error && err.name === 'PlatformRateLimitError') {
    const ms = (err as Error & { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/** A platform 429 (Retry-After), which the scheduler retries itself. */
export function isPlatformRateLimit(err: unknown): boolean {
  return rateLimitDelay(err) !== undefined;
}

const MIN_WAKE_MS = 5;

export class BudgetScheduler {
  private readonly store: StateStore;
  private readonly log?: Logger;
  private readonly maxTries: number;
  private readonly interimShare: number;
  private readonly reserveAboveWindowMs: number;
  /** Per budget key: answers in flight that still need their final call. */
  private readonly finalsDue = new Map<string, number>();
  private readonly now: () => number;
  private readonly waiting: Job[] = [];
  /** Budget keys the platform told us to leave alone until the given time (Retry-After). */
  private readonly pausedUntil = new Map<string, number>();
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
    this.interimShare = opts.interimShare ?? 0.5;
    this.reserveAboveWindowMs = opts.reserveAboveWindowMs ?? 1_000;
    this.now = opts.now ?? Date.now;
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
        });
      }
      this.kick();
    });
  }

  /**
   * Registers an answer that will need one final call on `budgets`: until the returned release is
   * called, interims leave one token of each (long-window) budget for it. Release is idempotent.
   */
  expectFinal(budgets: RateBudget[]): () => void {
    const keys = budgets.filter((b) => this.reserves(b)).map((b) => b.key);
    for (const k of keys) this.finalsDue.set(k, (this.finalsDue.get(k) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const k of keys) {
        const left = (this.finalsDue.get(k) ?? 1) - 1;
        if (left > 0) this.finalsDue.set(k, left);
        else this.finalsDue.delete(k);
      }
      // Tokens an interim was refused for may be free now.
      if (keys.length > 0 && this.waiting.length > 0) this.kick();
    };
  }

  /** Answers registered on budget `key` that still need their final call. */
  finalsAwaited(key: string): number {
    return this.finalsDue.get(key) ?? 0;
  }

  /**
   * Least time between two interim calls of one answer on `budgets`: each long-window budget's rate
   * divided evenly among the answers awaiting their final (0 when none applies). The interim share
   * still caps what all interims together take.
   */
  interimSpacingMs(budgets: RateBudget[]): number {
    let spacing = 0;
    for (const b of budgets) {
      if (!this.reserves(b)) continue;
      const sharers = Math.max(1, this.finalsAwaited(b.key));
      spacing = Math.max(spacing, (b.windowMs * sharers) / Math.max(1, b.limit));
    }
    return spacing;
  }

  private reserves(b: RateBudget): boolean {
    return b.windowMs > this.reserveAboveWindowMs;
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
    const finals = this.waiting.filter((j) => j.priority === 'final').sort(bySeq);
    const interims = this.waiting.filter((j) => j.priority === 'interim').sort(bySeq);
    return [...finals, ...interims];
  }

  /**
   * The budgets a job spends: interims spend their share first, so a refusal there costs finals
   * nothing, then the budget itself with the reserved finals left out of its limit (a sliding-window
   * store grants only while fewer than `limit` tokens were taken, so a lower limit leaves that many).
   */
  private spend(job: Job): RateBudget[] {
    if (job.priority === 'final') return job.budgets;
    const shares = job.budgets.map((b) => ({
      key: `${b.key}:interim`,
      limit: Math.max(1, Math.floor(b.limit * this.interimShare)),
      windowMs: b.windowMs,
    }));
    const unreserved = job.budgets.map((b) => (this.reserves(b) ? { ...b, limit: b.limit - this.finalsAwaited(b.key) } : b));
    return [...shares, ...unreserved];
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
          if (job.notBefore > now) {
            wakeIn = Math.min(wakeIn, job.notBefore - now);
            continue;
          }
          const budgets = this.spend(job);
          // A key an earlier (higher-priority) job could not get stays blocked for later jobs, so
          // a token freed in the meantime goes to the earlier one on the next pass.
          const stuck = budgets.find((b) => blocked.has(b.key) || (this.pausedUntil.get(b.key) ?? 0) > now);
          if (stuck) {
            const paused = (this.pausedUntil.get(stuck.key) ?? 0) - now;
            if (paused > 0) wakeIn = Math.min(wakeIn, paused);
            for (const b of budgets) blocked.add(b.key);
            continue;
          }
          if (budgets.some((b) => b.limit <= 0)) {
            // All that is left is reserved for finals: a release or a promotion wakes the pump; the
            // timer is a backstop. Nothing is taken, so the interim share is not spent on a refusal.
            wakeIn = Math.min(wakeIn, 1_000);
            for (const b of budgets) blocked.add(b.key);
            continue;
          }
          let granted = true;
          for (const b of budgets) {
            const decision = await this.store.takeToken(b.key, b.limit, b.windowMs);
            if (!decision.granted) {
              granted = false;
              wakeIn = Math.min(wakeIn, Math.min(decision.retryInMs, b.windowMs));
              for (const other of budgets) blocked.add(other.key);
              break;
            }
          }
          if (granted) this.start(job);
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

  private wakeAfter(ms: number): void {
    if (this.closed) return;
    const at = this.now() + Math.max(MIN_WAKE_MS, ms);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, Math.max(MIN_WAKE_MS, ms));
  }

  private start(job: Job): void {
    const i = this.waiting.indexOf(job);
    if (i >= 0) this.waiting.splice(i, 1);
    job.tries++;
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
          if (delay !== undefined && job.tries < this.maxTries && !this.closed) {
            const until = this.now() + Math.max(0, delay);
            for (const b of job.budgets) this.pausedUntil.set(b.key, Math.max(this.pausedUntil.get(b.key) ?? 0, until));
            this.log?.warn({ retryAfterMs: delay, tries: job.tries }, 'platform rate limit, retrying');
            job.notBefore = until;
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
