/**
 * STATE_URL=rediss://: the Redis store over TLS, against a redis-server of this test's own that
 * speaks only TLS with a throwaway self-signed certificate, as Heroku-style Redis add-ons do.
 */
import { randomBytes } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import type Redis from 'ioredis';
import type { AppHandle } from '../../src/app';
import { openStore } from '../../src/state/open-store';
import { RedisStore } from '../../src/state/redis-store';
import { waitFor } from '../../fakes/wait-for';
import { bareConfig, startBareApp } from '../support/bare-app';
import { startTlsRedis } from '../support/redis-servers';
import { useStarted } from '../support/server-setup';
import { runStoreContract } from './store-contract';

const tlsRedis = useStarted(() => startTlsRedis(), 30_000);
const prefix = `test:tls:${randomBytes(4).toString('hex')}:`;

describe('RedisStore over TLS with a self-signed certificate (REDIS_TLS_VERIFY=false)', () => {
  runStoreContract(async () => ({
    open: async () => new RedisStore(tlsRedis.url, { keyPrefix: prefix, tlsVerify: false }),
  }));

  it('really talks TLS: the connection is a TLS socket and the server has no plain port', async () => {
    const store = await openStore(tlsRedis.url, { tlsVerify: false });
    try {
      await store.set('tls-check', 'yes');
      const client = (store as RedisStore).client as Redis;
      expect(client.stream).toBeInstanceOf(TLSSocket);
      expect((client.stream as TLSSocket).encrypted).toBe(true);
      expect(await client.config('GET', 'port')).toEqual(['port', '0']);
      expect(await store.get('tls-check')).toBe('yes');
      await store.delete('tls-check');
    } finally {
      await store.close();
    }
  });
});

describe('certificate verification (REDIS_TLS_VERIFY, default true)', () => {
  it('refuses the self-signed certificate with an error naming REDIS_TLS_VERIFY, not the URL', async () => {
    const url = tlsRedis.url.replace('rediss://', 'rediss://:pw-secret@');
    const err = await openStore(url).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^STATE_URL: the Redis server's TLS certificate was refused/);
    expect(err!.message).toContain('REDIS_TLS_VERIFY=false');
    expect(err!.message).toMatch(/SELF_SIGNED/);
    expect(err!.message).not.toContain('pw-secret');
  });

  it('refuses it too when REDIS_TLS_VERIFY=true is said explicitly, and a store made directly stops retrying', async () => {
    const store = new RedisStore(tlsRedis.url, { tlsVerify: true });
    await expect(store.firstContact()).rejects.toThrow(/REDIS_TLS_VERIFY=false/);
    // Retrying cannot cure a refused certificate: the client ends instead of reconnecting for ever.
    await waitFor(() => store.client.status === 'end', 'the refused client to end');
    await store.close();
  });
});

describe('the bridge started with STATE_URL=rediss://… and REDIS_TLS_VERIFY=false', () => {
  let app: AppHandle | undefined;
  afterAll(async () => {
    await app?.close(2000);
  });

  it('opens its state on the TLS Redis', async () => {
    const config = bareConfig({ STATE_URL: tlsRedis.url, REDIS_TLS_VERIFY: 'false', INSTANCE_ID: 'tls-app' });
    expect(config.redisTlsVerify).toBe(false);
    app = await startBareApp(config);
    expect(app.store).toBeInstanceOf(RedisStore);
    const key = `${prefix}app-check`;
    await app.store.set(key, 'through the bridge');
    const direct = new RedisStore(tlsRedis.url, { tlsVerify: false });
    expect(await direct.get(key)).toBe('through the bridge');
    await direct.close();
  });

  it('stops start-up when verification is on, naming REDIS_TLS_VERIFY', async () => {
    const config = bareConfig({ STATE_URL: tlsRedis.url });
    expect(config.redisTlsVerify).toBe(true);
    await expect(startBareApp(config)).rejects.toThrow(/REDIS_TLS_VERIFY=false/);
  });
});
