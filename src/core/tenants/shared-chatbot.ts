/**
 * A tenant on the deployment's shared chatbot: a surface many tenants install (Slack in OAuth mode)
 * and a tenant that has connected no chatbot of its own, so the environment's default answers it,
 * as it answers every other such tenant. The service keeps that chatbot's conversations and figures
 * all together, so what the service says about the chatbot as a whole is every tenant's, not this
 * one's: /history and /analytics then show only what the bridge knows to be the tenant's
 * (own-conversations.ts). With one workspace (one Slack token, Discord, the shell) no chatbot is
 * shared and nothing is narrowed.
 */
import type { TenantConfig, TenantScope } from '../context';
import type { SurfaceName } from '../surface';

/** The one line /analytics gives a tenant on the shared chatbot in place of the service's figures. */
export const SHARED_CHATBOT_NOTE =
  "This workspace uses the deployment's shared chatbot, so service-wide figures are shown only once it connects its own with /chatbot connect.";

/** A surface that serves many tenants (CoreConfig.manyTenants: Slack installed by OAuth). */
export function servesManyTenants(ctx: { config: Pick<TenantConfig, 'manyTenants'> }, surface: SurfaceName): boolean {
  return ctx.config.manyTenants?.includes(surface) ?? false;
}

/** The one line a tenant on the shared chatbot gets for what changes the operator's chatbot or account. */
export const SHARED_CHATBOT_REFUSAL =
  "This workspace uses the deployment's shared chatbot; connect your own with /chatbot connect to change its settings and listings.";

/** Whether the scope's tenant is a guest on the deployment's default chatbot alongside other tenants. */
export function onSharedChatbot(ctx: Pick<TenantScope, 'chatbot'>): boolean {
  return ctx.chatbot.kind === 'shared';
}
