/** Where a conversation's handoff goes, and what its user is told first: the configured words. */
import { z } from 'zod';
import type { HandoffTarget, OfficeScope, TenantConfig } from '../context';
import { parseStored } from '../conversations/model';
import type { Place } from '../surface';
import { DEFAULT_TALK_TO_HUMAN } from './model';

const appliedSettingsSchema = z.object({ TalkToHumanResponseMessage: z.string().optional() }).passthrough();

/** The handoff channel on the user's surface, else the one configured elsewhere (a cross-surface handoff). */
export function handoffTarget(ctx: { config: Pick<TenantConfig, 'handoff'> }, from: Place): HandoffTarget | undefined {
  const configured = ctx.config.handoff;
  return configured[from.surface] ?? Object.values(configured).find((t): t is HandoffTarget => t !== undefined);
}

/** The chatbot's TalkToHumanResponseMessage as last applied, or the bridge's default. */
export async function talkToHumanMessage(ctx: Pick<OfficeScope, 'store' | 'chatbot'>): Promise<string> {
  // A tenant without a chatbot has no words of its own (and never the operator's).
  if (!ctx.chatbot) return DEFAULT_TALK_TO_HUMAN;
  const applied = parseStored(appliedSettingsSchema, await ctx.store.get(`settings:applied:${ctx.chatbot.chatbotId}`));
  const text = applied?.TalkToHumanResponseMessage?.trim();
  return text ? text : DEFAULT_TALK_TO_HUMAN;
}
