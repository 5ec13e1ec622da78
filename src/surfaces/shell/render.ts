import pc from 'picocolors';
import type { Button, Card, OutMessage } from '../../core/surface';

/** Colours only where the terminal supports them (picocolors checks NO_COLOR, FORCE_COLOR, TTY). */
export function palette(enabled: boolean) {
  return pc.createColors(enabled);
}
export type Palette = ReturnType<typeof palette>;

const TYPING_MARK = '▍';

/** Listings as a readable table: one row per card, the card's fields as columns. */
export function renderCards(cards: Card[], colors: Palette): string {
  if (cards.length === 0) return '';
  const labels: string[] = [];
  for (const card of cards) {
    for (const field of card.fields) if (!labels.includes(field.label)) labels.push(field.label);
  }
  const header = ['#', 'Listing', ...labels];
  const rows = cards.map((card, index) => [
    String(index + 1),
    card.title,
    ...labels.map((label) => card.fields.find((f) => f.label === label)?.value ?? ''),
  ]);
  const widths = header.map((h, col) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[col].length))));
  const fit = (value: string, width: number) =>
    value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
  const line = (cells: string[]) => cells.map((c, i) => fit(c.replace(/\s+/g, ' '), widths[i])).join('  ');
  const out = [colors.bold(line(header)), colors.dim(widths.map((w) => '─'.repeat(w)).join('  '))];
  for (const row of rows) out.push(line(row));
  const links = cards
    .map((card, index) => (card.url ? `  ${index + 1}. ${card.url}` : ''))
    .filter((l) => l !== '');
  if (links.length > 0) out.push(colors.dim('Links:'), ...links.map((l) => colors.dim(l)));
  return out.join('\n');
}

export function renderButtons(buttons: Button[], colors: Palette): string {
  return buttons
    .map((b, index) => colors.cyan(`[${index + 1}] ${b.label}`))
    .join('  ')
    .concat(colors.dim('   (press with /press <number>)'));
}

/** Everything a message shows, as terminal lines (the text first, exactly as sent). */
export function renderMessage(msg: OutMessage, colors: Palette, opts: { typing: boolean }): string {
  const parts: string[] = [];
  const text = msg.text + (opts.typing && msg.typing ? colors.dim(TYPING_MARK) : '');
  if (text !== '') parts.push(text);
  if (msg.cards && msg.cards.length > 0) parts.push(renderCards(msg.cards, colors));
  if (msg.notice) parts.push(colors.yellow(msg.notice));
  if (msg.file) parts.push(colors.dim(`(file: ${msg.file.name})`));
  if (msg.buttons && msg.buttons.length > 0) parts.push(renderButtons(msg.buttons, colors));
  return parts.join('\n');
}
