import Redis from 'ioredis';
import { canonicalJson, checkTtl, formatQueueId } from './canonical-json';
import { instanceId } from './instance-id';
import { type RetentionOptions, retainedTtl } from './retention';
import type { Json, LeaseInfo, OutboxIntent, QueueItem, RateDecision, StateStore, StoredIntent } from './store';

export interface RedisStoreOptions extends RetentionOptions {
  /** Prepended to every Redis key, so several bridges (or test runs) can share one database. */
  keyPrefix?: string;
}

/*
 * Lua scripts run atomically on the server, so each multi-step operation below is one step for every
 * instance sharing the database. Times that several instances compare (rate windows) come from the
 * server's clock via TIME, so skewed host clocks cannot widen a window.
 */

/**
 * The compare-and-set step, shared by COMPARE_AND_SET and COMPARE_AND_SET_WITH_INTENTS so that a plain
 * claim and a claim with notices can never disagree on what "still holds the expected value" means.
 * KEYS[1]=kv key; ARGV: hasExpected ('1'|'0'), expected canonical JSON, next JSON, ttl ms ('' = none)
 * (see casArgs). Returns 0 from the script when the value was not the expected one.
 */
const CAS_STEP = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
else
  if current then return 0 end
end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
end
`;

/** The server's clock in ms as local `now`: every instance compares done marks against one clock. */
const SERVER_NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Drops the done marks (and their values and results) whose memory ran out by `now`, so an expired
 * done id no longer blocks a new intent with the same id. Arguments are Lua key expressions.
 */
function forgetExpiredDone(done: string, values: string, results: string): string {
  return `
for _, old in ipairs(redis.call('ZRANGEBYSCORE', ${done}, '-inf', now)) do
  redis.call('HDEL', ${values}, old)
  redis.call('HDEL', ${results}, old)
end
redis.call('ZREMRANGEBYSCORE', ${done}, '-inf', now)
`;
}

const COMPARE_AND_SET = `${CAS_STEP}return 1
`;

/** ARGV of CAS_STEP, in its order: whether a value is expected, which one, the next, the ttl ('' = none). */
function casArgs(expected: Json | undefined, next: Json, ttl: number | undefined): string[] {
  return [
    expected === undefined ? '0' : '1',
    expected === undefined ? '' : canonicalJson(expected),
    canonicalJson(next),
    ttl === undefined ? '' : String(ttl),
  ];
}

/*
 * Outboxes: KEYS = kv key, then the box's sequence, pending zset (score = sequence), values hash,
 * results hash and done zset (score = the server time until which a done id is remembered).
 */

/**
 * COMPARE_AND_SET, then (only if it replaced) each intent not already pending or remembered as done
 * joins the pending list. ARGV: the four of CAS_STEP, then id and value pairs.
 */
const COMPARE_AND_SET_WITH_INTENTS = `${CAS_STEP}${SERVER_NOW}${forgetExpiredDone('KEYS[6]', 'KEYS[4]', 'KEYS[5]')}
for i = 5, #ARGV, 2 do
  local id = ARGV[i]
  if not redis.call('ZSCORE', KEYS[3], id) and not redis.call('ZSCORE', KEYS[6], id) then
    local seq = redis.call('INCR', KEYS[2])
    redis.call('ZADD', KEYS[3], seq, id)
    redis.call('HSET', KEYS[4], id, ARGV[i + 1])
  end
end
return 1
`;

/** KEYS: pending, values, results, done; ARGV[1]=id. Returns {state, value, result|false} or nil. */
const READ_INTENT = `
local value = redis.call('HGET', KEYS[2], ARGV[1])
if not value then return nil end
${SERVER_NOW}local state = 'pending'
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local until_ = redis.call('ZSCORE', KEYS[4], ARGV[1])
  if not until_ or tonumber(until_) <= now then return nil end
  state = 'done'
