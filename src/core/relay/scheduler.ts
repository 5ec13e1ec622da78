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
 * - planned interims: what such a budget can give interims is what it holds now plus what it will
 *   refill before the answers in flight finish (their expected remaining time, learnt from the
 *   answers that finished before), minus the reserved finals and the finals of the answers expected
 *   to arrive meanwhile (at the rate they arrived lately); that is split evenly over the answers
 *   (`interimSpacingMs`), and an answer's interim waits here until its turn (`coalesceKey` = the
 *   holder named in `expectFinal`). A lone answer then streams as fast as the caller allows, and a
 *   burst of answers finds the budget still there for their finals. An answer's first interim waits
 *   until it is `firstInterimAfterMs` old, so the plan has seen a surge arrive before it spends;
 * - commitments: something that will need a final later starts only while the budget has room for
 *   it (`reserveIfRoom`: a Slack native stream and its stop).
 *
 * A call the platform refused (429) is retried after Retry-After on the tokens it took: the refused
 * call did not count there.
 *
 * The scheduler is owned by a surface's gateway (one outbound path per surface): every platform
 * call of that surface runs through `run`, so "never over budget" holds by construction.
 */
import type { Logger } from 'pino';
import { MAX_RETRY_AFTER_MS, PlatformRateLimitError, type RateBudget } from '../surface';
import type { StateStore } from '../../state/store';

import type { Priority } from '../surface';

export type { Priority };

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
}

/** How a surface's gateway is asked for one platform call: a final unless said otherwise. */
export interface GatewayCall {
  priority?: Priority;
  coalesceKey?: string;
}

/** A gateway's one way to call its platform (see gatewayRunner). */
export type GatewayRun = <T>(budgets: RateBudget[], c: GatewayCall, fn: () => Promise<T>) => Promise<T>;

/**
 * How both surfaces' gateways put a platform call through their scheduler: a call names its
 * budgets, its priority (final unless said otherwise: a reply someone waits for) and what it
 * coalesces with, and nothing else.
 */
export function gatewayRunner(scheduler: BudgetScheduler): GatewayRun {
  return (budgets, c, fn) =>
    scheduler.run(
      budgets,
      c.priority ?? 'final',
      fn,
      c.coalesceKey === undefined ? {} : { coalesceKey: c.coalesceKey },
    );
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
/** How far back arrivals of answers count for the rate at which more will come. */
const ARRIVAL_LOOKBACK_MS = 2_000;

export class BudgetScheduler {
  private readonly store: StateStore;
  private readonly log?: Logger;
  private readonly maxTries: number;
  private readonly interimShare: number;
  private readonly reserveAboveWindowMs: number;
  private readonly firstInterimAfterMs: number;
  private readonly loadSteps: number;
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
  private readonly now: () => number;
  private readonly waiting: Job[] = [];
  /** Budget keys the platform told us to leave alone until the given time (Retry-After). */
  private readonly pausedUntil = new Map<string, number>();
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
    this.interimShare = opts.interimShare ?? 0.5;
    this.reserveAboveWindowMs = opts.reserveAboveWindowMs ?? 1_000;
    this.answerMs = opts.expectedAnswerMs ?? 6_000;
    this.firstInterimAfterMs = opts.firstInterimAfterMs ?? 1_000;
    this.loadSteps = opts.loadSteps ?? 3;
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
          paid: false,
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
    const keys = budgets.filter((b) => this.reserves(b)).map((b) => b.key);
    for (const k of keys) this.finalsDue.set(k, (this.finalsDue.get(k) ?? 0) + 1);
    const h: Holder = { keys, since: this.now(), lastInterimAt: 0 };
    if (holder !== undefined) {
      const list = this.holders.get(holder) ?? [];
      if (list.length === 0 && keys.length > 0) this.arrivals.push(h.since);
      // Counted once per answer and budget (a re-registration moves an answer, it adds no load).
      const before = new Set(list.flatMap((x) => x.keys));
      for (const k of keys) {
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
      }
      list.push(h);
      this.holders.set(holder, list);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const k of keys) {
        const left = (this.finalsDue.get(k) ?? 1) - 1;
        if (left > 0) this.finalsDue.set(k, left);
        else this.finalsDue.delete(k);
      }
      if (holder !== undefined) {
        const list = (this.holders.get(holder) ?? []).filter((x) => x !== h);
        if (list.length > 0) this.holders.set(holder, list);
        else {
          this.holders.delete(holder);
          // Learn how long answers take: the plan spreads interims over what is left of them.
          const took = this.now() - h.since;
          if (keys.length > 0 && took > 0) this.answerMs = this.answerMs * 0.8 + took * 0.2;
        }
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
   * Registers one final on each of `budgets` (as expectFinal) only while each has room for it: fewer
   * tokens taken within its window (by this process) plus finals already awaited than its limit.
   * Something that commits to a final call later (a native stream commits to its stop) starts only
   * when that final will find its token. Undefined when a budget is full.
   */
  reserveIfRoom(budgets: RateBudget[]): (() => void) | undefined {
    const full = budgets.some((b) => this.reserves(b) && this.takenIn(b) + this.finalsAwaited(b.key) >= b.limit);
    return full ? undefined : this.expectFinal(budgets);
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

  private noteTaken(b: RateBudget): void {
    if (!this.reserves(b)) return;
    const list = this.taken.get(b.key) ?? [];
    list.push(this.now());
    this.taken.set(b.key, list);
  }

  /** When an interim of `job` may go by the plan: the answer's turn on its planned budgets. */
  private interimDue(job: Job): number {
    if (job.priority !== 'interim' || job.coalesceKey === undefined) return 0;
    const h = this.holders.get(job.coalesceKey)?.at(-1);
    if (!h || h.keys.length === 0) return 0;
    const spacing = this.interimSpacingMs(job.budgets, h.since);
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

  private reserves(b: RateBudget): boolean {
    return b.plan !== false && b.windowMs > this.reserveAboveWindowMs;
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
    // Planned budgets need no share (the reservation and the plan keep their finals), nor do safety
    // buckets under a tighter budget (plan: false).
    const shares = job.budgets
      .filter((b) => b.plan !== false && !this.reserves(b))
      .map((b) => ({
        key: `${b.key}:interim`,
        limit: Math.max(1, Math.floor(b.limit * this.interimShare)),
        windowMs: b.windowMs,
      }));
    const unreserved = job.budgets.map((b) =>
      this.reserves(b) ? { ...b, limit: b.limit - this.finalsAwaited(b.key) } : b,
    );
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
          const notBefore = Math.max(job.notBefore, this.interimDue(job));
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
          const budgets = this.spend(job);
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
          let granted = true;
          for (const b of budgets) {
            const decision = await this.store.takeToken(b.key, b.limit, b.windowMs);
            if (!decision.granted) {
              granted = false;
              wakeIn = Math.min(wakeIn, Math.min(decision.retryInMs, b.windowMs));
              blocked.add(b.key);
              break;
            }
          }
          if (granted) {
            for (const b of job.budgets) this.noteTaken(b);
            if (job.priority === 'interim' && job.coalesceKey !== undefined) {
              for (const h of this.holders.get(job.coalesceKey) ?? []) h.lastInterimAt = now;
            }
            this.start(job);
          }
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
          if (delay !== undefined && job.tries < this.maxTries && !this.closed) {
            const until = this.now() + Math.max(0, delay);
            for (const b of job.budgets) this.pausedUntil.set(b.key, Math.max(this.pausedUntil.get(b.key) ?? 0, until));
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
