/** Finding things in the Block Kit the bot posted (buttons by label), as a tester reads a message. */
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
