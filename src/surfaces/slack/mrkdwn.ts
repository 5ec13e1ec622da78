/**
 * Markdown (what the service and core write) to Slack mrkdwn (what section blocks render). Only
 * blocks get this; a message's plain `text` is core's text escaped (safe-text.ts), not converted.
 * Untrusted spans (core/text/untrusted.ts) are escaped and never converted: a user's
 * `[label](url)` stays those characters, its URL visible. Every step is linear in the text's length
 * (hand-written scanners, no backtracking pattern on the text).
 */
import type { StepMeter } from '../../core/text/steps';
import { textSpans, type TextSpan } from '../../core/text/untrusted';
import { escapeSlack, linkableUrl, unescapeSlack } from './safe-text';

/** Slack's three control characters must be escaped in mrkdwn. */
export const escapeMrkdwn = escapeSlack;

/** Where a link's URL that starts at `from` ends (index of its `)`), or -1; linear with `noClose`. */
function urlEnd(s: string, from: number, scan: { noCloseBefore: number }, meter?: StepMeter): number {
  if (!/^https?:\/\//.test(s.slice(from, from + 8))) return -1;
  // An earlier scan saw no `)` before a space or the end from here on: neither will this one.
  if (from < scan.noCloseBefore) return -1;
  for (let k = from; k < s.length; k++) {
    meter?.add(1);
    const c = s[k]!;
    if (c === ')') return k > from ? k : -1;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      scan.noCloseBefore = k;
      return -1;
    }
  }
  scan.noCloseBefore = s.length;
  return -1;
}

/**
 * `[label](https://url)` to `<url|label>` in one left-to-right pass (a label holds no `]` and no
 * new line, as before; a URL that may not be a Slack link stays the Markdown it was, as text).
 */
export function convertLinks(s: string, meter?: StepMeter): string {
  let out = '';
  let emitted = 0;
  let open = -1;
  const scan = { noCloseBefore: -1 };
  for (let j = 0; j < s.length; j++) {
    meter?.add(1);
    const c = s[j];
    if (c === '[') {
      if (open < 0) open = j;
    } else if (c === '\n') {
      open = -1;
    } else if (c === ']') {
      if (open >= 0 && j > open + 1 && s[j + 1] === '(') {
        const end = urlEnd(s, j + 2, scan, meter);
        if (end > 0) {
          const url = s.slice(j + 2, end);
          if (linkableUrl(unescapeSlack(url))) {
            out += `${s.slice(emitted, open)}<${url}|${s.slice(open + 1, j)}>`;
            emitted = end + 1;
          }
          j = end;
        }
      }
      open = -1;
    }
  }
  return out + s.slice(emitted);
}

/** `**x**` to `*x*` and the like: the marker pairs on one line, content without the marker. */
function convertEmphasis(s: string, marker: string, to: string): string {
  const parts = s.split(marker);
  if (parts.length < 3) return s;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i++) {
    const inner = parts[i]!;
    // A pair closes at the next marker when the content is not empty and holds no marker char.
    if (i + 1 < parts.length && inner.length > 0 && !inner.includes(marker[0]!)) {
      out += `${to}${inner}${to}${parts[i + 1]!}`;
      i++;
    } else out += `${marker}${inner}`;
  }
  return out;
}

function convertPart(part: string, lineStart: boolean, meter?: StepMeter): string {
  if (lineStart) {
    const heading = /^#{1,6}[ \t]/.exec(part);
    if (heading) return `*${part.slice(heading[0].length).trimStart().split('**').join('')}*`;
  }
  meter?.add(part.length * 3);
  let out = convertEmphasis(
    convertEmphasis(convertEmphasis(convertLinks(part, meter), '**', '*'), '__', '*'),
    '~~',
    '~',
  );
  if (lineStart) out = out.replace(/^([ \t]{0,40})[-*][ \t]+/, '$1• ');
  return out;
}

/** A bridge-written part of a line: inline code escaped as is, the rest converted. */
function convertTrusted(part: string, lineStart: boolean, meter?: StepMeter): string {
  const pieces = part.split('`');
  let out = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    // Odd pieces are inside a `code` span when it is closed on this line.
    const inCode = i % 2 === 1 && i < pieces.length - 1;
    if (inCode) out += `\`${escapeMrkdwn(piece)}\``;
    else {
      const tick = i % 2 === 1 ? '`' : '';
      out += tick + convertPart(escapeMrkdwn(piece), lineStart && i === 0, meter);
    }
  }
  return out;
}

/** The text's lines, each as its spans (a span may run over several lines). */
function lines(md: string): TextSpan[][] {
  const out: TextSpan[][] = [[]];
  for (const span of textSpans(md)) {
    const pieces = span.text.split('\n');
    pieces.forEach((text, i) => {
      if (i > 0) out.push([]);
      if (text.length > 0) out[out.length - 1]!.push({ text, untrusted: span.untrusted });
    });
  }
  return out;
}

/** Convert Markdown to mrkdwn, leaving code fences, inline code and untrusted spans alone (but escaped). */
export function markdownToMrkdwn(md: string, meter?: StepMeter): string {
  let inFence = false;
  return lines(md)
    .map((spans) => {
      const first = spans[0];
      if (first && !first.untrusted && /^[ \t]*```/.test(first.text)) {
        inFence = !inFence;
        return spans.map((s) => escapeMrkdwn(s.text)).join('');
      }
      if (inFence) return spans.map((s) => escapeMrkdwn(s.text)).join('');
      return spans
        .map((s, i) => (s.untrusted ? escapeMrkdwn(s.text) : convertTrusted(s.text, i === 0, meter)))
        .join('');
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