end
return {state, value, redis.call('HGET', KEYS[3], ARGV[1]) or ''}
`;

/** KEYS: pending, results; ARGV: id, result JSON. */
const RECORD_INTENT_RESULT = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * KEYS: pending, values, results, done; ARGV: id, done ttl ms. The value stays while the id is
 * remembered as done (a replay can still read what it was), and is dropped with the done marks
 * that have run out.
 */
const COMPLETE_INTENT = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
${SERVER_NOW}${forgetExpiredDone('KEYS[4]', 'KEYS[2]', 'KEYS[3]')}
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/** KEYS: pending, values, results; ARGV[1]=limit. Returns a flat list of id, value, result ('' = none). */
const PENDING_INTENTS = `
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or 'null'
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
`;

/** KEYS[1]=sequence, KEYS[2]=order zset, KEYS[3]=values hash; ARGV[1]=value. Returns the sequence. */
const PUSH = `
local seq = redis.call('INCR', KEYS[1])
local id = string.format('%016d', seq)
redis.call('ZADD', KEYS[2], seq, id)
redis.call('HSET', KEYS[3], id, ARGV[1])
return seq
`;

/** KEYS[1]=order zset, KEYS[2]=values hash. Returns {id, value} or nil. */
const PEEK = `
local first = redis.call('ZRANGE', KEYS[1], 0, 0)
if #first == 0 then return nil end
return {first[1], redis.call('HGET', KEYS[2], first[1])}
`;

/** KEYS[1]=order zset, KEYS[2]=values hash; ARGV[1]=id. */
const ACK = `
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return removed
`;

/** KEYS[1]=lease key; ARGV: owner, ttl ms. A lease key exists only while held (PX drops it). */
const ACQUIRE_LEASE = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

const RENEW_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/** Returns {owner, pttl} or nil. */
const LEASE_INFO = `
local owner = redis.call('GET', KEYS[1])
if not owner then return nil end
return {owner, redis.call('PTTL', KEYS[1])}
`;

/**
 * Sliding-window log over a sorted set scored by grant time. KEYS[1]=log; ARGV: limit, window ms,
 * unique member. Returns {granted, retryInMs}.
 */
const TAKE_TOKEN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #oldest == 0 then return {0, window} end
return {0, math.max(1, tonumber(oldest[2]) + window - now)}
`;

/** Process-wide, not per store: two stores in one process share instanceId(). */
let tokenSeq = 0;

type ScriptReply = number | string | null | ScriptReply[];

/** Glob metacharacters in a literal prefix would otherwise widen SCAN MATCH. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * StateStore on Redis, shared by every bridge instance pointing at the same database.
 *
 * The database number in the URL (`redis://host:port/db`) is honoured. ioredis reconnects forever
 * with a capped backoff and queues commands while disconnected (maxRetriesPerRequest: null), so a
 * Redis restart delays operations instead of failing them. takeToken is a sliding-window log.
 */
