/**
 * STATE_URL=redis+cluster://: the Redis store on a Redis Cluster of three masters that this test
 * starts itself (redis-server --cluster-enabled yes, joined by redis-cli --cluster create). Every
 * multi-key script must find its keys in one hash slot, or Redis refuses it with CROSSSLOT.
 */
import Redis from 'ioredis';
import type { AppHandle } from '../../src/app';
import { openStore } from '../../src/state/open-store';
import { RedisStore } from '../../src/state/redis-store';
import { bareConfig, startBareApp } from '../support/bare-app';
import { startRedisCluster } from '../support/redis-servers';
import { useStarted } from '../support/server-setup';
import { runStoreContract } from './store-contract';

// The cluster is this file's own, so fixed prefixes make the slots (and so the spread) deterministic.
const cluster = useStarted(() => startRedisCluster({ masters: 3 }), 60_000);
const stores: RedisStore[] = [];

function open(keyPrefix: string): RedisStore {
  const store = new RedisStore(cluster.url, { keyPrefix });
  stores.push(store);
  return store;
}

/** A plain connection to each master, to look at where keys really are. */
async function eachMaster<T>(fn: (node: Redis, port: number) => Promise<T>): Promise<T[]> {
  return Promise.all(
    cluster.ports.map(async (port) => {
      const node = new Redis(port, '127.0.0.1');
      try {
        return await fn(node, port);
      } finally {
        node.disconnect();
      }
    }),
  );
}

