import { canonicalJson, checkTtl, formatQueueId } from './canonical-json';
import { instanceId } from './instance-id';
import { openRedisClient, type RedisClient, type RedisClientOptions, scanAll, scheduleDue } from './redis-client';
import { peekQueue } from './redis-queue';
import { type RedisKeys, redisKeys } from './redis-keys';
import {
  COMPARE_AND_SET,
  COMPARE_AND_SET_WITH_INTENTS,
  READ_INTENT,
  RECORD_INTENT_RESULT,
  COMPLETE_INTENT,
  PENDING_INTENTS,
  PUSH,
  ACK,
  ACQUIRE_LEASE,
  RELEASE_LEASE,
  FENCE_HELD,
  WRITE_FENCED,
  fencedWriteArgs,
  intentFrom,
  scriptName,
  casArgs,
} from './redis-scripts';
import { TAKE_TOKENS, takeTokensArgs, takeTokensDecision } from './redis-tokens';
import { parseRedisUrl } from './redis-url';
import { type RetentionOptions, retainedTtl } from './retention';
import { leaseValue, nextFenceToken, parseLeaseValue } from './fence-token';
import type {
  DueEntry,
  DueMove,
  Fence,
  FencedRenewal,
  FencedOutcome,
  FencedWrite,
  Json,
  LeaseInfo,
  OutboxIntent,
  QueueItem,
  RateDecision,
  StateStore,
  StoredIntent,
  TokenBudget,
} from './store';

export interface RedisStoreOptions extends RetentionOptions, RedisClientOptions {
  /** Prepended to every Redis key, so several bridges (or test runs) can share one database. */
  keyPrefix?: string;
}

/** Process-wide, not per store: two stores in one process share instanceId(). */
let tokenSeq = 0;

type ScriptReply = number | string | null | ScriptReply[];

/** Glob metacharacters in a literal prefix would otherwise widen SCAN MATCH. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * StateStore on Redis, shared by every bridge instance pointing at the same database: one server
 * (`redis://`, `rediss://`) or a Redis Cluster (`redis+cluster://`, key layout in redis-keys.ts).
 *
 * The database number in the URL (`redis://host:port/db`) is honoured. ioredis reconnects forever
 * with a capped backoff and queues commands while disconnected (maxRetriesPerRequest: null), so a
 * Redis restart delays operations instead of failing them. takeToken is a sliding-window log with
 * bookings (redis-tokens.ts).
 */
export class RedisStore implements StateStore {
  private readonly redis: RedisClient;
  private readonly contact: Promise<void>;
  private readonly k: RedisKeys;
  private readonly retentionMs: number | undefined;
  /** On a Cluster a script's keys share one slot: a lease's key does not share the others'. */
  private readonly cluster: boolean;

  constructor(url: string, options: RedisStoreOptions = {}) {
    const target = parseRedisUrl(url);
    this.cluster = target.kind === 'cluster';
    this.k = redisKeys(options.keyPrefix ?? 'bridge:', target.kind === 'cluster');
    this.retentionMs = options.retentionMs;
    const opened = openRedisClient(target, options);
    this.redis = opened.client;
    this.contact = opened.firstContact;
  }

  /** The underlying client, for diagnostics and tests (e.g. forcing a reconnect). */
  get client(): RedisClient {
    return this.redis;
  }

  /** Resolves once Redis answered or may still answer later; rejects when its TLS certificate is refused. */
  firstContact(): Promise<void> {
    return this.contact;
  }

  async get<T extends Json = Json>(key: string): Promise<T | undefined> {
    const raw = await this.redis.get(this.kv(key));
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async set(key: string, value: Json, ttlMs?: number): Promise<void> {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    if (ttl === undefined) await this.redis.set(this.kv(key), canonicalJson(value));
    else await this.redis.set(this.kv(key), canonicalJson(value), 'PX', ttl);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.kv(key));
  }

