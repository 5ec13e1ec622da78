/**
 * A request's tenant scope, made from the deployment's context in this one place: the tenant the
 * surface decided, its part of the store, and its chatbot as a handle that says whose it is. The
 * deployment's default client and chatbot id are left behind, so whatever runs for the request
 * answers with the tenant's chatbot or with none: nothing can fall back on the operator's.
 */
import { tenantStore } from '../../state/tenant-store';
import type {
  ChatbotHandle,
  ChatbotKind,
  ConnectionDesk,
  CoreContext,
  TenantConfig,
  TenantScope,
  UnconnectedScope,
  WritableChatbot,
} from '../context';
import type { ChatbotDirectory, TenantChatbot } from './directory';
import { isDirectTenant, type RequestTenant, type Tenant } from './tenant';

/**
 * The tenant's chatbot (the context's own when no directory is wired, as in core-only tests).
 * `canonical`: the tenant whose connection serves it, when the caller already has it (scopeOf).
 */
export async function chatbotFor(
  ctx: CoreContext,
  tenant: Tenant,
  canonical?: Tenant,
): Promise<TenantChatbot | undefined> {
  if (!ctx.chatbots) return { chatbotId: ctx.config.chatbotId, client: ctx.client, connected: false };
  return ctx.chatbots.forTenant(tenant, canonical);
}

/**
 * The scope of `tenant` before a chatbot is chosen (connecting one): no chatbot in it. `known`: its
 * canonical tenant as the same request already read it (one read of the org mark per request).
 */
export async function unconnectedScope(
  ctx: CoreContext,
  tenant: RequestTenant,
  known?: Tenant,
): Promise<UnconnectedScope> {
  const { client: _client, config, chatbots, ...facilities } = ctx;
  const { chatbotId: _chatbotId, ...tenantConfig } = config;
  const canonical = known ?? (chatbots ? await chatbots.canonical(tenant) : tenant);
  const desk = chatbots ? deskOf(chatbots, canonical) : undefined;
  return {
    ...facilities,
    config: tenantConfig,
    tenant,
    canonical,
    view: tenantStore(ctx.store, tenant),
    ...(desk ? { chatbots: desk } : {}),
  };
}

/** The directory as one tenant's request may use it: that tenant's connection only, bound here. */
function deskOf(directory: ChatbotDirectory, canonical: Tenant): ConnectionDesk {
  return {
    canSave: directory.connections.canSave,
    hasDefault: directory.hasDefault,
    current: async () => (await directory.connections.get(canonical))?.connection,
    save: async (connection) => {
      await directory.connections.put(canonical, connection);
      directory.forget(canonical);
    },
    remove: async () => {
      const had = await directory.connections.remove(canonical);
      directory.forget(canonical);
      return had;
    },
    check: (credentials, tell) => directory.check(credentials, tell),
    connectedKind: (chatbotId) => directory.connectedKind(chatbotId),
  };
}

/** The scope of `tenant` answered by `chatbot`: its handle, and its handoff channel first. */
export async function scopeWith(
  ctx: CoreContext,
  tenant: RequestTenant,
  chatbot: TenantChatbot,
  canonical?: Tenant,
): Promise<TenantScope> {
  const base = await unconnectedScope(ctx, tenant, canonical);
  const handle = { kind: chatbotKind(ctx, tenant, chatbot), chatbotId: chatbot.chatbotId, client: chatbot.client };
  return { ...base, config: channelFirst(base.config, tenant, chatbot), chatbot: handle };
}

/** `config` with the tenant's own handoff channel (its connection's) first on its surface. */
export function channelFirst(
  config: TenantConfig,
  tenant: Tenant,
  chatbot: Pick<TenantChatbot, 'handoffChannel'>,
): TenantConfig {
  if (!chatbot.handoffChannel) return config;
  const own = { surface: tenant.surface, workspace: tenant.id, channel: chatbot.handoffChannel };
  return { ...config, handoff: { ...config.handoff, [tenant.surface]: own } };
}

/** The scope of `tenant`; undefined when it has no chatbot (not connected, no default). */
export async function scopeOf(ctx: CoreContext, tenant: RequestTenant): Promise<TenantScope | undefined> {
  // Its canonical tenant (a store read in Slack OAuth mode) is read once, for its chatbot and its scope.
  const canonical = ctx.chatbots ? await ctx.chatbots.canonical(tenant) : tenant;
  const chatbot = await chatbotFor(ctx, tenant, canonical);
  return chatbot ? scopeWith(ctx, tenant, chatbot, canonical) : undefined;
}

/**
 * The handle of a chatbot the scope's tenant may change (settings, listings, chatbots). The bridge
 * refuses a guest's writes before its handler runs (CommandHandler.operatorOnly); this is where the
 * type says so, and a write that was not declared fails here rather than reach the operator's chatbot.
 */
export function writableChatbot(scope: Pick<TenantScope, 'chatbot'>): WritableChatbot {
  const chatbot: ChatbotHandle = scope.chatbot;
  if (chatbot.kind === 'shared')
    throw new Error("a guest's write reached the shared chatbot (not declared operatorOnly)");
  return chatbot;
}

/** Whose chatbot answers `tenant` (context.ts's ChatbotKind). */
export function chatbotKind(
  ctx: Pick<CoreContext, 'config' | 'chatbots'>,
  tenant: Tenant,
  chatbot: Pick<TenantChatbot, 'chatbotId' | 'connected'>,
): ChatbotKind {
  if (ownChatbot(ctx, chatbot)) return 'own';
  return chatbot.connected || operatorsOffice(ctx, tenant) ? 'operator' : 'shared';
}

/** Whether `surface` has guests (CoreConfig.guestSurfaces; by default, where many tenants install it). */
export function guestsOn(
  ctx: { config: Pick<TenantConfig, 'guestSurfaces' | 'manyTenants'> },
  surface: Tenant['surface'],
): boolean {
  const { guestSurfaces, manyTenants } = ctx.config;
  return (guestSurfaces ?? manyTenants ?? []).includes(surface);
}

/**
 * The operator's office on the environment's chatbot without connecting it: every tenant of a surface
 * that has no guests (one Slack token, the shell), else the workspace DISCORD_GUILD_ID names or the
 * one the deployment's own handoff channel is in (learnt at start where no guild is configured).
 */
export function operatorsOffice(ctx: Pick<CoreContext, 'config'>, tenant: Tenant): boolean {
  const config = ctx.config;
  // A DM is no server's: the deployment's own office serves it (its tickets go to its channel).
  if (!guestsOn(ctx, tenant.surface) || isDirectTenant(tenant)) return true;
  const mine = [config.operatorWorkspaces?.[tenant.surface], config.handoff[tenant.surface]?.workspace];
  return tenant.id !== '' && mine.includes(tenant.id);
}

/**
 * A chatbot of the tenant's own, not the operator's: connected, and not the environment's chatbot. A
 * workspace that connected the environment's chatbot (its id, proven by its keys) is the operator's
 * office: in OAuth mode that is how it names its handoff channel, and HANDOFF_EMAIL and
 * HANDOFF_ESCALATE still serve it as they serve a single-workspace deployment.
 */
function ownChatbot(
  ctx: Pick<CoreContext, 'chatbots'>,
  chatbot: Pick<TenantChatbot, 'chatbotId' | 'connected'>,
): boolean {
  return chatbot.connected && chatbot.chatbotId !== ctx.chatbots?.defaultChatbotId;
}
