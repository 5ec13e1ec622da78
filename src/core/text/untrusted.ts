/**
 * Text that knows where it came from. What users, relays, listings, settings and the service's error
 * messages say is `UntrustedText`: it may be shown, never obeyed. When core puts such text into a
 * message it also writes Markdown in (a quoted question, a ticket, a relay), it wraps it with
 * `shownAsText`: the words travel between two private-use marks, and every surface's renderer shows
 * what is between them as text (no masked link, no mention, no link preview), while the bridge's
 * own Markdown around it keeps working. Only text the bridge builds may carry live mentions (see
 * surfaces/mention-token.ts) or links.
 */

declare const untrustedBrand: unique symbol;
/** Words the bridge did not write. A plain string is not one: make it with `untrusted`. */
export type UntrustedText = string & { readonly [untrustedBrand]: true };

const OPEN = '\uE002';
const CLOSE = '\uE003';
/** The marks around an untrusted span (for code that cuts a text already marked: close what it cut open). */
export const SPAN_OPEN = OPEN;
export const SPAN_CLOSE = CLOSE;
/** The bridge's marks (mention tokens \uE000-\uE001 and spans \uE002-\uE003): never from outside. */
const MARKS = /[\uE000-\uE003]/g;

/**
 * Marks `raw` as untrusted, dropping anything that could pass for the bridge's own marks, cut to
 * `max` characters when given (the platform's own maximum for incoming text).
 */
export function untrusted(raw: string, max?: number): UntrustedText {
  const cut = max !== undefined && raw.length > max ? raw.slice(0, max) : raw;
  return cut.replace(MARKS, '') as UntrustedText;
}

/** Untrusted words inside a message core writes in Markdown: every surface shows them as text. */
export function shownAsText(text: UntrustedText): string {
  // Marks dropped again: a string cast to the brand elsewhere cannot close the span early.
  return `${OPEN}${text.replace(MARKS, '')}${CLOSE}`;
}

export interface TextSpan {
  text: string;
  /** Between `shownAsText`'s marks: to be escaped as text, never rendered as markup. */
  untrusted: boolean;
}

/**
 * A message's text as the bridge's parts and untrusted spans, in order, marks removed (one pass,
 * linear). A span left open runs to the end; a stray close mark is dropped.
 */
export function textSpans(text: string): TextSpan[] {
  if (!text.includes(OPEN) && !text.includes(CLOSE)) return [{ text, untrusted: false }];
  const out: TextSpan[] = [];
  let inside = false;
  let start = 0;
  const push = (end: number): void => {
    if (end > start) out.push({ text: text.slice(start, end), untrusted: inside });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== OPEN && c !== CLOSE) continue;
    push(i);
    start = i + 1;
    inside = c === OPEN;
  }
  push(text.length);
  return out;
}

/** The text with the span marks removed: for outputs that show everything as text anyway. */
export function withoutSpanMarks(text: string): string {
  return text.includes(OPEN) || text.includes(CLOSE) ? text.replace(/[\uE002\uE003]/g, '') : text;
}
