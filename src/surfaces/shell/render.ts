import pc from 'picocolors';
import type { Button, Card, OutMessage } from '../../core/surface';
import { withoutSpanMarks } from '../../core/text/untrusted';
import { renderMarkup } from './markup';

/** Colours only where the terminal supports them (picocolors checks NO_COLOR, FORCE_COLOR, TTY). */
export function palette(enabled: boolean) {
  return pc.createColors(enabled);
}
export type Palette = ReturnType<typeof palette>;

const TYPING_MARK = '▍';

/**
 * Text from the service, listings or users with terminal control sequences removed (ESC sequences:
 * CSI, OSC, DCS, ...; and C0/C1 control characters other than newline and tab), so an answer cannot
 * move the cursor, retitle the window, clear the screen or ring the bell. Applied before colouring.
 */
// biome-ignore-start lint/suspicious/noControlCharactersInRegex: matching control characters is this function's job
export function stripControl(text: string): string {
  return (
    text
      // OSC / DCS / SOS / PM / APC strings, ended by BEL or ST (ESC \), or left open
      .replace(/(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g, '')
      // CSI sequences (ESC [ or the 8-bit CSI)
      .replace(/(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g, '')
      // any other ESC sequence
      .replace(/\u001b[ -/]*[0-~]?/g, '')
      // remaining control characters (a lone CR could overwrite the line)
      .replace(/\r\n/g, '\n')
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
  );
}
// biome-ignore-end lint/suspicious/noControlCharactersInRegex: matching control characters is this function's job

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour (SGR) sequences start with the ESC control character
const COLOUR = /\u001b\[[0-9;]*m/g;

/**
 * The last line of defence before the terminal: every control sequence is stripped except colours
 * (the SGR sequences the palette writes), so text that reached a line unstripped (a form prompt with
 * a service value, an error's message, a usage line) still cannot move the cursor, retitle the
 * window or clear the screen. Sources strip their own text first (stripControl), colours included.
 */
export function terminalSafe(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(COLOUR)) {
    out += stripControl(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + stripControl(text.slice(last));
}

/** Listings as a readable table: one row per card, the card's fields as columns. */
export function renderCards(cards: Card[], colors: Palette): string {
  if (cards.length === 0) return '';
  if (cards.length === 1) return renderDetails(cards[0], colors);
  const labels: string[] = [];
  for (const card of cards) {
    for (const field of card.fields) if (!labels.includes(field.label)) labels.push(field.label);
  }
  const badges = cards.some((card) => card.badge);
  const header = ['#', 'Listing', ...(badges ? ['Status'] : []), ...labels];
  const rows = cards.map((card, index) => [
    String(index + 1),
    card.title,
    ...(badges ? [card.badge ?? ''] : []),
    ...labels.map((label) => card.fields.find((f) => f.label === label)?.value ?? ''),
  ]);
  const widths = header.map((h, col) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[col].length))));
  const fit = (value: string, width: number) =>
    value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
  const line = (cells: string[]) => cells.map((c, i) => fit(c.replace(/\s+/g, ' '), widths[i])).join('  ');
  const out = [colors.bold(line(header)), colors.dim(widths.map((w) => '─'.repeat(w)).join('  '))];
  for (const row of rows) out.push(line(row));
  const links = cards.map((card, index) => (card.url ? `  ${index + 1}. ${card.url}` : '')).filter((l) => l !== '');
  if (links.length > 0) out.push(colors.dim('Links:'), ...links.map((l) => colors.dim(l)));
  return out.join('\n');
}

function cleanCard(card: Card): Card {
  return {
    ...card,
    title: stripControl(card.title),
    ...(card.url ? { url: stripControl(card.url) } : {}),
    ...(card.footer ? { footer: stripControl(card.footer) } : {}),
    ...(card.badge ? { badge: stripControl(card.badge) } : {}),
    fields: card.fields.map((f) => ({ label: stripControl(f.label), value: stripControl(f.value) })),
    ...(card.photos ? { photos: card.photos.map(stripControl) } : {}),
  };
}

/** One card in full: every field on its own line (a table would cut the long ones). */
function renderDetails(card: Card, colors: Palette): string {
  const width = Math.min(16, Math.max(...card.fields.map((f) => f.label.length)));
  const out = [colors.bold(card.title) + (card.badge ? `  ${colors.inverse(` ${card.badge} `)}` : '')];
  for (const f of card.fields) {
    const [first, ...more] = f.value.split('\n');
    out.push(`${colors.dim(f.label.padEnd(width))}  ${first}`, ...more.map((line) => `${' '.repeat(width)}  ${line}`));
  }
  // A terminal shows no gallery: a detailed card's photos are their links.
  for (const [i, url] of (card.photos ?? []).entries())
    out.push(`${colors.dim((i === 0 ? 'Photos' : '').padEnd(width))}  ${url}`);
  if (card.url && !card.fields.some((f) => f.value === card.url)) out.push(colors.dim(card.url));
  if (card.footer) out.push(colors.dim(card.footer));
  return out.join('\n');
}

export function renderButtons(buttons: Button[], colors: Palette): string {
  return buttons
    .map((b, index) => colors.cyan(`[${index + 1}] ${stripControl(b.label)}`))
    .join('  ')
    .concat(colors.dim('   (press with /press <number>)'));
}

/**
 * The one place a message's text (the service's words included) becomes terminal output: its chat
 * markup styled on a terminal, plain words in a pipe.
 */
export function renderText(text: string, colors: Palette): string {
  return renderMarkup(text, colors, colors.isColorSupported);
}

/** Everything a message shows, as terminal lines (the text first). `savedFile`: where its file was written. */
export function renderMessage(msg: OutMessage, colors: Palette, opts: { typing: boolean; savedFile?: string }): string {
  const parts: string[] = [];
  // Untrusted spans (core/text/untrusted.ts) need no more here: a terminal has no masked links (a
  // Markdown link shows its URL) and no mentions; their marks go, the words are rendered with the rest.
  const text =
    renderText(withoutSpanMarks(stripControl(msg.text)), colors) +
    (opts.typing && msg.typing ? colors.dim(TYPING_MARK) : '');
  if (text !== '') parts.push(text);
  if (msg.cards && msg.cards.length > 0) parts.push(renderCards(msg.cards.map(cleanCard), colors));
  if (msg.notice) parts.push(colors.yellow(stripControl(msg.notice)));
  if (msg.file)
    parts.push(
      opts.savedFile
        ? `${stripControl(msg.file.title ?? 'File')} saved to ${colors.bold(opts.savedFile)}`
        : colors.dim(`(file: ${stripControl(msg.file.name)})`),
    );
  if (msg.buttons && msg.buttons.length > 0) parts.push(renderButtons(msg.buttons, colors));
  return parts.join('\n');
}
