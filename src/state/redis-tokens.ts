/**
 * Rate budgets on Redis (RedisStore.takeTokens): one sliding-window log per budget, a sorted set of
 * tokens scored by the time each counts from, spent by one script so a call's budgets are one step
 * for every instance sharing the database.
 *
 * Bookings: a token is placed at t = max(now, score of the L-th newest token + window), L being the
 * limit asked. Every window then holds at most L tokens, future ones included: the tokens older than
 * the L-th newest are at or before t - window (outside any window that holds t), and at most L - 1
 * are newer. So when no token is free now, the script can grant one at t, if t is within what the
 * caller allows ahead (`aheadMs`), instead of refusing: callers that would all wake when the oldest
 * token ages out, one winning and the others refused again (a herd), each get their own slot at
 * once, one store call per platform call. With aheadMs 0 this is the plain sliding log: a token now
 * while fewer than L were taken within the window, refused otherwise.
 */
import type { RateDecision, TokenBudget } from './store';
import { aheadOf, countOf } from './token-ahead';

/** One call in this many also trims its logs (tokens out of every window): logs stay bounded. */
const TRIM_EVERY = 16;
/**
 * How much longer than it must a log is kept when its time to live is set: a log spent often has
 * its expiry moved about once this often instead of on every grant (one command fewer a grant).
 */
const KEEP_MS = 60_000;

/**
 * KEYS: the logs; ARGV: unique member, '1' to trim, the extra keep (ms), then limit, window (ms),
 * ahead (ms) and count per key. `count` tokens fit at t when the (L - count + 1)-th newest is out of
 * t's window. Returns {1, wait until the booked time} or {0, retry in ms, index of the budget full
 * longest}.
 *
 * Each log holds, beside its tokens, the member '~expiry' scored with the time the log expires (set
 * with it, always past every token's window, so always the log's last member): `ZRANGE -(L+1) -1`
 * reads it with the L newest tokens in one command, the first of which is the L-th newest (when
 * there are L). A grant moves the expiry only when its token's window would outlast it, then by
 * KEEP_MS more: a token booked ahead with a higher limit keeps the log alive past a later grant of
 * an earlier slot, and no log expires while one of its tokens is within its window.
 */
export const TAKE_TOKENS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = now
local worst = 0
local minAhead = math.huge
local expiry = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[4 * i + 1])
  local limit = tonumber(ARGV[4 * i]) - tonumber(ARGV[4 * i + 3]) + 1
  minAhead = math.min(minAhead, tonumber(ARGV[4 * i + 2]))
  if limit <= 0 then return {0, window, i - 1} end
  local recent = redis.call('ZRANGE', key, -(limit + 1), -1, 'WITHSCORES')
  local n = #recent
  expiry[i] = 0
  if n > 0 and recent[n - 1] == '~expiry' then
    expiry[i] = tonumber(recent[n])
    n = n - 2
  end
  if n >= 2 * limit then
    local free = tonumber(recent[n - 2 * limit + 2]) + window
    if free > at then
      at = free
      worst = i - 1
    end
  end
end
if at - now > minAhead then return {0, math.max(1, at - now - minAhead), worst} end
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[4 * i + 1])
  if ARGV[2] == '1' then redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window) end
  local added = {at, ARGV[1]}
  for j = 2, tonumber(ARGV[4 * i + 3]) do
    added[#added + 1] = at
    added[#added + 1] = ARGV[1] .. '/' .. j
  end
  if expiry[i] < at + window then
    local keepUntil = at + window + tonumber(ARGV[3])
    added[#added + 1] = keepUntil
    added[#added + 1] = '~expiry'
    redis.call('ZADD', key, unpack(added))
    redis.call('PEXPIRE', key, keepUntil - now)
  else
    redis.call('ZADD', key, unpack(added))
  end
end
return {1, at - now}
`;

/** TAKE_TOKENS's ARGV for call number `seq` of this process (`member` unique across processes). */
export function takeTokensArgs(
  member: string,
  seq: number,
  budgets: readonly TokenBudget[],
  retentionMs: number | undefined,
): string[] {
  // A log is not kept past the retention period: no window is longer (none is, in practice), and
  // the extra keep is only what the retention leaves.
  const windows = budgets.map((b) => Math.max(1, Math.ceil(Math.min(b.windowMs, retentionMs ?? b.windowMs))));
  const keep = Math.max(0, Math.min(KEEP_MS, (retentionMs ?? Number.POSITIVE_INFINITY) - Math.max(...windows)));
  const args = [member, seq % TRIM_EVERY === 0 ? '1' : '0', String(Math.floor(keep))];
  for (const [i, b] of budgets.entries()) {
    args.push(String(Math.floor(b.limit)), String(windows[i]), String(aheadOf(b)), String(countOf(b)));
  }
  return args;
}

/** TAKE_TOKENS's reply as a decision (a reply of another shape is a refusal for a window). */
export function takeTokensDecision(reply: unknown, budgets: readonly TokenBudget[]): RateDecision {
  const [granted, ms, full] = Array.isArray(reply) ? (reply as unknown[]) : [0, budgets[0]?.windowMs ?? 1_000, 0];
  if (granted === 1) {
    const wait = Number(ms);
    return wait > 0 ? { granted: true, retryInMs: 0, startInMs: wait } : { granted: true, retryInMs: 0 };
  }
  return { granted: false, retryInMs: Number(ms), full: Number(full) };
}
