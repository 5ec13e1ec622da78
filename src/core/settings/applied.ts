/**
 * What the bridge last applied with Edit, per chatbot. The interface has no read operation for
 * settings, so this record is the only answer to "what is set": an object of Edit fields merged
 * over time. Other modules read it (handoff reads TalkToHumanResponseMessage).
 */
import { z } from 'zod';
import type { CoreContext } from '../context';
import type { SettingsFields } from '../../service/schemas/settings';
import type { Json } from '../../state/store';

export function appliedSettingsKey(chatbotId: string): string {
  return `settings:applied:${chatbotId}`;
}

const appliedSchema = z.record(z.union([z.string(), z.number(), z.boolean()]));

export type AppliedSettings = Partial<SettingsFields>;

export async function readAppliedSettings(
  ctx: CoreContext,
  chatbotId = ctx.config.chatbotId,
): Promise<AppliedSettings> {
  const raw = await ctx.store.get(appliedSettingsKey(chatbotId));
  const parsed = appliedSchema.safeParse(raw ?? {});
  return parsed.success ? (parsed.data as AppliedSettings) : {};
}

/** Sends the change with Edit, then records it merged over what was applied before. */
export async function applySettings(ctx: CoreContext, change: AppliedSettings): Promise<AppliedSettings> {
  const chatbotId = ctx.config.chatbotId;
  await ctx.client.editChatbot({ serialNumber: chatbotId, ...change });
  const merged: AppliedSettings = { ...(await readAppliedSettings(ctx, chatbotId)), ...change };
  await ctx.store.set(appliedSettingsKey(chatbotId), merged as { [key: string]: Json });
  return merged;
}
