/**
 * The tenant-scoped store view on both state stores: keys live under `t:<kind>:<id>:`, a view reads
 * and lists its own tenant's keys only, forgetTenantKeys deletes one tenant's keys and nothing else, and
 * (checked by the compiler) a view takes no raw store key.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisStore } from '../../src/state/redis-store';
import { SqliteStore } from '../../src/state/sqlite-store';
import type { StateStore } from '../../src/state/store';
import {
  forgetTenantKeys,
  scoped,
  scopedPrefix,
  tenantFor,
  tenantPrefix,
  tenantStore,
} from '../../src/state/tenant-store';
import { dropRedisPrefix } from '../support/redis-prefix';

const dir = mkdtempSync(join(tmpdir(), 'tenant-store-'));
const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:tenants:${randomBytes(4).toString('hex')}:`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // Only this run's keys: the database is shared.
  await dropRedisPrefix(REDIS, prefix);
});

function runTenantContract(open: () => Promise<StateStore>): void {
  let store: StateStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('keeps each tenant to its own keys: one id being the start of another is no way in', async () => {
    const a = tenantStore(store, tenantFor('slack', 'T1'));
    const b = tenantStore(store, tenantFor('slack', 'T1X'));
    const d = tenantStore(store, tenantFor('discord', 'T1'));
    await a.set(scoped('ticket', 'k1'), 'of A');
    await b.set(scoped('ticket', 'k2'), 'of B');
    await d.set(scoped('ticket', 'k1'), 'of the Discord server');
    expect(await a.get(scoped('ticket', 'k1'))).toBe('of A');
    expect(await b.get(scoped('ticket', 'k1'))).toBeUndefined();
    expect(await d.get(scoped('ticket', 'k1'))).toBe('of the Discord server');
    expect(await a.keys(scopedPrefix('ticket'))).toEqual(['ticket:k1']);
    expect((await b.keys(scopedPrefix('ticket'))).sort()).toEqual(['ticket:k2']);
    expect(await store.get('t:slack:T1:ticket:k1')).toBe('of A');
    expect(await a.setIfAbsent(scoped('ticket', 'k1'), 'again')).toBe(false);
    expect(await a.compareAndSet(scoped('ticket', 'k1'), 'of A', 'changed')).toBe(true);
    expect(await d.get(scoped('ticket', 'k1'))).toBe('of the Discord server');
  });

  it('forgetTenantKeys deletes every key of the tenant and leaves other tenants and global keys intact', async () => {
    const gone = tenantFor('slack', 'TGONE');
    const kept = tenantFor('slack', 'TKEPT');
    const g = tenantStore(store, gone);
    const k = tenantStore(store, kept);
    await g.set(scoped('feedback', 'vote', 'a1', 'U1'), 1);
    await g.set(scoped('office'), { handoffChannel: 'C1' });
    await k.set(scoped('feedback', 'vote', 'a1', 'U1'), 2);
    await store.set('ticket:global-one', { id: 'global-one' });
    expect(await forgetTenantKeys(store, gone)).toBe(2);
    expect(await store.keys(tenantPrefix(gone))).toEqual([]);
    expect(await k.get(scoped('feedback', 'vote', 'a1', 'U1'))).toBe(2);
    expect(await store.get('ticket:global-one')).toEqual({ id: 'global-one' });
    expect(await forgetTenantKeys(store, gone)).toBe(0);
  });

  it('a view takes relative keys only: a raw store key does not compile', async () => {
    const a = tenantStore(store, tenantFor('slack', 'T1'));
    // @ts-expect-error: a raw key (another tenant's) is a string, not a ScopedKey.
    expect(await a.get('t:slack:T2:ticket:k1')).toBeUndefined();
    // @ts-expect-error: the same for writes.
    await a.set('ticket:k9', 1);
    // Even at run time it stays inside the view's own tenant.
    expect(await store.get('t:slack:T1:ticket:k9')).toBe(1);
    expect(await store.get('ticket:k9')).toBeUndefined();
  });
}

describe('tenant store on SQLite', () => {
  runTenantContract(async () => new SqliteStore(join(dir, 'state.db')));
});

describe('tenant store on Redis', () => {
  runTenantContract(async () => new RedisStore(REDIS, { keyPrefix: prefix }));
});

describe('tenants', () => {
  it('a tenant’s surface must be one of the bridge’s', () => {
    // @ts-expect-error: not a surface.
    expect(() => tenantFor('irc', 'x')).toThrow(/tenant surface: "irc" is not one of slack, discord, shell/);
  });
});
