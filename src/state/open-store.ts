import type { RedisClientOptions } from './redis-client';
import { RedisStore } from './redis-store';
import { isRedisUrl, parseRedisUrl, REDIS_FORMS } from './redis-url';
import { SqliteStore } from './sqlite-store';
import type { RetentionOptions } from './retention';
import type { StateStore } from './store';

const ACCEPTED = `accepted forms: sqlite:<path> (e.g. sqlite:./data/bridge.db), ${REDIS_FORMS}`;

export interface OpenStoreOptions extends RetentionOptions, RedisClientOptions {}

/**
 * Opens the store STATE_URL names, keeping every record at most `retentionMs` after its last write. The URL itself is never echoed in errors: a Redis URL may carry a
 * password. A Redis whose TLS certificate is refused fails here (see REDIS_TLS_VERIFY) instead of
 * stalling every later command; a Redis that does not answer yet is retried in the background.
 */
export async function openStore(stateUrl: string, opts: OpenStoreOptions = {}): Promise<StateStore> {
  const url = stateUrl.trim();
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new Error(`STATE_URL has an empty sqlite path; ${ACCEPTED}`);
    return new SqliteStore(path, opts);
  }
  if (isRedisUrl(url)) {
    parseRedisUrl(url, ACCEPTED); // throws naming STATE_URL and the accepted forms
    const store = new RedisStore(url, opts);
    try {
      await store.firstContact();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
  throw new Error(`STATE_URL has an unsupported scheme ${scheme}; ${ACCEPTED}`);
}
