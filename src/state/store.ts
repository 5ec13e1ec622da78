/**
 * The durable state of the bridge behind one interface.
 *
 * Implementations: SQLite (`sqlite:<path>`, embedded, survives a restart) and Redis (`redis://...`,
 * shared by several instances). Core depends only on this interface, so every operation that must be
 * atomic across instances is a primitive here rather than a read-modify-write in core.
 *
 * Values are JSON-serialisable; callers validate what they read back with their own zod schema.
 * Times are milliseconds. Keys are plain strings; core namespaces them (`conv:`, `ticket:`, ...).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface QueueItem<T extends Json = Json> {
  /** Store-assigned, increasing within one queue: the order items were pushed. */
  id: string;
  value: T;
}

export interface LeaseInfo {
  owner: string;
  /** Epoch ms after which the lease counts as abandoned. */
  expiresAt: number;
}

/**
 * A lease as one acquisition holds it: `token` is the fencing token, a number that grows with every
 * acquisition of the lease by an owner that did not hold it (a renewal keeps it). A write made with
 * a fence is refused once the lease is held with another token, has run out, or was released: a
 * holder that stalled past its lease cannot write over what the next holder does.
 */
export interface Fence {
  lease: string;
  owner: string;
  token: number;
}

/**
 * One write of a fenced batch (`StateStore.writeFenced`). `unschedule` takes a due index's entry out;
 * `release` lets the fence's own lease go (last in a batch: the work's end in one step). `ifEmpty`
 * is a condition, not a write: the batch stops there (the writes before it written, none after it)
 * unless `queue` is empty, so a drained queue's end goes in the step of its last ack.
 */
export type FencedWrite =
  | { op: 'set'; key: string; value: Json; ttlMs?: number }
  | { op: 'delete'; key: string }
  | { op: 'ack'; queue: string; id: string }
  | { op: 'unschedule'; index: string; member: string }
  | { op: 'ifEmpty'; queue: string }
  | { op: 'release' };

/**
 * What a fenced batch did: refused (`false`: nothing written), written whole (`true`), or written up
 * to an `ifEmpty` whose queue had items (`'stopped'`).
 */
export type FencedOutcome = boolean | 'stopped';

export interface RateDecision {
  /** True when a token was taken (now, or booked `startInMs` ahead). */
  granted: boolean;
  /**
   * When not granted: how long until asking again may succeed (ms): until a token is free, or, for
   * budgets asked with `aheadMs`, until one is free within that much of the asking time.
   */
  retryInMs: number;
  /**
   * When granted: how long from now the token was booked for (ms; 0 or absent: now). The call must
   * not go out before then: its token counts from that time on, not from the grant.
   */
  startInMs?: number;
  /** When not granted by takeTokens: the index of the budget found full. */
  full?: number;
}

/** One rate budget a call spends a token of (see takeToken). */
export interface TokenBudget {
  key: string;
  limit: number;
  windowMs: number;
  /**
   * How far ahead (ms) a token may be booked when none is free now (default 0: now or refused).
   * A booked token is placed where the log keeps at most `limit` in any window, so callers that
   * would otherwise wake together and be refused in turn each get their own later slot at once.
   */
  aheadMs?: number;
  /**
   * Tokens of this budget the call takes, all at one time (default 1): a call that also pays now
   * for a later call of its own (a status and its clear) takes both in one store call.
   */
  count?: number;
}

/**
 * A due-index entry that a lease's renewal moves with it (StateStore.renewLease): the work the lease
 * holds stays due no earlier than the lease's end, so no sweep reads the lease of live work.
 */
export interface DueMove {
  index: string;
  member: string;
  dueAt: number;
}

/**
 * The renewal a fenced write carries (StateStore.writeFenced): the lease runs `ttlMs` from the write,
 * and `move` moves its due entry as a renewal's does. On Redis the check reads the lease with GETEX,
 * so a refused write may have lengthened the new holder's lease by one ttl, as a failed renewLease may.
 */
export interface FencedRenewal {
  ttlMs: number;
  move?: DueMove;
}

/** A member of a due index and the time it is due. */
export interface DueEntry {
  member: string;
  dueAt: number;
}

/** A notice (or any side effect) owed after a change, kept in an outbox until it has been carried out. */
export interface OutboxIntent<T extends Json = Json> {
  /** Stable for the intent's whole life: a replay finds the same intent; adding the id again is a no-op. */
  id: string;
  value: T;
}

export interface StoredIntent<T extends Json = Json> extends OutboxIntent<T> {
  state: 'pending' | 'done';
  /** What carrying it out produced (e.g. the posted message), recorded before it is marked done. */
  result?: Json;
}

