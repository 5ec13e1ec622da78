/**
 * The tenant directory across instances: two directories over one state store (as two bridge
 * instances) see a connect and a disconnect made through the other on their next request (the
 * version stamp), keep one client per tenant while nothing changes, and never keep a key in clear.
 */
import { randomBytes } from 'node:crypto';
import { ChatbotClient } from '../../../src/service/client';
import { SecretBox } from '../../../src/state/secret-box';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { type Connection, connectionKey, connectionOf, TenantConnections } from '../../../src/core/tenants/connections';
import { ChatbotDirectory } from '../../../src/core/tenants/directory';
import { forgetTenant } from '../../../src/core/tenants/forget';
import { maskSecret } from '../../../src/core/tenants/mask';

const X = { surface: 'slack', id: 'T0X' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
let now = 1_000_000;
const clock = (): number => now;
const Y = { surface: 'discord', id: '1234' } as const;

function instance(store: SqliteStore, box: SecretBox | undefined, made: string[]): ChatbotDirectory {
  return new ChatbotDirectory({
    connections: new TenantConnections(store, box, clock),
    makeClient: (c) => {
      made.push(c.secretKey);
      return new ChatbotClient({ baseUrl: 'http://127.0.0.1:9', secretKey: c.secretKey, sessionKey: c.sessionKey });
    },
    fallback: { chatbotId: 'default-bot', client: new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' }) },
  });
}

const connection = (chatbotId: string, secretKey: string): Connection => ({
  chatbotId,
  secretKey,
  sessionKey: `ssk_${chatbotId}-session-key`,
  connectedBy: 'U1',
  connectedAt: 1,
});

describe('ChatbotDirectory', () => {
  const store = new SqliteStore(':memory:');
  const box = new SecretBox(randomBytes(32));
  afterAll(() => store.close());

  test('a connect and a disconnect on one instance are seen by the other on its next request', async () => {
    const madeA: string[] = [];
    const madeB: string[] = [];
    const one = instance(store, box, madeA);
    const two = instance(store, box, madeB);
    expect((await two.forTenant(X))?.chatbotId).toBe('default-bot');

    await one.connections.put(X, connection('bot-a', 'sk_first-secret-of-x'));
    const first = await two.forTenant(X);
    expect(first?.chatbotId).toBe('bot-a');
    expect(first?.connected).toBe(true);
    // Nothing changed: the same client, no new one made.
    expect(await two.forTenant(X)).toBe(first);
    expect(madeB).toEqual(['sk_first-secret-of-x']);

    await one.connections.put(X, connection('bot-b', 'sk_second-secret-of-x'));
    expect((await two.forTenant(X))?.chatbotId).toBe('bot-b');
    expect(madeB).toEqual(['sk_first-secret-of-x', 'sk_second-secret-of-x']);
    // Another tenant is untouched.
    expect((await two.forTenant(Y))?.chatbotId).toBe('default-bot');

    expect(await one.connections.remove(X)).toBe(true);
    expect((await two.forTenant(X))?.chatbotId).toBe('default-bot');
    expect(await one.connections.remove(X)).toBe(false);
  });

  test('the stored record holds no key in clear; without a box nothing can be saved', async () => {
    const dir = instance(store, box, []);
    await dir.connections.put(Y, connection('bot-y', 'sk_secret-of-server-y'));
    const raw = JSON.stringify(await store.get(connectionKey(Y)));
    expect(raw).not.toContain('sk_secret-of-server-y');
    expect(raw).not.toContain('ssk_bot-y-session-key');
    expect(raw).not.toContain('bot-y');
    const unkeyed = instance(store, undefined, []);
    expect(unkeyed.connections.canSave).toBe(false);
    await expect(unkeyed.connections.put(X, connection('bot-a', 'sk_whatever-secret'))).rejects.toThrow(
      'STATE_ENCRYPTION_KEY',
    );
  });

  test('a tenant with no connection and no default has no chatbot', async () => {
    const none = new ChatbotDirectory({
      connections: new TenantConnections(store, box, clock),
      makeClient: () => new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' }),
    });
    expect(await none.forTenant({ surface: 'slack', id: 'T0NEW' })).toBeUndefined();
  });

  test('a server that leaves takes its connection with it; one whose id starts the same keeps its own', async () => {
    const dir = instance(store, box, []);
    await dir.connections.put({ surface: 'discord', id: '55' }, connection('bot-55', 'sk_secret-of-server-55'));
    await dir.connections.put({ surface: 'discord', id: '555' }, connection('bot-555', 'sk_secret-of-server-555'));
    await forgetTenant(store, { surface: 'discord', id: '55' });
    expect((await dir.forTenant({ surface: 'discord', id: '55' }))?.chatbotId).toBe('default-bot');
    expect((await dir.forTenant({ surface: 'discord', id: '555' }))?.chatbotId).toBe('bot-555');
  });

  test('the workspaces of an org-wide install share their enterprise’s connection', async () => {
    const org = new ChatbotDirectory({
      connections: new TenantConnections(store, box, clock),
      makeClient: () => new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' }),
      canonical: async (t) => (t.id === 'T0ORG1' || t.id === 'T0ORG2' ? { surface: 'slack', id: 'E0ORG' } : t),
    });
    const first = await org.canonical({ surface: 'slack', id: 'T0ORG1' });
    await org.connections.put(first, connection('bot-org', 'sk_secret-of-the-org'));
    expect((await org.forTenant({ surface: 'slack', id: 'T0ORG2' }))?.chatbotId).toBe('bot-org');
    expect(await connectionOf({ chatbots: org }, { surface: 'slack', id: 'T0ORG1' })).toMatchObject({
      chatbotId: 'bot-org',
    });
    expect(await org.forTenant({ surface: 'slack', id: 'T0ALONE' })).toBeUndefined();
  });

  test('a tenant in use keeps its record: its life renewed at most once a day, nothing written back, the stamp unchanged', async () => {
    const dir = instance(store, box, []);
    const t = { surface: 'slack', id: 'T0DAILY' } as const;
    await dir.connections.put(t, connection('bot-daily', 'sk_secret-of-daily-use'));
    const raw = async () => (await store.get(connectionKey(t))) as { version: string; writtenAt: number };
    const first = await raw();
    now += DAY_MS / 2;
    await dir.forTenant(t);
    expect(await raw()).toEqual(first);
    now += DAY_MS;
    expect((await dir.forTenant(t))?.chatbotId).toBe('bot-daily');
    expect(await raw()).toEqual(first);
  });

  test('a secret is shown as its first 3 characters, an ellipsis and its last 4', () => {
    expect(maskSecret('sk-0123456789abcdef9f2c')).toBe('sk-…9f2c');
    expect(maskSecret('short')).toBe('…');
  });
});
