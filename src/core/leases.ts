/**
 * How long an instance's hold on its work lasts, and how often it is renewed and looked for: the
 * answer leases (relay/inflight.ts), the thread leases (conversations/worker.ts) and the sweeps that
 * find a dead instance's work (bridge.ts). One setting, so the takeover bound is one sum.
 *
 * A dead instance's answer is found when its lease has run out (at most `ttlMs` after its last
 * renewal) plus one sweep (`sweepMs`): with the default 6 s lease, at most 8 s after the crash, then
 * the marking edits. A live instance renews every third of the lease, so two renewals in a row must
 * miss (a stall of more than 4 s) before its work is taken for dead.
 */

/** INSTANCE_LEASE_S's default. */
export const DEFAULT_LEASE_TTL_MS = 6_000;

export interface LeaseTimings {
  /** A lease not renewed for this long is lapsed: its work belongs to whoever takes it. */
  ttlMs: number;
  /** Every holder renews this often (a third of the lease). */
  renewMs: number;
  /** Every instance looks for lapsed work this often (recovery of answers, queues left pending). */
  sweepMs: number;
}

/** The timings of a lease of `ttlMs` (default DEFAULT_LEASE_TTL_MS). */
export function leaseTimings(ttlMs: number = DEFAULT_LEASE_TTL_MS): LeaseTimings {
  const third = Math.max(1, Math.floor(ttlMs / 3));
  return { ttlMs, renewMs: third, sweepMs: third };
}

/** The longest a dead instance's answer waits before a sweep finds its lease lapsed (edits not counted). */
export function takeoverBoundMs(t: LeaseTimings): number {
  return t.ttlMs + t.sweepMs;
}
