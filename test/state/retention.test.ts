/**
 * RETENTION_DAYS in the stores themselves: with a retention period, a record written without a time
 * to live gets one, a longer one is cut to it, and the structures that carry none of their own (queue
 * items, outbox intents, rate logs) are gone once the period has passed without a write. The period
 * here is a few milliseconds so that "gone" can be seen.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import { RedisStore } from '../../src/state/redis-store';
import { SqliteStore } from '../../src/state/sqlite-store';
import type { StateStore } from '../../src/state/store';
import { waitFor } from '../../fakes/wait-for';

const DAY_MS = 24 * 60 * 60 * 1000;

async function writeEveryKind(store: StateStore): Promise<void> {
  await store.set('forever', { a: 1 });
  await store.set('month', 1, 30 * DAY_MS);
  await store.push('q', { text: 'a question' });
  await store.compareAndSetWithIntents('ticket', undefined, 1, undefined, 'box', [{ id: 'n1', value: 'notice' }]);
  await store.takeToken('rate', 5, 1000);
}

describe('SQLite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'retention-sqlite-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('times to live are capped at the retention period; records without one get it', async () => {
    const path = join(dir, 'cap.db');
    const store = new SqliteStore(path, { retentionMs: 2 * DAY_MS });
    await writeEveryKind(store);
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT key, expires_at FROM kv').all() as Array<{
      key: string;
      expires_at: number | null;
    }>;
    for (const r of rows) {
      expect(r.expires_at).not.toBeNull();
      expect(r.expires_at! - Date.now()).toBeLessThanOrEqual(2 * DAY_MS);
    }
    for (const table of ['queue_items', 'outbox']) {
      const undated = db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE at IS NULL`).get() as { n: number };
      expect({ table, undated: undated.n }).toEqual({ table, undated: 0 });
    }
    db.close();
    await store.close();
  });

  test('queue items, intents and rate logs older than the period are swept', async () => {
    const path = join(dir, 'sweep.db');
    const writer = new SqliteStore(path, { retentionMs: 20 });
    await writeEveryKind(writer);
    await writer.close();
    const count = (): number => {
      const db = new Database(path, { readonly: true });
      const n = ['kv', 'queue_items', 'outbox', 'rate_log']
        .map((t) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n)
        .reduce((a, b) => a + b, 0);
      db.close();
      return n;
    };
    expect(count()).toBeGreaterThanOrEqual(5);
    // A store's first write sweeps; a new one is opened until the period has passed.
    await waitFor(async () => {
      const sweeper = new SqliteStore(path, { retentionMs: 20 });
      await sweeper.set('sweep', 1, 1);
      await sweeper.close();
      return count() <= 1 || undefined;
    }, 'every record older than the period swept');
  });
});

describe('Redis', () => {
  const url = 'redis://127.0.0.1:6379/14';
  const prefix = `test:retention:${randomBytes(4).toString('hex')}:`;
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(url);
  });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    await admin.quit();
  });

  test('every key gets a time to live of at most the period, and is gone once it has passed', async () => {
    const store = new RedisStore(url, { keyPrefix: prefix, retentionMs: 300 });
    try {
      await writeEveryKind(store);
      const keys = await admin.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThanOrEqual(7);
      for (const key of keys) {
        const ttl = await admin.pttl(key);
        expect({ key, expires: ttl > 0 && ttl <= 300 }).toEqual({ key, expires: true });
      }
      await waitFor(async () => (await admin.keys(`${prefix}*`)).length === 0 || undefined, 'every key expired');
    } finally {
      await store.close();
    }
  });
});
