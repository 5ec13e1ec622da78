/**
 * The scale-out bench's Redis: a redis-server of its own on a free port (no persistence, removed
 * after), so that INFO commandstats counts the bridges' commands only, not those of whatever else
 * shares the machine's Redis. BENCH_REDIS_URL points the bench at another server instead (its
 * database is then emptied of the bridges' `bridge:` keys after the run, and the command count
 * includes anything else that server did meanwhile).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { waitFor } from '../../fakes/wait-for';

export interface BenchRedis {
  url: string;
  /** Every command the server has run so far (INFO commandstats, summed). */
  commands(): Promise<number>;
  /** Keys matching a glob (`bridge:kv:inflight:*`...), for the "nothing lost" check. */
  keys(match: string): Promise<string[]>;
  /** The string values of the keys matching `match` (the bridges' records are JSON). */
  values(match: string): Promise<string[]>;
  /** Items still queued: the sum of ZCARD over the sorted sets matching `match`. */
  queued(match: string): Promise<number>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Sums `calls=` over INFO commandstats. */
export function commandCount(info: string): number {
  let total = 0;
  for (const m of info.matchAll(/calls=(\d+)/g)) total += Number(m[1]);
  return total;
}

function clientOf(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  client.on('error', () => undefined);
  return client;
}

async function scanAll(client: Redis, match: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', match, 'COUNT', 500);
    out.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

function wrap(url: string, client: Redis, cleanup: () => Promise<void>): BenchRedis {
  return {
    url,
    commands: async () => commandCount(await client.info('commandstats')),
    keys: (match) => scanAll(client, match),
    values: async (match) => {
      const out: string[] = [];
      for (const key of await scanAll(client, match)) {
        const v = await client.get(key);
        if (v !== null) out.push(v);
      }
      return out;
    },
    queued: async (match) => {
      let n = 0;
      for (const key of await scanAll(client, match)) n += await client.zcard(key);
      return n;
    },
    close: async () => {
      await cleanup();
      client.disconnect();
    },
  };
}

/** A redis-server of the bench's own, or the one BENCH_REDIS_URL names. */
export async function startBenchRedis(): Promise<BenchRedis> {
  const given = process.env.BENCH_REDIS_URL;
  if (given) {
    const client = clientOf(given);
    await client.connect();
    return wrap(given, client, async () => {
      const keys = await scanAll(client, 'bridge:*');
      for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
    });
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'scale-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  const client = clientOf(url);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error('redis-server exited at start-up (is it installed?)');
      try {
        if (client.status !== 'ready') await client.connect();
        return (await client.info('server')).includes(`process_id:${child.pid}`);
      } catch {
        client.disconnect();
        return false;
      }
    },
    `redis-server on ${port}`,
    10_000,
  );
  return wrap(url, client, async () => {
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGKILL');
    await gone;
    rmSync(dir, { recursive: true, force: true });
  });
}
