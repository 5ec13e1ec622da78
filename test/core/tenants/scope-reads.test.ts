/**
 * A request's scope reads what decides its tenant's chatbot once: the org mark of a workspace of an
 * org-wide install (its canonical tenant) serves both the chatbot's choice and the scope, and the
 * connection is still read on every request (a disconnect on another instance is seen by the next).
 */
import { randomBytes } from 'node:crypto';
import type { CoreContext } from '../../../src/core/context';
import { CoreMemory } from '../../../src/core/memory';
import { TenantConnections } from '../../../src/core/tenants/connections';
import { ChatbotDirectory } from '../../../src/core/tenants/directory';
import { scopeOf } from '../../../src/core/tenants/scope';
import { requestTenant, type Tenant } from '../../../src/core/tenants/tenant';
import { ChatbotClient } from '../../../src/service/client';
import { SecretBox } from '../../../src/state/secret-box';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { silentLog } from '../../support/silent-log';

test('a request’s scope asks for its canonical tenant once; a disconnect is seen by the next request', async () => {
  const store = new SqliteStore(':memory:');
  const asked: string[] = [];
  const box = new SecretBox(randomBytes(32));
  const client = new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' });
  const chatbots = new ChatbotDirectory({
    connections: new TenantConnections(store, box, () => 1),
    makeClient: () => new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' }),
    canonical: async (t: Tenant) => {
      asked.push(t.id);
      return { surface: 'slack', id: 'E0ORG' };
    },
    fallback: { chatbotId: 'default-bot', client },
  });
  const ctx = {
    client,
    store,
    config: { chatbotId: 'default-bot', answerIdleTimeoutMs: 1000, handoff: {}, handoffClaimTimeoutMs: 1000 },
    surfaces: { get: () => undefined, all: () => [] },
    log: silentLog,
    now: () => 1,
    memory: new CoreMemory(),
    chatbots,
  } as unknown as CoreContext;
  const tenant = requestTenant({ surface: 'slack', workspace: 'T0ORG1' });
  await chatbots.connections.put(
    { surface: 'slack', id: 'E0ORG' },
    {
      chatbotId: 'bot-org',
      secretKey: 'sk_secret-of-the-org',
      sessionKey: 'ssk_session-of-the-org',
      connectedBy: 'U1',
      connectedAt: 1,
    },
  );
  const scope = await scopeOf(ctx, tenant);
  expect(asked).toEqual(['T0ORG1']);
  expect(scope?.canonical).toEqual({ surface: 'slack', id: 'E0ORG' });
  expect(scope?.chatbot.chatbotId).toBe('bot-org');
  // Disconnected (as by another instance, straight in the store): the next request's scope has the default.
  await new TenantConnections(store, box, () => 1).remove({ surface: 'slack', id: 'E0ORG' });
  expect((await scopeOf(ctx, tenant))?.chatbot.chatbotId).toBe('default-bot');
  store.close();
});
