/**
 * Tenancy is a property of the types (src/core/context.ts): a handler is handed its tenant's scope,
 * in which the deployment's default chatbot client and chatbot id do not exist, and a request's
 * tenant cannot be an empty string or a tenant made from a place without the check. The
 * `@ts-expect-error` lines are the proof: `tsc` (npm run typecheck, and so npm test) fails the day
 * one of them compiles. The runtime checks show the scope object holds neither.
 */
import type { ChatbotHandle, CommandHandler, TenantScope, WritableChatbot } from '../../src/core/context';
import { scopeOf, writableChatbot } from '../../src/core/tenants/scope';
import { type RequestTenant, requestTenant, tenantOf } from '../../src/core/tenants/tenant';
import type { ChatbotClient } from '../../src/service/client';
import { startCoreHarness } from '../support/core-harness';
import { useStarted } from '../support/server-setup';

/** A handler as the bridge registers it: everything it may reach is in `ctx`. */
const probe: CommandHandler = {
  async run(ctx) {
    // @ts-expect-error the deployment's default chatbot client is not in a handler's scope
    void ctx.client;
    // @ts-expect-error nor the deployment's chatbot id
    void ctx.config.chatbotId;
    // @ts-expect-error nor another tenant's chatbot through the directory
    void ctx.chatbots?.forTenant;
    // @ts-expect-error nor the narrowing of old (a context with a `scope` beside the deployment's)
    void ctx.scope;
    // @ts-expect-error nor any tenant's connection by name: the desk is bound to the scope's own
    void ctx.chatbots?.connections;
    // @ts-expect-error nor whose connection serves another tenant
    void ctx.chatbots?.canonical;
    // Its own connection is, through the desk.
    void ctx.chatbots?.current;
    // Its own tenant's chatbot is, through the handle that says whose it is.
    void ctx.chatbot.client;
    void ctx.chatbot.kind;
  },
};

/** The handle's kind is in its type: a guest's handle cannot be used where a write needs one. */
function writeWith(scope: TenantScope): WritableChatbot | undefined {
  const handle: ChatbotHandle = scope.chatbot;
  // @ts-expect-error a handle that may be the shared chatbot is no writable one
  const unchecked: WritableChatbot = handle;
  void unchecked;
  // @ts-expect-error no handle changes its chatbot before it is known not to be the shared one
  void scope.chatbot.client.createListing;
  // @ts-expect-error nor creates a chatbot in the account behind it
  void scope.chatbot.client.v1.createChatbot;
  if (handle.kind === 'shared') return undefined;
  // Known to be the tenant's own or the operator's office's: it may.
  void handle.client.createListing;
  return handle;
}

test('the probes above are what the compiler checks', () => {
  expect(typeof probe.run).toBe('function');
  expect(typeof writeWith).toBe('function');
});

describe('a request tenant', () => {
  test('is neither an empty string nor a tenant made from a place without the check', () => {
    // @ts-expect-error an empty string is not a tenant
    const empty: RequestTenant = '';
    // @ts-expect-error a plain tenant (no check that it names a workspace) is not a request's
    const unchecked: RequestTenant = tenantOf({ surface: 'slack', workspace: '' });
    void [empty, unchecked];
    expect(() => requestTenant({ surface: 'slack', workspace: '' })).toThrow(/without a workspace/);
    expect(() => requestTenant({ surface: 'discord', workspace: '  ' })).toThrow(/without a workspace/);
    expect(requestTenant({ surface: 'slack', workspace: 'T1' })).toEqual({ surface: 'slack', id: 'T1' });
  });
});

describe('a tenant scope', () => {
  const h = useStarted(() => startCoreHarness({ storePath: ':memory:', handoffOn: 'none', start: false }));

  test('holds its tenant, its chatbot handle and its view; not the deployment client or chatbot id', async () => {
    const tenant = requestTenant(h.channel);
    const scope = await scopeOf(h.ctx, tenant);
    if (!scope) throw new Error('the harness serves every tenant with its chatbot');
    expect(scope.tenant).toEqual(tenant);
    expect(scope.chatbot).toMatchObject({ kind: 'operator', chatbotId: h.config.chatbotId });
    expect(scope.view.tenant).toEqual(tenant);
    expect(Object.keys(scope)).not.toContain('client');
    expect(Object.keys(scope.config)).not.toContain('chatbotId');
  });

  test('a write on a shared handle fails before it reaches the chatbot', () => {
    const client = {} as ChatbotClient;
    expect(() => writableChatbot({ chatbot: { kind: 'shared', chatbotId: 'env', client } })).toThrow(/shared chatbot/);
    expect(writableChatbot({ chatbot: { kind: 'own', chatbotId: 'mine', client } }).chatbotId).toBe('mine');
  });
});
