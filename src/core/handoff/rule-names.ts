/**
 * The names of an office's handoff settings (handoff/rules.ts), apart so the command catalogue can
 * offer them (Discord's choices, the usage) without importing the rules.
 */
export const HANDOFF_RULE_NAMES = [
  'HANDOFF_ASSIGN',
  'HANDOFF_OFFER_S',
  'HANDOFF_FIRST_REPLY_S',
  'HANDOFF_CLAIM_TIMEOUT_S',
  'HANDOFF_REMIND_S',
  'HANDOFF_ON_NO_ANSWER',
  'LINK_HOSTS',
] as const;

export type HandoffRuleName = (typeof HANDOFF_RULE_NAMES)[number];
