import type pc from 'picocolors';

/** The colours markup is styled with (render.ts's palette; named here so markup needs nothing of render). */
type Palette = ReturnType<typeof pc.createColors>;

/**
 * Chat markup (the Markdown answers and notices are written in, and Slack-style `*bold*`) for a
 * terminal: styled with the palette when colours are on, plain words when they are off (a pipe), so
 * no `*asterisks*`, `[brackets](links)` or backticks reach the reader either way. Every pattern's
 * repeats are bounded, so a long line costs time in proportion to its length.
 */
export function renderMarkup(text: string, colors: Palette, styled: boolean): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      if (inFence) return styled ? colors.cyan(line) : line;
      return renderLine(line, colors, styled);
    })
    .join('\n');
}

function renderLine(line: string, c: Palette, styled: boolean): string {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return styled ? c.bold(c.underline(heading[1])) : heading[1].toUpperCase();
  // Inline code first: nothing inside it is markup.
  return line
    .replace(/^(\s*)[-*+]\s+/, '$1• ')
    .split(/(`[^`\n]{1,2000}`)/)
    .map((part, i) =>
      i % 2 === 1 ? (styled ? c.cyan(part.slice(1, -1)) : part.slice(1, -1)) : inline(part, c, styled),
    )
    .join('');
}

function inline(s: string, c: Palette, styled: boolean): string {
  return (
    s
      // [label](url): the label styled, the address kept readable after it.
      .replace(/\[([^\]\n]{1,500})\]\((https?:\/\/[^)\s]{1,2000})\)/g, (_m, label: string, url: string) =>
        styled ? `${c.underline(label)} ${c.dim(`(${url})`)}` : `${label} (${url})`,
      )
      // Slack's <url|label> as well.
      .replace(/<(https?:\/\/[^|>\s]{1,2000})\|([^>\n]{1,500})>/g, (_m, url: string, label: string) =>
        styled ? `${c.underline(label)} ${c.dim(`(${url})`)}` : `${label} (${url})`,
      )
      .replace(/\*\*([^*\n]{1,500})\*\*/g, (_m, t: string) => (styled ? c.bold(t) : t))
      .replace(/__([^_\n]{1,500})__/g, (_m, t: string) => (styled ? c.bold(t) : t))
      .replace(
        /(^|[\s(])\*([^*\s][^*\n]{0,500}?)\*(?=[\s).,:;!?]|$)/g,
        (_m, pre: string, t: string) => pre + (styled ? c.bold(t) : t),
      )
      .replace(
        /(^|[\s(])_([^_\s][^_\n]{0,500}?)_(?=[\s).,:;!?]|$)/g,
        (_m, pre: string, t: string) => pre + (styled ? c.italic(t) : t),
      )
      .replace(/~~([^~\n]{1,500})~~/g, (_m, t: string) => (styled ? c.strikethrough(t) : t))
  );
}
