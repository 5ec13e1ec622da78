/** The installation store's contract on both state stores: a SQLite file, and Redis. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { runInstallationContract } from './installation-contract';

const dir = mkdtempSync(join(tmpdir(), 'installations-'));
const REDIS = 'redis://127.0.0.1:6379/9';
const prefix = `test:installations:${randomBytes(4).toString('hex')}:`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // Only this run's keys: the database is shared.
  const admin = new Redis(REDIS);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length) await admin.del(...keys);
  await admin.quit();
});

describe('Slack installations on SQLite', () => {
  const file = join(dir, 'state.db');
  runInstallationContract(async () => ({
    open: async () => new SqliteStore(file),
    // The file and its write-ahead log, as a copy of the disk would show them.
    raw: async () =>
      [file, `${file}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1'))
        .join(''),
  }));
});

describe('Slack installations on Redis', () => {
  runInstallationContract(async () => ({
    open: async () => new RedisStore(REDIS, { keyPrefix: prefix }),
    raw: async () => {
      const admin = new Redis(REDIS);
      try {
        const out: string[] = [];
        for (const k of await admin.keys(`${prefix}*`)) {
          const type = await admin.type(k);
          out.push(k, type === 'string' ? ((await admin.get(k)) ?? '') : JSON.stringify(await admin.hgetall(k)));
        }
        return out.join('\n');
      } finally {
        await admin.quit();
      }
    },
  }));
});
