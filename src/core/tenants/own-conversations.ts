/**
 * Which of the service's conversations are a tenant's own. The local service (and the real one) use
 * a chat session's `SessionID` as its /v1 conversation id, the id /history shows; so when the bridge
 * opens a session for a tenant's conversation it notes the id in the tenant's own part of the store
 * (`t:<kind>:<id>:session:<sessionId>`), with the chatbot it was opened on and when. On a shared
 * chatbot (shared-chatbot.ts) these notes are all that says a conversation is the tenant's: /history
 * shows those only and /analytics counts them. They are written only where a surface serves many
 * tenants (guestsOn: Slack in OAuth mode, Discord), expire with the conversations (RETENTION_DAYS) and leave with the tenant.
 */
import { z } from 'zod';
import { scoped, scopedPrefix, tenantStore, type Tenant } from '../../state/tenant-store';
import type { CoreContext, TenantScope } from '../context';
import { parseStored } from '../conversations/model';
import { DEFAULT_RETENTION_MS } from '../conversations/transcript';
import { guestsOn } from './scope';

const ownSessionSchema = z.object({ chatbotId: z.string(), createdAt: z.number() });

/** One of the tenant's conversations on the service: its /v1 id, the chatbot, when the bridge opened it. */
export interface OwnConversation {
  id: string;
  chatbotId: string;
  createdAt: number;
}

const sessionKey = (id: string) => scoped('session', id);

/**
 * Notes the session just opened with the scope's chatbot as its tenant's, only where its surface
 * serves many tenants (elsewhere nothing is written).
 */
export async function recordOwnSession(ctx: TenantScope, sessionId: number): Promise<void> {
  if (!guestsOn(ctx, ctx.tenant.surface)) return;
  await ctx.view.set(
    sessionKey(String(sessionId)),
    { chatbotId: ctx.chatbot.chatbotId, createdAt: ctx.now() },
    ctx.config.retentionMs ?? DEFAULT_RETENTION_MS,
  );
}

/** Whether conversation `id` of `chatbotId` was opened by the bridge for `tenant`. */
export async function ownsConversation(
  ctx: Pick<CoreContext, 'store'>,
  tenant: Tenant,
  chatbotId: string,
  id: string,
): Promise<boolean> {
  const own = parseStored(ownSessionSchema, await tenantStore(ctx.store, tenant).get(sessionKey(id)));
  return own?.chatbotId === chatbotId;
}

/** The tenant's conversations on `chatbotId`, newest first. */
export async function ownConversations(
  ctx: Pick<CoreContext, 'store'>,
  tenant: Tenant,
  chatbotId: string,
): Promise<OwnConversation[]> {
  const view = tenantStore(ctx.store, tenant);
  const prefix = scopedPrefix('session');
  const found: OwnConversation[] = [];
  for (const key of await view.keys(prefix)) {
    const own = parseStored(ownSessionSchema, await view.get(key));
    const id = decodeURIComponent(key.slice(prefix.length));
    if (own && own.chatbotId === chatbotId) found.push({ id, ...own });
  }
  return found.sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id, 'en', { numeric: true }));
}
