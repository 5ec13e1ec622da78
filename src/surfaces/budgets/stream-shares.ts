/**
 * Fair shares of a budget that is spent by streams, each of which took a token of another budget to
 * start (Slack: chat.appendStream, 100 a minute, spent by native streams that each took a
 * chat.startStream token, 20 a minute). Every stream that may run within the window claims an equal
 * share: the streams open now, and the starts still possible this minute. So a burst of streams
 * spends the burst the budget holds, and streams starting at the start budget's full rate for ever
 * still get limit / startLimit appends each (5 on Slack).
 *
 * How a stream spends its share is planned for an answer of unknown length: its first appends come
 * as soon as the caller allows (a short answer still grows a few times), the later ones further and
 * further apart (a long one keeps growing without spending its share early).
 *
 * Pure bookkeeping on the plan's clock (FinalsPlan owns it): no timers, no store.
 */
import type { RateBudget } from '../../core/surface';

/** The appends that go as soon as the caller allows: a short answer still shows that many steps. */
const EAGER_APPENDS = 3;
/** The least gap of the first appends; later gaps double from it (EAGER_APPENDS onwards). */
const EAGER_GAP_MS = 400;
/** A stream whose share is spent looks again this often (streams ending or starts expiring free it). */
const RECHECK_MS = 1_000;

/** What the share of one stream is computed from (all counts within the budget's window). */
export interface ShareState {
  /** The shared budget's limit. */
  limit: number;
  /** Tokens of it taken within its window (by this process). */
  taken: number;
  /** Finals reserved on it (one per stream open now). */
  reserved: number;
  /** Streams open now. */
  open: number;
  /** Tokens the open streams took within the window. */
  spentByOpen: number;
  /** Starts still possible within the start budget's window. */
  startsLeft: number;
}

/**
 * Appends one stream may take in all (within the window): what the budget holds after the reserved
 * finals, with what the open streams spent already, split over the open streams and the streams
 * that may still start.
 */
export function fairShare(s: ShareState): number {
  const claimants = Math.max(1, s.open + s.startsLeft);
  return Math.max(0, s.limit - s.taken - s.reserved + s.spentByOpen) / claimants;
}

/**
 * When a stream's next append may go: `spent` appends taken, the last at `lastAt` (0: none yet, then
 * counted from `openedAt`), within a fair share of `share`.
 */
export function shareDue(spent: number, share: number, openedAt: number, lastAt: number, now: number): number {
  if (spent + 1 > share) return now + RECHECK_MS;
  const gap = spent < EAGER_APPENDS ? EAGER_GAP_MS : EAGER_GAP_MS * 2 ** (spent - EAGER_APPENDS + 1);
  return (lastAt > 0 ? lastAt : openedAt) + gap;
}

/** Per shared budget key: the start budget whose tokens open streams on it, and when they were taken. */
export class StartShares {
  private readonly byKey = new Map<string, { start: RateBudget; starts: number[] }>();

  constructor(private readonly now: () => number) {}

  /** A stream on `shared` took a token of `start`. */
  started(shared: RateBudget, start: RateBudget): void {
    const entry = this.byKey.get(shared.key) ?? { start, starts: [] };
    entry.start = start;
    entry.starts.push(this.now());
    this.byKey.set(shared.key, entry);
  }

  /** True when streams that took starts spend `key` (it is planned by fair shares). */
  shares(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Starts still possible within the start budget's window. */
  startsLeft(key: string): number {
    const entry = this.byKey.get(key);
    if (!entry) return 0;
    const from = this.now() - entry.start.windowMs;
    while (entry.starts.length > 0 && (entry.starts[0] ?? 0) <= from) entry.starts.shift();
    return Math.max(0, entry.start.limit - entry.starts.length);
  }
}
