import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { RedisStore } from '../src/state/redis-store';
import { SqliteStore } from '../src/state/sqlite-store';
import type { StateStore } from '../src/state/store';

export interface StoreBenchRow {
  store: 'sqlite' | 'redis';
  op: 'set+get' | 'setIfAbsent' | 'push+ack' | 'takeToken';
  /** Operations completed (a set+get or push+ack pair counts as one). */
  ops: number;
  opsPerSec: number;
}

export interface StoreBenchResult {
  rows: StoreBenchRow[];
  /** Why a store was not measured (e.g. Redis unreachable). */
  skipped: string[];
}

export interface StoreBenchOptions {
  /** Operations per measurement. */
  ops?: number;
  redisUrl?: string;
}

const OPS: ReadonlyArray<[StoreBenchRow['op'], (s: StateStore, i: number, run: string) => Promise<unknown>]> = [
  [
    'set+get',
    async (s, i, run) => {
      await s.set(`${run}:kv:${i % 100}`, { i, text: 'value' });
      await s.get(`${run}:kv:${i % 100}`);
    },
  ],
  ['setIfAbsent', (s, i, run) => s.setIfAbsent(`${run}:sia:${i}`, i, 60_000)],
  [
    'push+ack',
    async (s, i, run) => {
      const item = await s.push(`${run}:q`, { i });
      await s.ack(`${run}:q`, item.id);
    },
  ],
  // A limit no run reaches: every call does the full grant path.
  ['takeToken', (s, _i, run) => s.takeToken(`${run}:rate`, 1_000_000, 60_000)],
];

/** Sequential awaits: the latency one handler sees per operation, not a pipelined maximum. */
async function measure(store: StateStore, kind: StoreBenchRow['store'], ops: number): Promise<StoreBenchRow[]> {
  const run = `bench-${randomBytes(4).toString('hex')}`;
  const rows: StoreBenchRow[] = [];
  for (const [op, fn] of OPS) {
    for (let i = 0; i < Math.min(50, ops); i++) await fn(store, -1 - i, run); // warm-up
    const start = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) await fn(store, i, run);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rows.push({ store: kind, op, ops, opsPerSec: Math.round(ops / seconds) });
  }
  return rows;
}

async function redisReachable(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function dropPrefix(url: string, prefix: string): Promise<void> {
  const admin = new Redis(url);
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
}

export async function runStoreBench(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const ops = options.ops ?? 3000;
  const redisUrl = options.redisUrl ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/9';
  const rows: StoreBenchRow[] = [];
  const skipped: string[] = [];

  const dir = mkdtempSync(join(tmpdir(), 'store-bench-'));
  const sqlite = new SqliteStore(join(dir, 'bench.db'));
  try {
    rows.push(...(await measure(sqlite, 'sqlite', ops)));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }

  if (await redisReachable(redisUrl)) {
    const prefix = `bench:${randomBytes(4).toString('hex')}:`;
    const redis = new RedisStore(redisUrl, { keyPrefix: prefix });
    try {
      rows.push(...(await measure(redis, 'redis', ops)));
    } finally {
      await redis.close();
      await dropPrefix(redisUrl, prefix);
    }
  } else {
    skipped.push('redis: not reachable');
  }
  return { rows, skipped };
}

export function formatStoreBench(result: StoreBenchResult): string {
  const lines = ['store   operation     ops/s', '------  -----------  --------'];
  for (const r of result.rows) {
    lines.push(`${r.store.padEnd(6)}  ${r.op.padEnd(11)}  ${String(r.opsPerSec).padStart(8)}`);
  }
  for (const s of result.skipped) lines.push(`skipped ${s}`);
  return lines.join('\n');
}

if (require.main === module) {
  runStoreBench().then(
    (result) => console.log(formatStoreBench(result)),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
