/**
 * A request's core context narrowed to its tenant: the tenant's chatbot client and id in place of the
 * deployment's, and its handoff channel first. Handlers keep reading `ctx.client` and
 * `ctx.config.chatbotId`, so every service call, session, setting and figure of the request follows
 * the tenant's chatbot without each handler choosing it.
 */
import type { ChatbotKind, CoreContext } from '../context';
import type { TenantChatbot } from './directory';
import type { Place } from '../surface';
import { isDirectTenant, type Tenant, tenantOf } from './tenant';

/** The tenant's chatbot (the context's own when no directory is wired, as in core-only tests). */
export async function chatbotFor(ctx: CoreContext, tenant: Tenant): Promise<TenantChatbot | undefined> {
  if (!ctx.chatbots) return { chatbotId: ctx.config.chatbotId, client: ctx.client, connected: false };
  return ctx.chatbots.forTenant(tenant);
}

/** `ctx` answering with `chatbot` for `tenant`. */
export function withChatbot(ctx: CoreContext, tenant: Tenant, chatbot: TenantChatbot): CoreContext {
  const handoff = { ...ctx.config.handoff };
  if (chatbot.handoffChannel) {
    handoff[tenant.surface] = { surface: tenant.surface, workspace: tenant.id, channel: chatbot.handoffChannel };
  }
  return {
    ...ctx,
    client: chatbot.client,
    config: { ...ctx.config, chatbotId: chatbot.chatbotId, handoff },
    scope: { tenant, ownChatbot: ownChatbot(ctx, chatbot), chatbot: chatbotKind(ctx, tenant, chatbot) },
  };
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
export function guestsOn(ctx: Pick<CoreContext, 'config'>, surface: Tenant['surface']): boolean {
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

/** The context of the tenant of `place` (`ctx` itself when the tenant has no chatbot). */
export async function tenantContext(ctx: CoreContext, place: Place): Promise<CoreContext> {
  const tenant = tenantOf(place);
  const chatbot = await chatbotFor(ctx, tenant);
  return chatbot ? withChatbot(ctx, tenant, chatbot) : ctx;
}