export interface StateStore {
  /** Read a value; undefined when absent or expired. */
  get<T extends Json = Json>(key: string): Promise<T | undefined>;
  /** Write a value, optionally expiring after ttlMs. */
  set(key: string, value: Json, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Extends a present key's life (ttlMs, capped by RETENTION_DAYS; none: the retention period) without
   * writing its value: a record in use stays, and a reader can never write back what it read. False
   * when the key is absent.
   */
  touch(key: string, ttlMs?: number): Promise<boolean>;
  /** Atomically write only when the key is absent (or expired). True when this call wrote it. */
  setIfAbsent(key: string, value: Json, ttlMs?: number): Promise<boolean>;
  /**
   * Atomically replace `key`'s value with `next` only if its current value deep-equals `expected`
   * (`undefined` = absent). True when replaced. This is the claim primitive: one caller wins.
   */
  compareAndSet(key: string, expected: Json | undefined, next: Json, ttlMs?: number): Promise<boolean>;
  /**
   * compareAndSet, and only when it succeeds, in the same atomic step: `intents` join outbox `box` as
   * pending, after everything already in it (an id the box already knows, pending or done, is left as
   * it is). A change and the notices it owes are written together or not at all.
   */
  compareAndSetWithIntents(
    key: string,
    expected: Json | undefined,
    next: Json,
    ttlMs: number | undefined,
    box: string,
    intents: OutboxIntent[],
  ): Promise<boolean>;
  /** The pending intents of `box`, oldest first (at most `limit`). */
  pendingIntents<T extends Json = Json>(box: string, limit: number): Promise<Array<StoredIntent<T>>>;
  /** One intent of `box`, pending or done (done ones are remembered for their done TTL); undefined when unknown. */
  intent<T extends Json = Json>(box: string, id: string): Promise<StoredIntent<T> | undefined>;
  /** Records what carrying out a pending intent produced. False when the intent is not pending. */
  recordIntentResult(box: string, id: string, result: Json): Promise<boolean>;
  /**
   * Marks a pending intent done: it leaves the pending list, and its id is remembered for `doneTtlMs`
   * (adding it again stays a no-op meanwhile). True when this call moved it from pending to done.
   */
  completeIntent(box: string, id: string, doneTtlMs: number): Promise<boolean>;

  /** Keys currently present (not expired) that start with prefix. Order unspecified. */
  keys(prefix: string): Promise<string[]>;

  /** Ordered queues: FIFO per queue name. */
  push(queue: string, value: Json): Promise<QueueItem>;
  /** The oldest item without removing it. */
  peek<T extends Json = Json>(queue: string): Promise<QueueItem<T> | undefined>;
  /** Remove one item by id (after it has been handled). True when it was there. */
  ack(queue: string, id: string): Promise<boolean>;
  length(queue: string): Promise<number>;

  /**
   * Leases: a named lock held by one owner until it expires. acquire succeeds when free, expired, or
   * already held by the same owner (which renews it). renew fails if another owner took it or it
   * lapsed; it is one command on Redis (no read first), so a renewal that fails may have lengthened
   * the new holder's lease by one ttl: the loser learns it lost and stops renewing.
   */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** acquireLease, returning the acquisition's fence (its token) when held; undefined when not. */
  acquireFencedLease(name: string, owner: string, ttlMs: number): Promise<Fence | undefined>;
  /**
   * The writes, in order, only while `fence` still holds its lease (held, not run out, same owner
   * and token); none of them otherwise. True when written. One atomic step (a SQLite transaction, a
   * Lua script; on a Redis Cluster the check and the writes of other slots are two steps).
   * `renew`: the same step renews the lease (as renewLease, with its move), so work whose progress
   * is written often needs no renewal of its own meanwhile.
   */
  writeFenced(fence: Fence, writes: FencedWrite[], renew?: FencedRenewal): Promise<FencedOutcome>;
  /**
   * `move`: the entry of a due index moves to `dueAt` in the same round trip, only if it is still in
   * the index (work that ended and left it is not put back), whatever the renewal's outcome (a
   * renewal that failed moved it at most one lease past the new holder's renewal).
   */
  renewLease(name: string, owner: string, ttlMs: number, move?: DueMove): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
  leaseInfo(name: string): Promise<LeaseInfo | undefined>;

  /**
   * Rate budget shared by everyone using this store: at most `limit` tokens per `windowMs` for `key`
   * (sliding window or token bucket; the implementation documents which).
   */
  takeToken(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /**
   * One token of every budget, or none (one call for a platform call that spends several), all at
   * one time: now, or the earliest time within every budget's `aheadMs` at which each has room
   * (`startInMs`). When refused, `full` names the budget that is full longest and `retryInMs` is the
   * wait until asking again can succeed.
   */
  takeTokens(budgets: readonly TokenBudget[]): Promise<RateDecision>;

  /**
   * Due indexes: what a periodic job has to look at, each member with the time (ms, the caller's
   * clock) it is next due, so a sweep reads what is due now instead of walking every record. One
   * index per kind of work (`inflight`, `convpending`, ...). Scheduling a member again moves it.
   * `ttlMs`: the whole index expires that long after this write where the store expires structures
   * (Redis), for an index whose members may outlive their work (the day's leads of a tenant that goes quiet).
   */
  schedule(index: string, member: string, dueAt: number, ttlMs?: number): Promise<void>;
  unschedule(index: string, member: string): Promise<void>;
  /** Members due at or before `until`, soonest first (at most `limit`). */
  due(index: string, until: number, limit: number): Promise<DueEntry[]>;

  close(): Promise<void>;
}
