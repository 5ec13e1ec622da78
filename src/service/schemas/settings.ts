/** Chatbot settings: the body of Edit (section 2.1). */
import { z } from 'zod';
import { bool, email, httpUrl, int, nonEmptyStr, rgb, str } from './fields';

export type SettingKind = 'string' | 'integer' | 'boolean' | 'color' | 'url' | 'email';
export type SettingGroup = 'model and prompt' | 'appearance' | 'contact and handoff' | 'limits' | 'privacy';

/** Every settable field, in the order forms show them. Names are the wire names of Edit. */
const DEFS = {
  Name: ['string', 'model and prompt'],
  Model: ['string', 'model and prompt'],
  SystemMessage: ['string', 'model and prompt'],
  Temperature: ['integer', 'model and prompt'],
  AIResponseLanguage: ['string', 'model and prompt'],
  TimeZone: ['string', 'model and prompt'],
  WelcomeMessage: ['string', 'model and prompt'],
  SuggestedMessage: ['string', 'model and prompt'],
  AnswerSuffix: ['string', 'model and prompt'],
  ChatProfilePicture: ['string', 'appearance'],
  ChatIcon: ['string', 'appearance'],
  ChatBubbleAlign: ['integer', 'appearance'],
  ChatBubbleColor: ['color', 'appearance'],
  UserMessageColor: ['color', 'appearance'],
  UserInputPlaceholder: ['string', 'appearance'],
  ChatbotPopupOnce: ['boolean', 'appearance'],
  EnablePushToTalk: ['boolean', 'appearance'],
  EnableUploadImage: ['boolean', 'appearance'],
  TalkToHumanEmail: ['email', 'contact and handoff'],
  TalkToHumanResponseMessage: ['string', 'contact and handoff'],
  SocialPageUrl: ['url', 'contact and handoff'],
  SocialProfileUrl: ['url', 'contact and handoff'],
  MessagingContactUrl: ['url', 'contact and handoff'],
  EmailForDailyChatLogs: ['email', 'contact and handoff'],
  EmailForDailyLeads: ['email', 'contact and handoff'],
  RateLimitCount: ['integer', 'limits'],
  RateLimitTime: ['integer', 'limits'],
  RateLimitMessage: ['string', 'limits'],
  MessageLimit: ['integer', 'limits'],
  ChatbotPrivacyPolicyName: ['string', 'privacy'],
  ChatbotPrivacyPolicyDescription: ['string', 'privacy'],
  ChatbotPrivacyPolicyUrl: ['url', 'privacy'],
  RemoveChatLogOnBrowserClose: ['boolean', 'privacy'],
  VerifyDomain: ['boolean', 'privacy'],
  Domains: ['string', 'privacy'],
  CustomDomain: ['string', 'privacy'],
} as const satisfies Record<string, readonly [SettingKind, SettingGroup]>;

export type SettingName = keyof typeof DEFS;

/**
 * The rate-limit settings a chatbot has until its owner changes them (the local service's defaults:
 * no count, a one-minute window, this message). The bridge falls back on them for what it never applied.
 */
export const RATE_LIMIT_DEFAULTS = {
  RateLimitCount: 0,
  RateLimitTime: 60,
  RateLimitMessage: 'You are sending messages too fast. Please wait a moment and try again.',
} as const;

export interface SettingField {
  name: SettingName;
  kind: SettingKind;
  group: SettingGroup;
}

export const SETTING_FIELDS: readonly SettingField[] = (Object.keys(DEFS) as SettingName[]).map((name) => ({
  name,
  kind: DEFS[name][0],
  group: DEFS[name][1],
}));

export const SETTING_GROUPS: readonly SettingGroup[] = [
  'model and prompt',
  'appearance',
  'contact and handoff',
  'limits',
  'privacy',
];

type KindValue = { string: string; integer: number; boolean: boolean; color: string; url: string; email: string };

function fieldSchema(name: SettingName, kind: SettingKind): z.ZodTypeAny {
  switch (name) {
    case 'MessageLimit':
      return int(name).min(-1, 'MessageLimit must be a whole number, -1 (unlimited) or more');
    case 'RateLimitCount':
    case 'RateLimitTime':
      return int(name).min(0, `${name} must be a whole number, 0 or more`);
    default:
  }
  switch (kind) {
    case 'string':
      return str(name);
    case 'integer':
      return int(name);
    case 'boolean':
      return bool(name);
    case 'color':
      return rgb(name);
    case 'url':
      return httpUrl(name);
    case 'email':
      return email(name);
  }
}

type SettingsShape = {
  [K in SettingName]: z.ZodOptional<z.ZodType<KindValue[(typeof DEFS)[K][0]]>>;
};

const settingsShape = Object.fromEntries(
  SETTING_FIELDS.map((f) => [f.name, fieldSchema(f.name, f.kind).optional()]),
) as unknown as SettingsShape;

/** Settings fields alone (no serialNumber); every one optional. */
export const settingsFieldsSchema = z.object(settingsShape).strict();

/** Edit body: serialNumber plus the fields to change (only the fields sent are the change). */
export const chatbotSettingsSchema = z
  .object({ serialNumber: nonEmptyStr('serialNumber') })
  .extend(settingsShape)
  .strict();

export type ChatbotSettings = z.infer<typeof chatbotSettingsSchema>;
export type SettingsFields = z.infer<typeof settingsFieldsSchema>;

/**
 * Turns typed text (a form field, `/chatbot set Temperature 1`) into the value kind the field takes;
 * the schema then validates it, so bad text gets the field's own message.
 */
export function coerceSettingValue(name: SettingName, raw: string): unknown {
  const kind = DEFS[name][0];
  const text = raw.trim();
  if (kind === 'integer') return /^-?\d+$/.test(text) ? Number(text) : text;
  if (kind === 'boolean') {
    if (/^(true|yes|on|1)$/i.test(text)) return true;
    if (/^(false|no|off|0)$/i.test(text)) return false;
    return text;
  }
  return kind === 'string' ? raw : text;
}

/** Case-insensitive lookup, for commands (`/chatbot set temperature 1`). */
export function findSettingName(name: string): SettingName | undefined {
  const lower = name.toLowerCase();
  return (Object.keys(DEFS) as SettingName[]).find((n) => n.toLowerCase() === lower);
}
