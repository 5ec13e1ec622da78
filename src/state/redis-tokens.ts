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
 * KEYS: the logs; ARGV: unique member, '1' to trim, then limit, window (ms), ahead (ms) and count
 * per key. `count` tokens fit at t when the (L - count + 1)-th newest is out of t's window.
 * Returns {1, wait until the booked time} or {0, retry in ms, index of the budget full longest}.
 * `ZRANGE -L -1` reads the L newest tokens in one command: the first is the L-th newest (when there
 * are L), the last the newest, which sets how long the log must live (a booking asked with a higher
 * limit may lie beyond this one's time, and its log must not expire before it leaves its window).
 */
export const TAKE_TOKENS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = now
local worst = 0
local minAhead = math.huge
local newest = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[4 * i])
  local limit = tonumber(ARGV[4 * i - 1]) - tonumber(ARGV[4 * i + 2]) + 1
  minAhead = math.min(minAhead, tonumber(ARGV[4 * i + 1]))
  if limit <= 0 then return {0, window, i - 1} end
  local recent = redis.call('ZRANGE', key, -limit, -1, 'WITHSCORES')
  if #recent == 2 * limit then
    local free = tonumber(recent[2]) + window
    if free > at then
      at = free
      worst = i - 1
    end
  end
  newest[i] = #recent > 0 and tonumber(recent[#recent]) or now
end
if at - now > minAhead then return {0, math.max(1, at - now - minAhead), worst} end
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[4 * i])
  if ARGV[2] == '1' then redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window) end
  local added = {at, ARGV[1]}
  for j = 2, tonumber(ARGV[4 * i + 2]) do
    added[#added + 1] = at
    added[#added + 1] = ARGV[1] .. '/' .. j
  end
  redis.call('ZADD', key, unpack(added))
  redis.call('PEXPIRE', key, math.max(at, newest[i]) - now + window)
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
  const args = [member, seq % TRIM_EVERY === 0 ? '1' : '0'];
  for (const b of budgets) {
    args.push(
      String(Math.floor(b.limit)),
      // A log is not kept past the retention period, so no window is longer (none is, in practice).
      String(Math.max(1, Math.ceil(Math.min(b.windowMs, retentionMs ?? b.windowMs)))),
      String(aheadOf(b)),
      String(countOf(b)),
    );
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
