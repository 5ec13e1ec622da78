/** Where a conversation's handoff goes, and what its user is told first: the configured words. */
import { z } from 'zod';
import type { CoreContext, HandoffTarget } from '../context';
import { parseStored } from '../conversations/model';
import type { Place } from '../surface';
import { tenantOf } from '../tenants/tenant';
import { DEFAULT_TALK_TO_HUMAN } from './model';

const appliedSettingsSchema = z.object({ TalkToHumanResponseMessage: z.string().optional() }).passthrough();

/** The handoff channel on the user's surface, else the one configured elsewhere (a cross-surface handoff). */
export function handoffTarget(ctx: CoreContext, from: Place): HandoffTarget | undefined {
  const configured = ctx.config.handoff;
  return configured[from.surface] ?? Object.values(configured).find((t): t is HandoffTarget => t !== undefined);
}

/**
 * Where a ticket of a conversation at `from` goes: its tenant's own handoff channel (set with
 * `/chatbot connect`, on the tenant's surface and workspace), else the configured one.
 */
export async function tenantHandoffTarget(ctx: CoreContext, from: Place): Promise<HandoffTarget | undefined> {
  const chatbot = await ctx.chatbots?.forTenant(tenantOf(from));
  if (chatbot?.handoffChannel) {
    return { surface: from.surface, workspace: from.workspace, channel: chatbot.handoffChannel };
  }
  return handoffTarget(ctx, from);
}

/** The chatbot's TalkToHumanResponseMessage as last applied, or the bridge's default. */
export async function talkToHumanMessage(ctx: CoreContext): Promise<string> {
  const applied = parseStored(appliedSettingsSchema, await ctx.store.get(`settings:applied:${ctx.config.chatbotId}`));
  const text = applied?.TalkToHumanResponseMessage?.trim();
  return text ? text : DEFAULT_TALK_TO_HUMAN;
}
