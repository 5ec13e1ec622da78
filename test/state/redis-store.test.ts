import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RedisStore } from '../../src/state/redis-store';
import { runStoreContract } from './store-contract';
import { waitFor } from '../../fakes/wait-for';
import { dropRedisPrefix } from '../support/redis-prefix';

const HOST = 'redis://127.0.0.1:6379';
const prefix = `test:store:${randomBytes(4).toString('hex')}:`;
const stores: RedisStore[] = [];

function open(db: number, keyPrefix = prefix): RedisStore {
  const store = new RedisStore(`${HOST}/${db}`, { keyPrefix });
  stores.push(store);
  return store;
}

/** Deletes only this run's keys: other engineers share the databases. */
async function dropPrefix(db: number): Promise<void> {
  await dropRedisPrefix(`${HOST}/${db}`, prefix);
}

afterAll(async () => {
  for (const s of stores) await s.close();
  for (const db of [9, 10, 11]) await dropPrefix(db);
});

describe('RedisStore (db 9, two connections)', () => {
  runStoreContract(async () => ({ open: async () => open(9) }));
});

describe('RedisStore specifics', () => {
  it('honours the database number in the URL', async () => {
    const in10 = open(10);
    const in11 = open(11);
    await in10.set('where', 'db10');
    await in10.push('q', 1);
    expect(await in10.get('where')).toBe('db10');
    expect(await in11.get('where')).toBeUndefined();
    expect(await in11.length('q')).toBe(0);
    expect(await in11.keys('')).toEqual([]);
    const raw = new Redis(`${HOST}/10`);
    expect(await raw.get(`${prefix}kv:where`)).toBe('"db10"');
    await raw.quit();
  });

  it('keeps a rate log until its last token, booked ones too, has left its window, moving its expiry only when needed', async () => {
    // A short retention keeps the extra life of a log short (2 s here), so bookings reach past it.
    const store = new RedisStore(`${HOST}/9`, { keyPrefix: prefix, retentionMs: 3_000 });
    stores.push(store);
    const raw = new Redis(`${HOST}/9`);
    try {
      const log = `${prefix}rate:ttl-log`;
      const budget = { key: 'ttl-log', limit: 1, windowMs: 1_000, aheadMs: 10_000 };
      await store.takeTokens([budget]);
      const ttls = [await raw.pttl(log)];
      const starts = [0];
      for (let i = 0; i < 5; i++) {
        const d = await store.takeTokens([budget]);
        expect(d.granted).toBe(true);
        starts.push(d.startInMs ?? 0);
        ttls.push(await raw.pttl(log));
      }
      // Never expiring before the last token has left its window (the clock ran a little meanwhile).
      for (const [i, ttl] of ttls.entries()) expect(ttl).toBeGreaterThanOrEqual((starts[i] ?? 0) + 1_000 - 100);
      // The first booking fits the life the first grant gave: its expiry did not move.
      expect(ttls[1]).toBeLessThanOrEqual(ttls[0] ?? 0);
      // The expiry is a member of the log, not a token: the bookings are a window apart.
      for (let i = 1; i < starts.length; i++) {
        expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThan(1_000 - 100);
        expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeLessThan(1_000 + 100);
      }
    } finally {
      await raw.quit();
    }
  });

  it('isolates stores with different key prefixes in one database', async () => {
    const mine = open(9, `${prefix}one:`);
    const theirs = open(9, `${prefix}two:`);
    await mine.set('k', 1);
    expect(await theirs.get('k')).toBeUndefined();
    expect(await theirs.setIfAbsent('k', 2)).toBe(true);
    expect(await mine.get('k')).toBe(1);
  });

  it('reconnects after the connection drops and runs commands issued meanwhile', async () => {
    const store = open(9);
    await store.set('before', 1);
    const id = await store.client.client('ID');
    const admin = new Redis(`${HOST}/9`);
    let reconnected = false;
    store.client.once('reconnecting', () => (reconnected = true));
    await admin.client('KILL', 'ID', String(id));
    await admin.quit();
    // Issued while the client is (or is about to be) disconnected: must be queued, not lost.
    const pending = Promise.all([store.set('during', 2), store.push('rq', 'queued'), store.get('before')]);
    const [, item, before] = await pending;
    expect(before).toBe(1);
    expect(item.value).toBe('queued');
    await waitFor(() => reconnected, 'reconnected');
    expect(await store.get('during')).toBe(2);
    expect(await store.client.client('ID')).not.toBe(id);
  });
});
