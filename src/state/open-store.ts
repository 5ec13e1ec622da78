import { RedisStore } from './redis-store';
import { SqliteStore } from './sqlite-store';
import type { RetentionOptions } from './retention';
import type { StateStore } from './store';

const ACCEPTED =
  'accepted forms: sqlite:<path> (e.g. sqlite:./data/bridge.db) or redis://[user:password@]host:port[/db] (rediss:// for TLS)';

/**
 * Opens the store STATE_URL names, keeping every record at most `retentionMs` after its last write. The URL itself is never echoed in errors: a Redis URL may carry a
 * password.
 */
export async function openStore(stateUrl: string, opts: RetentionOptions = {}): Promise<StateStore> {
  const url = stateUrl.trim();
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new Error(`STATE_URL has an empty sqlite path; ${ACCEPTED}`);
    return new SqliteStore(path, opts);
  }
  if (url.startsWith('redis://') || url.startsWith('rediss://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`STATE_URL is not a valid Redis URL; ${ACCEPTED}`);
    }
    const db = parsed.pathname.replace(/^\//, '');
    if (parsed.hostname === '' || (db !== '' && !/^\d+$/.test(db))) {
      throw new Error(`STATE_URL is not a valid Redis URL (host required, database must be a number); ${ACCEPTED}`);
    }
    return new RedisStore(url, opts);
  }
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
  throw new Error(`STATE_URL has an unsupported scheme ${scheme}; ${ACCEPTED}`);
}