  async touch(key: string, ttlMs?: number): Promise<boolean> {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    if (ttl !== undefined) return (await this.redis.pexpire(this.kv(key), ttl)) === 1;
    await this.redis.persist(this.kv(key));
    return (await this.redis.exists(this.kv(key))) === 1;
  }

  async setIfAbsent(key: string, value: Json, ttlMs?: number): Promise<boolean> {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    const reply =
      ttl === undefined
        ? await this.redis.set(this.kv(key), canonicalJson(value), 'NX')
        : await this.redis.set(this.kv(key), canonicalJson(value), 'PX', ttl, 'NX');
    return reply === 'OK';
  }

  async compareAndSet(key: string, expected: Json | undefined, next: Json, ttlMs?: number): Promise<boolean> {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    const reply = await this.script(COMPARE_AND_SET, [this.kv(key)], casArgs(expected, next, ttl));
    return reply === 1;
  }

  async compareAndSetWithIntents(
    key: string,
    expected: Json | undefined,
    next: Json,
    ttlMs: number | undefined,
    box: string,
    intents: OutboxIntent[],
  ): Promise<boolean> {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    const [seq, pending, values, results, done] = this.outboxKeys(box);
    const reply = await this.script(
      COMPARE_AND_SET_WITH_INTENTS,
      [this.kv(key), seq, pending, values, results, done],
      [...casArgs(expected, next, ttl), ...intents.flatMap((i) => [i.id, canonicalJson(i.value)])],
    );
    if (reply === 1 && intents.length > 0) await this.retain(this.outboxKeys(box));
    return reply === 1;
  }

