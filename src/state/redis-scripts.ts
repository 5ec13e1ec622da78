/**
 * The Lua scripts of the Redis store (redis-store.ts), one per multi-step operation, apart from the
 * store so its TypeScript reads as the StateStore it implements.
 */
import { canonicalJson } from './canonical-json';
import type { FencedRenewal, FencedWrite, Json, StoredIntent } from './store';

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

export const COMPARE_AND_SET = `${CAS_STEP}return 1
`;

/** ARGV of CAS_STEP, in its order: whether a value is expected, which one, the next, the ttl ('' = none). */
export function casArgs(expected: Json | undefined, next: Json, ttl: number | undefined): string[] {
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
export const COMPARE_AND_SET_WITH_INTENTS = `${CAS_STEP}${SERVER_NOW}${forgetExpiredDone('KEYS[6]', 'KEYS[4]', 'KEYS[5]')}
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
export const READ_INTENT = `
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
export const RECORD_INTENT_RESULT = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * KEYS: pending, values, results, done; ARGV: id, done ttl ms. The value stays while the id is
 * remembered as done (a replay can still read what it was), and is dropped with the done marks
 * that have run out.
 */
export const COMPLETE_INTENT = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
${SERVER_NOW}${forgetExpiredDone('KEYS[4]', 'KEYS[2]', 'KEYS[3]')}
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/** KEYS: pending, values, results; ARGV[1]=limit. Returns a flat list of id, value, result ('' = none). */
export const PENDING_INTENTS = `
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or 'null'
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
`;

/*
 * Queues: a sequence, and an order zset whose members are the items themselves, `<id>\n<value>`
 * (the id the sequence's 16 digits, the value canonical JSON: no raw newline), scored by the
 * sequence, so an item is read in one command and acked by its score. A queue written before kept
 * its values in a hash beside the zset, the member the bare id (queueMember tells them apart): its
 * items are still read there (redis-queue.ts) and acked from both, until the queue is drained.
 */

/**
 * KEYS[1]=sequence, KEYS[2]=order zset; ARGV: value, ttl ms ('' = none). Returns the sequence. The
 * time to live of both keys is renewed by every push (RETENTION_DAYS after the queue's last write).
 */
export const PUSH = `
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], seq, string.format('%016d', seq) .. '\\n' .. ARGV[1])
if ARGV[2] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return seq
`;

/** KEYS[1]=order zset, KEYS[2]=values hash (a queue written before); ARGV[1]=id. */
export const ACK = `
local removed = redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return removed
`;

/*
 * Leases: a lease key exists only while held (PX drops it). Its value is `<token>\n<owner>`
 * (fence-token.ts): the fencing token of the acquisition that holds it, then the owner. A value
 * without a newline (written by a version before tokens) is its owner's, with token 0.
 */
const LEASE_OF = `
local function lease_of(v)
  if not v then return nil, nil end
  local nl = string.find(v, '\\n', 1, true)
  if not nl then return v, '0' end
  return string.sub(v, nl + 1), string.sub(v, 1, nl - 1)
end
`;

/**
 * KEYS[1]=lease key; ARGV: owner, ttl ms, a new token. Returns the token held (a string), 0 when
 * another owner holds it. The holder again keeps its token; a free lease takes the new one.
 */
export const ACQUIRE_LEASE = `${LEASE_OF}
local owner, token = lease_of(redis.call('GET', KEYS[1]))
if owner and owner ~= ARGV[1] then return 0 end
if not owner then token = ARGV[3] end
redis.call('SET', KEYS[1], token .. '\\n' .. ARGV[1], 'PX', ARGV[2])
return token
`;

export const RELEASE_LEASE = `${LEASE_OF}
local owner = lease_of(redis.call('GET', KEYS[1]))
if owner == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/** The fence check: the lease of KEYS[1] is held by ARGV[1] with token ARGV[2]. */
const FENCE_CHECK = `${LEASE_OF}
local owner, token = lease_of(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] or token ~= ARGV[2] then return 0 end
`;

/** KEYS[1]=lease key; ARGV: owner, token. 1 while that acquisition holds the lease. */
export const FENCE_HELD = `${FENCE_CHECK}return 1
`;

/**
 * WRITE_FENCED's check, renewing the lease by ARGV[3] ms when not '' in the same command (GETEX, as
 * renewLease: a refused write may have lengthened the holder's lease by one ttl, never created one).
 */
const FENCE_CHECK_RENEWING = `${LEASE_OF}
local held
if ARGV[3] ~= '' then held = redis.call('GETEX', KEYS[1], 'PX', ARGV[3]) else held = redis.call('GET', KEYS[1]) end
local owner, token = lease_of(held)
if owner ~= ARGV[1] or token ~= ARGV[2] then return 0 end
`;

/**
 * The fence check (renewing the lease when asked), then the writes in order. KEYS[1]=lease key, then
 * each write's keys: a value key (set, del), a queue's order zset and values hash (ack), a due index
 * (zrem, zxx) or a queue's order zset (ifempty; release has none). ARGV: owner, token, the renewal's
 * ttl ms ('' = none), then per write its op and arguments: 'set', value, ttl ms ('' = none) | 'del' |
 * 'ack', item id | 'zrem', member | 'zxx', score, member (a due entry moved, only if still there) |
 * 'ifempty' (the batch stops there, returning 2, while the queue has items; an empty zset is no key) |
 * 'release' (the lease of KEYS[1] goes).
 */
export const WRITE_FENCED = `${FENCE_CHECK_RENEWING}
local k = 2
local i = 4
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'set' then
    if ARGV[i + 2] ~= '' then
      redis.call('SET', KEYS[k], ARGV[i + 1], 'PX', ARGV[i + 2])
    else
      redis.call('SET', KEYS[k], ARGV[i + 1])
    end
    k = k + 1
    i = i + 3
  elseif op == 'del' then
    redis.call('DEL', KEYS[k])
    k = k + 1
    i = i + 1
  elseif op == 'zrem' then
    redis.call('ZREM', KEYS[k], ARGV[i + 1])
    k = k + 1
    i = i + 2
  elseif op == 'zxx' then
    redis.call('ZADD', KEYS[k], 'XX', ARGV[i + 1], ARGV[i + 2])
    k = k + 1
    i = i + 3
  elseif op == 'ifempty' then
    if redis.call('EXISTS', KEYS[k]) == 1 then return 2 end
    k = k + 1
    i = i + 1
  elseif op == 'release' then
    redis.call('DEL', KEYS[1])
    i = i + 1
  else
    redis.call('ZREMRANGEBYSCORE', KEYS[k], ARGV[i + 1], ARGV[i + 1])
    redis.call('HDEL', KEYS[k + 1], ARGV[i + 1])
    k = k + 2
    i = i + 2
  end
end
return 1
`;

/** Where WRITE_FENCED's writes live (the store's key layout) and the time to live of a set. */
export interface FencedKeys {
  kv(key: string): string;
  queue(queue: string): string[];
  due(index: string): string;
  ttl(ms: number | undefined): number | undefined;
}

/**
 * WRITE_FENCED's KEYS and ARGV for `writes` under the lease `leaseKey` held by `fence` (owner, token),
 * with the lease's renewal when `fence.renew` (its due move first).
 */
export function fencedWriteArgs(
  leaseKey: string,
  fence: { owner: string; token: number; renew?: FencedRenewal | undefined },
  writes: FencedWrite[],
  at: FencedKeys,
): { keys: string[]; args: string[] } {
  const { renew } = fence;
  const keys = [leaseKey];
  const args = [fence.owner, String(fence.token), renew ? String(renew.ttlMs) : ''];
  if (renew?.move) {
    keys.push(at.due(renew.move.index));
    args.push('zxx', String(Math.round(renew.move.dueAt)), renew.move.member);
  }
  for (const w of writes) {
    if (w.op === 'set') {
      const ttl = at.ttl(w.ttlMs);
      keys.push(at.kv(w.key));
      args.push('set', canonicalJson(w.value), ttl === undefined ? '' : String(ttl));
    } else if (w.op === 'delete') {
      keys.push(at.kv(w.key));
      args.push('del');
    } else if (w.op === 'ack') {
      // An id the store never gave (not its sequence's digits) names no item: nothing to ack.
      if (!/^\d+$/.test(w.id)) continue;
      keys.push(...at.queue(w.queue));
      args.push('ack', w.id);
    } else if (w.op === 'unschedule') {
      keys.push(at.due(w.index));
      args.push('zrem', w.member);
    } else if (w.op === 'ifEmpty') {
      keys.push(at.queue(w.queue)[0]!);
      args.push('ifempty');
    } else args.push('release');
  }
  return { keys, args };
}

/** An outbox's intent from READ_INTENT's or PENDING_INTENTS's reply. */
export function intentFrom<T extends Json>(
  id: string,
  state: 'pending' | 'done',
  value: string,
  result: string,
): StoredIntent<T> {
  return { id, value: JSON.parse(value) as T, state, ...(result !== '' ? { result: JSON.parse(result) as Json } : {}) };
}

const scriptNames = new Map<string, string>();

/** The command name a script is defined under on the client (one per body). */
export function scriptName(body: string): string {
  let name = scriptNames.get(body);
  if (!name) {
    name = `bridgeScript${scriptNames.size}`;
    scriptNames.set(body, name);
  }
  return name;
}
