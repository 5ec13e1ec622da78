/** The answer-feedback store on both state stores (SQLite file shared by two connections; Redis). */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisStore } from '../../src/state/redis-store';
import { SqliteStore } from '../../src/state/sqlite-store';
import { runFeedbackContract } from './feedback-contract';
import { dropRedisPrefix } from '../support/redis-prefix';

const dir = mkdtempSync(join(tmpdir(), 'feedback-store-'));
const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:feedback:${randomBytes(4).toString('hex')}:`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // Only this run's keys: the database is shared.
  await dropRedisPrefix(REDIS, prefix);
});

describe('FeedbackStore on SQLite', () => {
  runFeedbackContract(async () => new SqliteStore(join(dir, 'state.db')));
});

describe('FeedbackStore on Redis', () => {
  runFeedbackContract(async () => new RedisStore(REDIS, { keyPrefix: prefix }));
});
