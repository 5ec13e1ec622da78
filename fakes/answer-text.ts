/**
 * Whether texts (the bot's messages, in order), concatenated, are exactly `answer`: only whitespace
 * at the messages' boundaries may differ, as a relay trims where it splits.
 */
export function spellsAnswer(texts: readonly string[], answer: string): boolean {
  let pos = 0;
  for (const text of texts) {
    const t = text.trim();
    while (pos < answer.length && /\s/.test(answer[pos]!)) pos++;
    if (!answer.startsWith(t, pos)) return false;
    pos += t.length;
  }
  return answer.slice(pos).trim() === '';
}
