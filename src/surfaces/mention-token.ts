/**
 * The bridge's own mentions, as tokens no user text can forge. Core writes `surface.mention(actor)`
 * into text that also carries untrusted words (a quoted question, a ticket's transcript); a surface
 * escapes everything untrusted at render time, so it needs to tell its own mentions apart. A port's
 * `mention()` returns a token holding a per-process random nonce, and the renderer turns only
 * tokens with that nonce back into a real mention, after escaping the rest.
 */
import { randomBytes } from 'node:crypto';

/** Hex only: Markdown conversion (`__`, `**`, `~~`) never touches it. */
const NONCE = randomBytes(12).toString('hex');
const OPEN = '\uE000';
const CLOSE = '\uE001';
/** `@` a user, `@@` a group (a Slack user group, a Discord role: HANDOFF_ESCALATE, the only group mention). */
const TOKEN = new RegExp(`${OPEN}${NONCE}(@@?)([A-Za-z0-9]{1,64})${CLOSE}`, 'g');
/** The marks of a token that is not ours (forged, or from an earlier process) are dropped. */
const MARKS = /[\uE000\uE001]/g;

/** The token a port's `mention()` returns for a platform user id. */
export function mentionToken(userId: string): string {
  if (!/^[A-Za-z0-9]{1,64}$/.test(userId)) throw new Error(`not a user id: ${userId.slice(0, 80)}`);
  return `${OPEN}${NONCE}@${userId}${CLOSE}`;
}

/** The token a port's `mentionGroup()` returns for a group id (escalation only). */
export function groupMentionToken(groupId: string): string {
  if (!/^[A-Za-z0-9]{1,64}$/.test(groupId)) throw new Error(`not a group id: ${groupId.slice(0, 80)}`);
  return `${OPEN}${NONCE}@@${groupId}${CLOSE}`;
}

/**
 * Replaces the bridge's mention tokens in already-escaped text with `render(id, group)` and drops
 * anything token-like that is not ours. Returns the ids mentioned (Discord lists them in allowed_mentions).
 */
export function restoreMentions(
  text: string,
  render: (id: string, group: boolean) => string,
): { text: string; users: string[]; groups: string[] } {
  if (!text.includes(OPEN) && !text.includes(CLOSE)) return { text, users: [], groups: [] };
  const users: string[] = [];
  const groups: string[] = [];
  const out = text
    .replace(TOKEN, (_m, kind: string, id: string) => {
      const list = kind === '@@' ? groups : users;
      if (!list.includes(id)) list.push(id);
      return render(id, kind === '@@');
    })
    .replace(MARKS, '');
  return { text: out, users, groups };
}
