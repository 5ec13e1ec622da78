/**
 * Markdown (what the service and core write) to Slack mrkdwn (what section blocks render). Only
 * blocks get this; a message's plain `text` is core's text escaped (safe-text.ts), not converted.
 */
import { escapeSlack, linkableUrl, unescapeSlack } from './safe-text';

/** Slack's three control characters must be escaped in mrkdwn. */
export const escapeMrkdwn = escapeSlack;

function convertLine(line: string): string {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return `*${heading[1]!.replace(/\*\*/g, '')}*`;
  let out = line
    // links first, so their brackets are not taken for anything else
    // (on escaped text: a URL that held `<`, `>` or `|` stays the Markdown it was, shown as text)
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (m, label: string, url: string) =>
      linkableUrl(unescapeSlack(url)) ? `<${url}|${label}>` : m,
    )
    .replace(/\*\*([^*\n]+)\*\*/g, '*$1*')
    .replace(/__([^_\n]+)__/g, '*$1*')
    .replace(/~~([^~\n]+)~~/g, '~$1~');
  out = out.replace(/^(\s*)[-*]\s+/, '$1• ');
  return out;
}

/** Convert Markdown to mrkdwn, leaving code fences and inline code alone (but escaped). */
export function markdownToMrkdwn(md: string): string {
  const lines = md.split('\n');
  let inFence = false;
  return lines
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return escapeMrkdwn(line);
      }
      if (inFence) return escapeMrkdwn(line);
      // Escape first, but keep the angle brackets we generate for links.
      const parts = line.split(/(`[^`]*`)/);
      return parts.map((part, i) => (i % 2 === 1 ? escapeMrkdwn(part) : convertLine(escapeMrkdwn(part)))).join('');
    })
    .join('\n');
}

/**
 * Split rendered mrkdwn into pieces of at most `max` characters, at a line or word boundary when
 * one is near, never inside an `&amp;`-style entity or a `<...>` link.
 */
export function chunkMrkdwn(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) cut = max;
    const amp = rest.lastIndexOf('&', cut - 1);
    if (amp >= 0 && amp > cut - 6 && rest.indexOf(';', amp) >= cut) cut = amp;
    const lt = rest.lastIndexOf('<', cut - 1);
    if (lt >= 0 && rest.indexOf('>', lt) >= cut && lt > 0) cut = lt;
    if (cut <= 0) cut = max;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest.length > 0 || out.length === 0) out.push(rest);
  return out;
}
