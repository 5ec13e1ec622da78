/**
 * A tenant that disconnected its chatbot where the deployment has no default (Slack in OAuth mode
 * without CHATBOT_SECRET_KEY): every command, button and message of it is told it is not connected,
 * and the operator's chatbot (the deployment context's own client) sees no call at all. Before the
 * handlers were handed a tenant scope, a handler that forgot to narrow its context answered with it.
 */
import { randomBytes } from 'node:crypto';
import { Bridge } from '../../../src/core/bridge';
import { COMMAND_NAMES } from '../../../src/core/commands/catalogue';
import { commandHandlers } from '../../../src/core/commands';
import type { CoreContext } from '../../../src/core/context';
import { TenantConnections } from '../../../src/core/tenants/connections';
import { ChatbotDirectory, NOT_CONNECTED } from '../../../src/core/tenants/directory';
import { requestTenant } from '../../../src/core/tenants/tenant';
import { ChatbotClient } from '../../../src/service/client';
import { SecretBox } from '../../../src/state/secret-box';
import { startCoreHarness } from '../../support/core-harness';
import { FakeChatbotServer } from '../../support/fake-chatbot-server';
import { useStarted } from '../../support/server-setup';

const ARGS: Record<string, string> = {
  ask: 'any homes in Austin?',
  listings: '',
  listing: 'show id:1',
  chatbot: 'show',
  analytics: '',
  history: '',
  handoff: '',
};

describe('a disconnected tenant without a default chatbot', () => {
  const h = useStarted(() => startCoreHarness({ storePath: ':memory:', handoffOn: 'same', start: false }));
  // The operator's chatbot: a server that records every request it is sent.
  const operator = useStarted(() => FakeChatbotServer.start());

  test('is told it is not connected, and the operator’s chatbot sees no call', async () => {
    const clock = (): number => Date.now();
    const connections = new TenantConnections(h.store, new SecretBox(randomBytes(32)), clock);
    const chatbots = new ChatbotDirectory({
      connections,
      makeClient: (c) =>
        new ChatbotClient({ baseUrl: h.service.url, secretKey: c.secretKey, sessionKey: c.sessionKey }),
    });
    // The deployment's context keeps a client: the operator's, which no request of a tenant may reach.
    const ctx: CoreContext = { ...h.ctx, client: new ChatbotClient({ baseUrl: operator.baseUrl }), chatbots };
    const bridge = new Bridge(ctx, { relay: h.relay, commands: commandHandlers(), recoverInflight: false });
    const tenant = requestTenant(h.channel);
    await connections.put(tenant, {
      chatbotId: 'own-bot',
      secretKey: 'sk_own-secret-key-0001',
      sessionKey: 'ssk_own-session-key-0001',
      connectedBy: h.users.admin.id,
      connectedAt: 1,
    });
    expect(await connections.remove(tenant)).toBe(true);

    for (const name of COMMAND_NAMES) {
      const inv = h.invocation(h.users.admin);
      await bridge.command(inv, name, ARGS[name] ?? '');
      expect([name, inv.texts()]).toEqual([name, [NOT_CONNECTED]]);
    }
    for (const action of ['listings.page', 'handoff.request', 'feedback.vote']) {
      const inv = h.invocation(h.users.admin);
      await bridge.action(inv, action, 'x');
      expect(inv.texts().join('\n')).not.toMatch(/operator|default-bot/);
    }
    const before = h.surface.notices.length;
    await bridge.message(
      {
        tenant,
        surface: h.surface,
        place: h.channel,
        actor: h.users.alice,
        for: { id: h.users.alice.id, name: h.users.alice.name },
        text: 'hello' as never,
        id: 'm-disconnected-1',
        attachments: [],
        startsConversation: true,
      },
      h.surface,
    );
    expect(h.surface.notices.slice(before).map((n) => n.msg.text)).toEqual([NOT_CONNECTED]);
    // Places a surface hands over without a request (an assistant thread, a pasted link) too.
    expect(await bridge.assistantIntro(h.channel)).toMatchObject({ prompts: expect.any(Array) });
    expect(await bridge.dailyWelcome(h.channel, h.users.alice.id)).toBeUndefined();
    expect((await bridge.listingPreviews(h.channel, ['https://example.com/home/1'])).size).toBe(0);
    await bridge.stop(1000);
    expect(operator.requests).toEqual([]);
  });
});
