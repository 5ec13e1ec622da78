/** The answer-feedback store on both state stores (SQLite file shared by two connections; Redis). */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { RedisStore } from '../../src/state/redis-store';
import { SqliteStore } from '../../src/state/sqlite-store';
import { runFeedbackContract } from './feedback-contract';

const dir = mkdtempSync(join(tmpdir(), 'feedback-store-'));
const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:feedback:${randomBytes(4).toString('hex')}:`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // Only this run's keys: the database is shared.
  const admin = new Redis(REDIS);
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
});

describe('FeedbackStore on SQLite', () => {
  runFeedbackContract(async () => new SqliteStore(join(dir, 'state.db')));
});

describe('FeedbackStore on Redis', () => {
  runFeedbackContract(async () => new RedisStore(REDIS, { keyPrefix: prefix }));
});
