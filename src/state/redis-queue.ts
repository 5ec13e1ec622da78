/**
 * Reading a Redis queue (the layout is redis-scripts.ts's): the oldest item is the order zset's first
 * member, the item itself, so a peek is one command and needs no script. A member that is a bare id
 * is an item of a queue written before, its value in the hash beside the zset.
 */
import type { RedisClient } from './redis-client';
import type { Json, QueueItem } from './store';

/** A zset member read: its id and value (`value` undefined: a bare id, the value in the hash). */
export function queueMember(member: string): { id: string; value?: string } {
  const nl = member.indexOf('\n');
  return nl < 0 ? { id: member } : { id: member.slice(0, nl), value: member.slice(nl + 1) };
}

/** The oldest item of the queue with the order zset `order` (and old values hash `values`). */
export async function peekQueue<T extends Json = Json>(
  redis: RedisClient,
  order: string,
  values: string,
): Promise<QueueItem<T> | undefined> {
  for (;;) {
    const [first] = await redis.zrange(order, 0, 0);
    if (first === undefined) return undefined;
    const { id, value } = queueMember(first);
    const raw = value ?? (await redis.hget(values, id));
    if (raw !== null) return { id, value: JSON.parse(raw) as T };
    // An old item whose value is gone (its hash expired first): nothing to answer, dropped as if acked.
    await redis.zrem(order, first);
  }
}