export class RedisStore implements StateStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly retentionMs: number | undefined;

  constructor(url: string, options: RedisStoreOptions = {}) {
    this.prefix = options.keyPrefix ?? 'bridge:';
    this.retentionMs = options.retentionMs;
    this.redis = new Redis(url, {
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 6), 2000),
    });
    // Without a listener ioredis prints every reconnect error; reconnecting is expected behaviour here.
    this.redis.on('error', () => undefined);
  }

  /** The underlying client, for diagnostics and tests (e.g. forcing a reconnect). */
  get client(): Redis {
    return this.redis;
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
    const base = this.kv('');
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [nextCursor, batch] = await this.redis.scan(cursor, 'MATCH', `${escapeGlob(base + prefix)}*`, 'COUNT', 500);
      for (const k of batch) found.add(k.slice(base.length));
      cursor = nextCursor;
    } while (cursor !== '0');
    return [...found];
  }

  async push(queue: string, value: Json): Promise<QueueItem> {
    const seq = await this.script(PUSH, this.queueKeys(queue, true), [canonicalJson(value)]);
    await this.retain(this.queueKeys(queue, true));
    return { id: formatQueueId(Number(seq)), value };
  }

  async peek<T extends Json = Json>(queue: string): Promise<QueueItem<T> | undefined> {
    const reply = await this.script(PEEK, this.queueKeys(queue, false), []);
    if (!Array.isArray(reply)) return undefined;
    const [id, raw] = reply;
    return { id: String(id), value: JSON.parse(String(raw)) as T };
  }

  async ack(queue: string, id: string): Promise<boolean> {
    return (await this.script(ACK, this.queueKeys(queue, false), [id])) === 1;
  }

  async length(queue: string): Promise<number> {
    return this.redis.zcard(this.queueKeys(queue, false)[0]);
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = String(checkTtl(ttlMs));
    return (await this.script(ACQUIRE_LEASE, [this.lease(name)], [owner, ttl])) === 1;
  }

  async renewLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = String(checkTtl(ttlMs));
    return (await this.script(RENEW_LEASE, [this.lease(name)], [owner, ttl])) === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.script(RELEASE_LEASE, [this.lease(name)], [owner]);
  }

  async leaseInfo(name: string): Promise<LeaseInfo | undefined> {
    const reply = await this.script(LEASE_INFO, [this.lease(name)], []);
    if (!Array.isArray(reply)) return undefined;
    const [owner, pttl] = reply;
    const remaining = Number(pttl);
    if (remaining <= 0) return undefined;
    return { owner: String(owner), expiresAt: Date.now() + remaining };
  }

  async takeToken(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const window = String(Math.max(1, Math.ceil(windowMs)));
    // Members must be unique across processes and across stores within one process: ZADD of an
    // existing member only moves it, so a repeated member would be a grant that the log does not count.
    const member = `${instanceId()}:${++tokenSeq}`;
    const reply = await this.script(TAKE_TOKEN, [`${this.prefix}rate:${key}`], [String(limit), window, member]);
    const [granted, retry] = Array.isArray(reply) ? reply : [0, windowMs];
    return { granted: granted === 1, retryInMs: Number(retry) };
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
    return `${this.prefix}kv:${key}`;
  }

  private lease(name: string): string {
    return `${this.prefix}lease:${name}`;
  }

  /** [sequence, pending zset, values hash, results hash, done zset] of one outbox. */
  private outboxKeys(box: string): [string, string, string, string, string] {
    const base = `${this.prefix}ob:${box}`;
    return [`${base}:seq`, `${base}:pending`, `${base}:values`, `${base}:results`, `${base}:done`];
  }

  /** [order zset, values hash] and, for push, the sequence counter first. */
  private queueKeys(queue: string, withSeq: boolean): string[] {
    const base = `${this.prefix}q:${queue}`;
    return withSeq ? [`${base}:seq`, `${base}:order`, `${base}:values`] : [`${base}:order`, `${base}:values`];
  }

  /** EVALSHA with EVAL fallback (ioredis caches the sha per script body). */
  private async script(body: string, keys: string[], args: string[]): Promise<ScriptReply> {
    const name = scriptName(body);
    const commands = this.redis as unknown as Record<string, (...a: Array<string | number>) => Promise<ScriptReply>>;
    if (typeof commands[name] !== 'function') this.redis.defineCommand(name, { lua: body });
    return commands[name](keys.length, ...keys, ...args);
  }
}

function intentFrom<T extends Json>(
  id: string,
  state: 'pending' | 'done',
  value: string,
  result: string,
): StoredIntent<T> {
  return { id, value: JSON.parse(value) as T, state, ...(result !== '' ? { result: JSON.parse(result) as Json } : {}) };
}

const scriptNames = new Map<string, string>();

function scriptName(body: string): string {
  let name = scriptNames.get(body);
  if (!name) {
    name = `bridgeScript${scriptNames.size}`;
    scriptNames.set(body, name);
  }
  return name;
}
