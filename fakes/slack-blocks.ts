/** Reading what the bot posted on Slack as a tester does: buttons by label, an answer spread over messages. */
import { spellsAnswer } from './answer-text';
import type { FakeMessage } from './fake-slack';

export interface ButtonElement {
  action_id: string;
  value?: string;
  text: { text: string };
}

export function buttons(msg: FakeMessage): ButtonElement[] {
  const out: ButtonElement[] = [];
  for (const b of msg.blocks as Array<{ type?: string; elements?: ButtonElement[] }>) {
    if (b.type === 'actions') out.push(...(b.elements ?? []));
  }
  return out;
}

export function button(msg: FakeMessage, label: RegExp | string): ButtonElement | undefined {
  return buttons(msg).find((b) => (typeof label === 'string' ? b.text.text === label : label.test(b.text.text)));
}

/** Compare an answer split over messages with the service's text, ignoring boundary whitespace only. */
export function sameAnswer(messages: FakeMessage[], answer: string): boolean {
  return spellsAnswer(
    messages.map((m) => shown(m.text)),
    answer,
  );
}

/**
 * What Slack displays for a message's text: its `&lt;` `&gt;` `&amp;` as the characters, and nothing
 * for a zero-width space (how the bridge breaks an untrusted link's syntax in markdown_text).
 */
export function shown(text: string): string {
  return text
    .replace(/\u200b/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