  async pendingIntents<T extends Json = Json>(box: string, limit: number): Promise<Array<StoredIntent<T>>> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return [];
    const [, pending, values, results] = this.outboxKeys(box);
    const reply = await this.script(PENDING_INTENTS, [pending, values, results], [String(n)]);
    const flat = Array.isArray(reply) ? reply.map(String) : [];
    const out: Array<StoredIntent<T>> = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      out.push(intentFrom<T>(flat[i]!, 'pending', flat[i + 1]!, flat[i + 2]!));
    }
    return out;
  }

  async intent<T extends Json = Json>(box: string, id: string): Promise<StoredIntent<T> | undefined> {
    const [, pending, values, results, done] = this.outboxKeys(box);
    const reply = await this.script(READ_INTENT, [pending, values, results, done], [id]);
    if (!Array.isArray(reply)) return undefined;
    const [state, value, result] = reply.map(String);
    return intentFrom<T>(id, state === 'done' ? 'done' : 'pending', value!, result!);
  }

  async recordIntentResult(box: string, id: string, result: Json): Promise<boolean> {
    const [, pending, , results] = this.outboxKeys(box);
    const recorded = (await this.script(RECORD_INTENT_RESULT, [pending, results], [id, canonicalJson(result)])) === 1;
    if (recorded) await this.retain(this.outboxKeys(box));
    return recorded;
  }

  async completeIntent(box: string, id: string, doneTtlMs: number): Promise<boolean> {
    const ttl = String(retainedTtl(doneTtlMs, this.retentionMs));
    const [, pending, values, results, done] = this.outboxKeys(box);
    const completed = (await this.script(COMPLETE_INTENT, [pending, values, results, done], [id, ttl])) === 1;
    if (completed) await this.retain(this.outboxKeys(box));
    return completed;
  }

  async keys(prefix: string): Promise<string[]> {
    const base = this.k.kvBase;
    return (await scanAll(this.redis, `${escapeGlob(base + prefix)}*`)).map((k) => k.slice(base.length));
  }

  async push(queue: string, value: Json): Promise<QueueItem> {
    const [seqKey, order] = this.queueKeys(queue, true);
    const ttl = this.retentionMs === undefined ? '' : String(this.retentionMs);
    const seq = await this.script(PUSH, [seqKey!, order!], [canonicalJson(value), ttl]);
    return { id: formatQueueId(Number(seq)), value };
  }

  async peek<T extends Json = Json>(queue: string): Promise<QueueItem<T> | undefined> {
    const [order, values] = this.queueKeys(queue, false);
    return peekQueue<T>(this.redis, order!, values!);
  }

  async ack(queue: string, id: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return (await this.script(ACK, this.queueKeys(queue, false), [id])) === 1;
  }

  async length(queue: string): Promise<number> {
    return this.redis.zcard(this.queueKeys(queue, false)[0]);
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.acquireFencedLease(name, owner, ttlMs)) !== undefined;
  }

  async acquireFencedLease(name: string, owner: string, ttlMs: number): Promise<Fence | undefined> {
    const ttl = checkTtl(ttlMs) as number;
    const key = this.lease(name);
    const token = nextFenceToken();
    // Most leases are free when taken: one command then. Held: by another (a read says so), or by
    // this owner, renewed atomically by the script (the lease may lapse between the read and it).
    if ((await this.redis.set(key, leaseValue(token, owner), 'PX', ttl, 'NX')) === 'OK') {
      return { lease: name, owner, token };
    }
    const held = await this.redis.get(key);
    if (held === null || parseLeaseValue(held).owner !== owner) return undefined;
    const reply = await this.script(ACQUIRE_LEASE, [key], [owner, String(ttl), String(token)]);
    return typeof reply === 'string' ? { lease: name, owner, token: Number(reply) } : undefined;
  }

  async writeFenced(fence: Fence, writes: FencedWrite[], renew?: FencedRenewal): Promise<FencedOutcome> {
    const check = [fence.owner, String(fence.token)];
    const renewal = renew && { ...renew, ttlMs: checkTtl(renew.ttlMs) as number };
    if (this.cluster) {
      // The lease's key is on its own slot: checked first, then written (two steps, see StateStore).
      if ((await this.script(FENCE_HELD, [this.lease(fence.lease)], check)) !== 1) return false;
      if (renewal) await this.renewLease(fence.lease, fence.owner, renewal.ttlMs, renewal.move);
      for (const w of writes) {
        if (w.op === 'ifEmpty') {
          if ((await this.length(w.queue)) > 0) return 'stopped';
        } else if (w.op === 'set') await this.set(w.key, w.value, w.ttlMs);
        else if (w.op === 'delete') await this.delete(w.key);
        else if (w.op === 'ack') await this.ack(w.queue, w.id);
        else if (w.op === 'unschedule') await this.unschedule(w.index, w.member);
        else await this.releaseLease(fence.lease, fence.owner);
      }
      return true;
    }
    const { keys, args } = fencedWriteArgs(this.lease(fence.lease), { ...fence, renew: renewal }, writes, {
      kv: (key) => this.kv(key),
      queue: (queue) => this.queueKeys(queue, false),
      due: (index) => this.k.due(index),
      ttl: (ms) => retainedTtl(ms, this.retentionMs),
    });
    const reply = await this.script(WRITE_FENCED, keys, args);
    return reply === 2 ? 'stopped' : reply === 1;
  }

  async renewLease(name: string, owner: string, ttlMs: number, move?: DueMove): Promise<boolean> {
    // One command, no read first (GETEX, Redis 6.2+): a lease renewed every third of its life is the
    // most frequent write there is. A lapsed lease (no key) stays lapsed.
    const key = this.lease(name);
    const ttl = checkTtl(ttlMs) as number;
    let held: unknown;
    if (!move) held = await this.redis.getex(key, 'PX', ttl);
    else if (this.cluster) {
      // A pipeline's keys share a slot on a Cluster: two round trips there.
      held = await this.redis.getex(key, 'PX', ttl);
      await this.redis.zadd(this.k.due(move.index), 'XX', Math.round(move.dueAt), move.member);
    } else {
      const replies = await this.redis
        .pipeline()
        .getex(key, 'PX', ttl)
        .zadd(this.k.due(move.index), 'XX', Math.round(move.dueAt), move.member)
        .exec();
      held = replies?.[0]?.[1];
    }
    return typeof held === 'string' && parseLeaseValue(held).owner === owner;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.script(RELEASE_LEASE, [this.lease(name)], [owner]);
  }

  async leaseInfo(name: string): Promise<LeaseInfo | undefined> {
    // Two reads in one round trip, no script: a lease that lapses between them reads as lapsed.
    const key = this.lease(name);
    const replies = await this.redis.pipeline().get(key).pttl(key).exec();
    const value = replies?.[0]?.[1];
    const remaining = Number(replies?.[1]?.[1]);
    if (typeof value !== 'string' || !(remaining > 0)) return undefined;
    return { owner: parseLeaseValue(value).owner, expiresAt: Date.now() + remaining };
  }

  async takeToken(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.takeTokens([{ key, limit, windowMs }]);
  }

  async takeTokens(budgets: readonly TokenBudget[]): Promise<RateDecision> {
    if (budgets.length === 0) return { granted: true, retryInMs: 0 };
    // A cluster's script may only touch one slot, and each log is its own key: one at a time there,
    // and each now or never (a booking in one log would not hold the call's other budgets to its time).
    if (this.k.cluster && budgets.length > 1) {
      for (const [i, b] of budgets.entries()) {
        const d = await this.takeTokens([{ ...b, aheadMs: 0 }]);
        if (!d.granted) return { ...d, full: i };
      }
      return { granted: true, retryInMs: 0 };
    }
    // Members must be unique across processes and across stores within one process: ZADD of an
    // existing member only moves it, so a repeated member would be a grant that the log does not count.
    const seq = ++tokenSeq;
    const member = `${instanceId()}:${seq}`;
    const keys = budgets.map((b) => this.k.rate(b.key));
    const reply = await this.script(TAKE_TOKENS, keys, takeTokensArgs(member, seq, budgets, this.retentionMs));
    return takeTokensDecision(reply, budgets);
  }

  async schedule(index: string, member: string, dueAt: number, ttlMs?: number): Promise<void> {
    await scheduleDue(this.redis, this.k.due(index), member, dueAt, ttlMs);
  }

  async unschedule(index: string, member: string): Promise<void> {
    await this.redis.zrem(this.k.due(index), member);
  }

  async due(index: string, until: number, limit: number): Promise<DueEntry[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return [];
    const flat = await this.redis.zrangebyscore(
      this.k.due(index),
      '-inf',
      Math.round(until),
      'WITHSCORES',
      'LIMIT',
      0,
      n,
    );
    const out: DueEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, dueAt: Number(flat[i + 1]) });
    return out;
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    try {
      await this.redis.quit();
    } catch {
      // Quitting a connection that is down: drop it instead of waiting for a reconnect.
      this.redis.disconnect();
    }
  }

  /**
   * RETENTION_DAYS for the structures a write does not give a time to live (a queue, an outbox): the
   * whole structure expires the retention period after its last write.
   */
  private async retain(keys: string[]): Promise<void> {
    if (this.retentionMs === undefined) return;
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.pexpire(key, this.retentionMs);
    await pipeline.exec();
  }

  private kv(key: string): string {
    return this.k.kv(key);
  }

  private lease(name: string): string {
    return this.k.lease(name);
  }

  private outboxKeys(box: string): [string, string, string, string, string] {
    return this.k.outbox(box);
  }

  private queueKeys(queue: string, withSeq: boolean): string[] {
    return this.k.queue(queue, withSeq);
  }

  /** EVALSHA with EVAL fallback (ioredis caches the sha per script body). */
  private async script(body: string, keys: string[], args: string[]): Promise<ScriptReply> {
    const name = scriptName(body);
    const commands = this.redis as unknown as Record<string, (...a: Array<string | number>) => Promise<ScriptReply>>;
    if (typeof commands[name] !== 'function') this.redis.defineCommand(name, { lua: body });
    return commands[name](keys.length, ...keys, ...args);
  }
}
