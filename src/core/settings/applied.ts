/**
 * What the bridge last applied with Edit, per chatbot. The interface has no read operation for
 * settings, so this record is the only answer to "what is set": an object of Edit fields merged
 * over time. Other modules read it (handoff reads TalkToHumanResponseMessage).
 */
import { z } from 'zod';
import type { ChatbotNamed, OfficeScope, TenantScope, WritableChatbot } from '../context';
import { memorySlot } from '../memory';
import type { SettingsFields } from '../../service/schemas/settings';
import type { Json } from '../../state/store';

export function appliedSettingsKey(chatbotId: string): string {
  return `settings:applied:${chatbotId}`;
}

const appliedSchema = z.record(z.union([z.string(), z.number(), z.boolean()]));

export type AppliedSettings = Partial<SettingsFields>;

/** When this bridge last restarted a chatbot's record's retention (it is read on every question). */
const TOUCHED_AT = memorySlot<Map<string, number>>('applied settings touched at');
const TOUCH_EVERY_MS = 60 * 60 * 1000;

export async function readAppliedSettings(
  ctx: Pick<OfficeScope, 'store' | 'memory' | 'now' | 'config' | 'log'> & { chatbot: ChatbotNamed },
  chatbotId = ctx.chatbot.chatbotId,
): Promise<AppliedSettings> {
  const key = appliedSettingsKey(chatbotId);
  const raw = await ctx.store.get(key);
  // Like every record, this one expires RETENTION_DAYS after its last write; a bridge in use keeps
  // it (re-written at most hourly), so what the owner set is not forgotten while people ask.
  const touchedAt = ctx.memory.get(TOUCHED_AT, () => new Map<string, number>());
  if (raw !== undefined && ctx.now() - (touchedAt.get(key) ?? 0) >= TOUCH_EVERY_MS) {
    // Marked done only once the write went through: a failed one is tried again on the next read
    // (and does not fail the question that read the record).
    try {
      await ctx.store.compareAndSet(key, raw, raw, ctx.config.retentionMs);
      touchedAt.set(key, ctx.now());
    } catch (err) {
      ctx.log.warn(
        { err, chatbotId },
        'applied settings: restarting the record retention failed; tried again next read',
      );
    }
  }
  const parsed = appliedSchema.safeParse(raw ?? {});
  return parsed.success ? (parsed.data as AppliedSettings) : {};
}

/** Sends the change with Edit, then records it merged over what was applied before. */
export async function applySettings(
  ctx: Omit<TenantScope, 'chatbot'>,
  chatbot: WritableChatbot,
  change: AppliedSettings,
): Promise<AppliedSettings> {
  const chatbotId = chatbot.chatbotId;
  await chatbot.client.editChatbot({ serialNumber: chatbotId, ...change });
  const merged: AppliedSettings = { ...(await readAppliedSettings({ ...ctx, chatbot }, chatbotId)), ...change };
  await ctx.store.set(appliedSettingsKey(chatbotId), merged as { [key: string]: Json }, ctx.config.retentionMs);
  return merged;
}
