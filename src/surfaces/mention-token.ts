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
const TOKEN = new RegExp(`${OPEN}${NONCE}@([A-Za-z0-9]{1,64})${CLOSE}`, 'g');
/** The marks of a token that is not ours (forged, or from an earlier process) are dropped. */
const MARKS = /[\uE000\uE001]/g;

/** The token a port's `mention()` returns for a platform user id. */
export function mentionToken(userId: string): string {
  if (!/^[A-Za-z0-9]{1,64}$/.test(userId)) throw new Error(`not a user id: ${userId.slice(0, 80)}`);
  return `${OPEN}${NONCE}@${userId}${CLOSE}`;
}

/**
 * Replaces the bridge's mention tokens in already-escaped text with `render(id)` and drops anything
 * token-like that is not ours. Returns the ids mentioned (Discord lists them in allowed_mentions).
 */
export function restoreMentions(text: string, render: (userId: string) => string): { text: string; users: string[] } {
  if (!text.includes(OPEN) && !text.includes(CLOSE)) return { text, users: [] };
  const users: string[] = [];
  const out = text
    .replace(TOKEN, (_m, id: string) => {
      if (!users.includes(id)) users.push(id);
      return render(id);
    })
    .replace(MARKS, '');
  return { text: out, users };
}
