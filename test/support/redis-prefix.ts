/** Test data on the shared Redis: each run writes under its own key prefix and deletes only that. */
import Redis from 'ioredis';

/** Deletes every key of `url`'s database that starts with `prefix` (other runs share the database). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const admin = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await admin.quit();
  }
}
