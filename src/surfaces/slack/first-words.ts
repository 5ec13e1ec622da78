/**
 * An answer's first message on the chat.update path waits briefly for the answer's first words, so
 * that it goes up showing them instead of an empty placeholder. The post costs the channel's post
 * budget, not the workspace's chat.update budget: text it carries is a partial the reader sees for
 * free, where an interim edit would take a token the answers in flight need for their finals (30
 * answers at once in a workspace could afford one edit for only half of them). The wait is short
 * and bounded: the user still sees the bot is on it within a moment.
 */
import type { OutMessage } from '../../core/surface';

/** Longest an answer's first message waits for its first words. */
export const FIRST_WORDS_WAIT_MS = 500;
/** How often the message's latest version is looked at while it waits (a read of relay state). */
const LOOK_EVERY_MS = 20;

/** True for an empty streaming message whose later versions the caller can hand over (`latest`). */
export function awaitsFirstWords(msg: OutMessage, latest: (() => OutMessage) | undefined): boolean {
  return latest !== undefined && msg.typing === true && msg.text.length === 0 && (msg.cards?.length ?? 0) === 0;
}

/** Resolves once `latest()` shows text or is no longer streaming, or after `maxMs`. */
export async function firstWords(latest: () => OutMessage, maxMs = FIRST_WORDS_WAIT_MS): Promise<void> {
  const until = Date.now() + maxMs;
  for (;;) {
    const now = latest();
    if (now.text.length > 0 || !now.typing || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(LOOK_EVERY_MS, until - Date.now())));
  }
}
