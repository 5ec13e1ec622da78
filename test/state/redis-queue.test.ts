/**
 * The Redis queue's layout and cost: an item is its order zset's member (no values hash), a push is
 * one script that renews both keys' time to live, a peek one command; a queue written by the version
 * before (ids in the zset, values in a hash) is still read and acked until it drains. Commands are
 * counted with MONITOR on a second connection, up to a marker the store's own connection sends.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RedisStore } from '../../src/state/redis-store';
import { dropRedisPrefix } from '../support/redis-prefix';

const URL = 'redis://127.0.0.1:6379/9';
const prefix = `test:queue:${randomBytes(4).toString('hex')}:`;
const RETENTION_MS = 60_000;

let store: RedisStore;
let admin: Redis;

beforeAll(() => {
  store = new RedisStore(URL, { keyPrefix: prefix, retentionMs: RETENTION_MS });
  admin = new Redis(URL);
});

afterAll(async () => {
  await store.close();
  await admin.quit();
  await dropRedisPrefix(URL, prefix);
});

/** The commands the server ran for `work` (scripts' own commands included), by name. */
async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
  const monitor = await new Redis(URL).monitor();
  const marker = `marker-${randomBytes(4).toString('hex')}`;
  const seen: string[] = [];
  const done = new Promise<void>((resolve) => {
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
      else if (args.some((a) => a.startsWith(prefix))) seen.push(args[0]!.toLowerCase());
    });
  });
  try {
    await work();
    await store.client.echo(marker);
    await done;
    return seen;
  } finally {
    monitor.disconnect();
  }
}

describe('Redis queue', () => {
  it('pushes in one script (sequence, member, both times to live) and peeks in one command', async () => {
    // The script loaded once (its first run is an EVAL), as in a running bridge.
    await store.push('warm', 0);
    const pushed = await commandsOf(() => store.push('q1', { text: 'first' }));
    expect(pushed).toEqual(['evalsha', 'incr', 'zadd', 'pexpire', 'pexpire']);
    for (const key of [`${prefix}q:q1:seq`, `${prefix}q:q1:order`]) {
      const ttl = await admin.pttl(key);
      expect({ key, ttl: ttl > 0 && ttl <= RETENTION_MS }).toEqual({ key, ttl: true });
    }
    expect(await admin.exists(`${prefix}q:q1:values`)).toBe(0);
    let item: unknown;
    expect(
      await commandsOf(async () => {
        item = await store.peek('q1');
      }),
    ).toEqual(['zrange']);
    expect(item).toEqual({ id: '0000000000000001', value: { text: 'first' } });
    const second = await store.push('q1', 'line one\nline two');
    expect(await store.length('q1')).toBe(2);
    expect(await store.ack('q1', '0000000000000001')).toBe(true);
    expect(await store.ack('q1', '0000000000000001')).toBe(false);
    expect(await store.peek('q1')).toEqual(second);
    expect(await store.ack('q1', second.id)).toBe(true);
    expect(await store.peek('q1')).toBeUndefined();
    // Drained: only the sequence is left, so ids keep growing.
    expect((await store.push('q1', 3)).id).toBe('0000000000000003');
  });

  it("reads and acks a queue the version before wrote (values in a hash), oldest first, then the new layout's items", async () => {
    const base = `${prefix}q:old`;
    await admin.set(`${base}:seq`, '2');
    await admin.zadd(`${base}:order`, 1, '0000000000000001', 2, '0000000000000002');
    await admin.hset(`${base}:values`, '0000000000000001', '"old one"', '0000000000000002', '"old two"');
    const added = await store.push('old', 'new');
    expect(added.id).toBe('0000000000000003');
    expect(await store.length('old')).toBe(3);
    expect(await store.peek('old')).toEqual({ id: '0000000000000001', value: 'old one' });
    expect(await store.ack('old', '0000000000000001')).toBe(true);
    expect(await admin.hexists(`${base}:values`, '0000000000000001')).toBe(0);
    // An old item whose value is gone is dropped as if acked, not handed out.
    await admin.hdel(`${base}:values`, '0000000000000002');
    expect(await store.peek('old')).toEqual({ id: '0000000000000003', value: 'new' });
    expect(await store.length('old')).toBe(1);
  });

  it("acks in a fenced batch by the item's id, in either layout", async () => {
    const base = `${prefix}q:fenced`;
    await admin.zadd(`${base}:order`, 7, '0000000000000007');
    await admin.hset(`${base}:values`, '0000000000000007', '"old"');
    await admin.set(`${base}:seq`, '7');
    const fresh = await store.push('fenced', 'new');
    const fence = await store.acquireFencedLease('fenced-lease', 'me', 60_000);
    expect(await store.writeFenced(fence!, [{ op: 'ack', queue: 'fenced', id: '0000000000000007' }])).toBe(true);
    expect(await admin.exists(`${base}:values`)).toBe(0);
    expect(await store.peek('fenced')).toEqual(fresh);
    expect(await store.writeFenced(fence!, [{ op: 'ack', queue: 'fenced', id: fresh.id }])).toBe(true);
    expect(await store.length('fenced')).toBe(0);
    // An id the store never gave acks nothing (and breaks nothing).
    expect(await store.writeFenced(fence!, [{ op: 'ack', queue: 'fenced', id: 'x' }])).toBe(true);
    expect(await store.ack('fenced', '1e3')).toBe(false);
  });
});