async function keysOn(node: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

afterAll(async () => {
  for (const s of stores) await s.close();
});

describe('RedisStore on a three-master Redis Cluster (two connections)', () => {
  runStoreContract(async () => ({ open: async () => open('contract:') }), { oneLogAtATime: true });
});

describe('the cluster key layout', () => {
  it('keeps a value and an outbox in one slot, and spreads queues, leases and rate logs over every master', async () => {
    const store = open('layout:');
    expect(
      await store.compareAndSetWithIntents('ticket:1', undefined, 'open', undefined, 'notices', [
        { id: 'n1', value: 1 },
      ]),
    ).toBe(true);
    for (let i = 0; i < 30; i++) {
      await store.push(`queue-${i}`, i);
      await store.acquireLease(`lease-${i}`, 'me', 60_000);
      await store.takeToken(`rate-${i}`, 5, 60_000);
    }
    const client = store.client;
    const slotOf = async (key: string) => Number(await client.cluster('KEYSLOT', key));
    expect(await slotOf('{layout:}kv:ticket:1')).toBe(await slotOf('{layout:}ob:notices:pending'));
    const counts = await eachMaster(async (node) => ({
      queues: (await keysOn(node, '{layout:q:queue-*')).length,
      leases: (await keysOn(node, 'layout:lease:*')).length,
      rates: (await keysOn(node, 'layout:rate:*')).length,
    }));
    for (const c of counts) {
      expect(c.queues).toBeGreaterThan(0);
      expect(c.leases).toBeGreaterThan(0);
      expect(c.rates).toBeGreaterThan(0);
    }
    // Every key of one queue shares its slot: two keys per queue (its sequence, its items), all found on one master.
    expect(counts.reduce((n, c) => n + c.queues, 0)).toBe(30 * 2);
    for (let i = 0; i < 30; i++) expect((await store.peek(`queue-${i}`))?.value).toBe(i);
  });

  it('gives every key a time to live under RETENTION_DAYS, the outbox and queue ones too (one-slot pipelines)', async () => {
    const store = new RedisStore(cluster.url, { keyPrefix: 'retained:', retentionMs: 60_000 });
    stores.push(store);
    await store.set('forever', 1);
    await store.push('q', 'item');
    await store.compareAndSetWithIntents('ticket', undefined, 1, undefined, 'box', [{ id: 'n1', value: 'x' }]);
    await store.takeToken('rate', 5, 1000);
    await store.acquireLease('lease', 'me', 30_000);
    const ttls = (
      await eachMaster(async (node) => {
        const keys = [...(await keysOn(node, '{retained:*')), ...(await keysOn(node, 'retained:*'))];
        return Promise.all(keys.map(async (key) => ({ key, ttl: await node.pttl(key) })));
      })
    ).flat();
    // kv, queue seq/order/values, outbox seq/pending/values, rate log, lease
    expect(ttls.length).toBeGreaterThanOrEqual(9);
    for (const { key, ttl } of ttls) expect({ key, expires: ttl > 0 && ttl <= 60_000 }).toEqual({ key, expires: true });
  });

  it('books ahead a call of one budget only: a call of several goes one log at a time, now or never', async () => {
    const store = open('book:');
    await store.takeTokens([{ key: 'busy', limit: 1, windowMs: 1000 }]);
    const several = await store.takeTokens([
      { key: 'calm', limit: 1, windowMs: 1000, aheadMs: 5000 },
      { key: 'busy', limit: 1, windowMs: 1000, aheadMs: 5000 },
    ]);
    expect(several).toMatchObject({ granted: false, full: 1 });
    const one = await store.takeTokens([{ key: 'busy', limit: 1, windowMs: 1000, aheadMs: 5000 }]);
    expect(one.granted).toBe(true);
    expect(one.startInMs).toBeGreaterThan(0);
  });

  it('refuses a key prefix with braces, which would break the hash tags', () => {
    expect(() => new RedisStore(cluster.url, { keyPrefix: 'a{b}:' })).toThrow(/must not contain \{ or \}/);
  });
});

describe('keys() while a slot moves between masters', () => {
  it('finds every key on both masters during the migration, and on the new one after it', async () => {
    const store = open('moving:');
    const names = Array.from({ length: 10 }, (_, i) => `mv-${i}`);
    for (const name of names) await store.set(name, name);
    const slot = Number(await store.client.cluster('KEYSLOT', '{moving:}kv:x'));
    const nodes = await eachMaster(async (node, port) => ({
      port,
      id: String(await node.cluster('MYID')),
      keys: Number(await node.cluster('COUNTKEYSINSLOT', slot)),
    }));
    const from = nodes.find((n) => n.keys > 0)!;
    const to = nodes.find((n) => n !== from)!;
    const source = new Redis(from.port, '127.0.0.1');
    const target = new Redis(to.port, '127.0.0.1');
    try {
      await target.cluster('SETSLOT', slot, 'IMPORTING', from.id);
      await source.cluster('SETSLOT', slot, 'MIGRATING', to.id);
      const inSlot = (await source.cluster('GETKEYSINSLOT', slot, 100)) as string[];
      expect(inSlot).toHaveLength(10);
      await source.migrate('127.0.0.1', to.port, '', 0, 5000, 'KEYS', ...inSlot.slice(0, 5));
      expect((await store.keys('mv-')).sort()).toEqual([...names].sort());
      expect(await store.get(names[0]!)).toBeDefined();
      await source.migrate('127.0.0.1', to.port, '', 0, 5000, 'KEYS', ...inSlot.slice(5));
      await eachMaster((node) => node.cluster('SETSLOT', slot, 'NODE', to.id));
      expect((await store.keys('mv-')).sort()).toEqual([...names].sort());
      for (const name of names) expect(await store.get(name)).toBe(name);
    } finally {
      source.disconnect();
      target.disconnect();
    }
  });
});

describe('the bridge started with STATE_URL=redis+cluster://…', () => {
  let app: AppHandle | undefined;
  afterAll(async () => {
    await app?.close(2000);
  });

  it('openStore opens the cluster store', async () => {
    const store = await openStore(cluster.url);
    try {
      expect(store).toBeInstanceOf(RedisStore);
      await store.push('open-store-q', 'x');
      expect((await store.peek('open-store-q'))?.value).toBe('x');
    } finally {
      await store.close();
    }
  });

  it('opens its state on the cluster', async () => {
    app = await startBareApp(bareConfig({ STATE_URL: cluster.url }));
    expect(app.store).toBeInstanceOf(RedisStore);
    await app.store.set('app-check', 'through the bridge');
    const direct = open('bridge:');
    expect(await direct.get('app-check')).toBe('through the bridge');
    expect(await direct.keys('app-check')).toEqual(['app-check']);
  });
});

describe('rediss+cluster://: a TLS Redis Cluster with self-signed certificates', () => {
  const tlsCluster = useStarted(() => startRedisCluster({ masters: 3, tls: true }), 60_000);

  it('with REDIS_TLS_VERIFY=false runs the multi-key scripts and scans every master over TLS', async () => {
    const store = await openStore(tlsCluster.url, { tlsVerify: false });
    try {
      expect(tlsCluster.url).toMatch(/^rediss\+cluster:\/\//);
      expect(await store.compareAndSetWithIntents('t', undefined, 1, undefined, 'box', [{ id: 'a', value: 'x' }])).toBe(
        true,
      );
      expect((await store.pendingIntents('box', 10)).map((i) => i.id)).toEqual(['a']);
      for (let i = 0; i < 5; i++) await store.push(`q${i}`, i);
      expect((await store.peek('q3'))?.value).toBe(3);
      expect(await store.keys('t')).toEqual(['t']);
    } finally {
      await store.close();
    }
  });

  it('refuses the self-signed certificates with verification on, naming REDIS_TLS_VERIFY', async () => {
    await expect(openStore(tlsCluster.url)).rejects.toThrow(/REDIS_TLS_VERIFY=false/);
  });
});
