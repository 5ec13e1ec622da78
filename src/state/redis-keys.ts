/**
 * Where the Redis store keeps each structure. On one server the layout is the one the store has always
 * used. On a Redis Cluster a Lua script may only touch keys of one hash slot, so keys a script uses
 * together carry one hash tag (`{...}`: only that part is hashed):
 * - values and outboxes share the tag `{<prefix>}`, because compareAndSetWithIntents writes any value
 *   together with any outbox; they therefore live in one slot, on one master;
 * - the keys of one queue share `{<prefix>q:<queue>}`, so queues spread over the masters;
 * - leases and rate logs are one key each per script and need no tag: they spread too (a call that
 *   spends several rate logs takes them one at a time there);
 * - a due index (`due:<index>`) is one sorted set, read and written one command at a time.
 */

export interface RedisKeys {
  /** Every value key starts with this (keys() scans for it). */
  readonly kvBase: string;
  kv(key: string): string;
  lease(name: string): string;
  rate(key: string): string;
  /** The sorted set of one due index (store.schedule). */
  due(index: string): string;
  /** A Redis Cluster: scripts may touch one slot only. */
  readonly cluster: boolean;
  /** [sequence, pending zset, values hash, results hash, done zset] of one outbox. */
  outbox(box: string): [string, string, string, string, string];
  /**
   * [order zset, values hash] and, for push, the sequence counter first. The hash is only a queue's
   * written before its items moved into the zset (redis-scripts.ts).
   */
  queue(queue: string, withSeq: boolean): string[];
}

export function redisKeys(prefix: string, cluster: boolean): RedisKeys {
  if (cluster && /[{}]/.test(prefix)) {
    throw new Error(
      'RedisStore keyPrefix must not contain { or } on a Redis Cluster: the store adds its own hash tags',
    );
  }
  const shared = cluster ? `{${prefix}}` : prefix;
  const queueBase = (queue: string) => (cluster ? `{${prefix}q:${queue}}` : `${prefix}q:${queue}`);
  return {
    kvBase: `${shared}kv:`,
    kv: (key) => `${shared}kv:${key}`,
    lease: (name) => `${prefix}lease:${name}`,
    rate: (key) => `${prefix}rate:${key}`,
    due: (index) => `${prefix}due:${index}`,
    cluster,
    outbox: (box) => {
      const base = `${shared}ob:${box}`;
      return [`${base}:seq`, `${base}:pending`, `${base}:values`, `${base}:results`, `${base}:done`];
    },
    queue: (queue, withSeq) => {
      const base = queueBase(queue);
      return withSeq ? [`${base}:seq`, `${base}:order`, `${base}:values`] : [`${base}:order`, `${base}:values`];
    },
  };
}
