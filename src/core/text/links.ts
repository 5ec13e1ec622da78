/**
 * Links in the chatbot's answers, stated once. An answer can repeat a link it was told to repeat (a
 * question, a listing's description, a page the model read), and under the bot's name
 * `[Reset your Slack password](https://evil.example/reset)` is phishing, an image link a way out for
 * data. So a link shows under its label (or with a preview) only when its host is trusted: the hosts
 * of the chatbot's listings and LINK_HOSTS. Any other link, masked or bare, becomes an untrusted span
 * (untrusted.ts): every surface's renderer, in the one step that shows untrusted words as text, then
 * shows its URL as written (no masked link, no preview). Nothing here knows a platform.
 */
import type { StepMeter } from './steps';
import { shownAsText, type UntrustedText } from './untrusted';

/** Whether a link to `url` may show under its label. */
export type LinkTrust = (url: string) => boolean;

/** The longest URL judged (a longer one is not trusted) and the blanks allowed between `](` and it. */
const MAX_URL = 2048;
const MAX_GAP = 16;
const SPAN_MARKS = /[\uE002\uE003]/g;
/** Where a URL's host ends: the path, query or fragment (a backslash counts as a slash for browsers). */
const AUTHORITY = /^https?:\/\/([^/?#\\\s]*)([/?#\\])?/i;

/** A host name as LINK_HOSTS lists it: letters, digits, hyphens and dots (no scheme, port or path). */
export function isHostName(s: string): boolean {
  return s.length <= 253 && /^(?=[a-z0-9])[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/i.test(s);
}

/**
 * The host `url` goes to, lower case, or undefined for anything but a plain http(s) URL (credentials
 * in it, or a host the parser reads differently from how it is written, are never trusted).
 */
export function hostOf(url: string): string | undefined {
  const m = AUTHORITY.exec(url);
  if (!m || m[1]!.includes('@') || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  const written = URL.canParse(`https://${m[1]}`) ? new URL(`https://${m[1]}`).hostname : undefined;
  if (written !== parsed.hostname) return undefined;
  return parsed.hostname.toLowerCase().replace(/\.$/, '');
}

/** Trusts exactly the hosts named (case and a final dot aside). */
export function trustHosts(hosts: Iterable<string>): LinkTrust {
  const trusted = new Set([...hosts].map((h) => h.toLowerCase().replace(/\.$/, '')));
  return (url) => {
    const host = hostOf(url);
    return host !== undefined && trusted.has(host);
  };
}

/** One scan of an answer's text. */
interface Scan {
  s: string;
  trusts: LinkTrust;
  /** The text may still grow: a URL at its very end counts only once its host is seen to end. */
  open: boolean;
  meter?: StepMeter;
}

/** `url` is trusted and whole (at the end of an open text, its host must be seen to end). */
function trustedUrl(scan: Scan, url: string, end: number): boolean {
  // Parsing a URL is linear in its length.
  scan.meter?.add(url.length);
  if (url.length > MAX_URL) return false;
  const m = AUTHORITY.exec(url);
  if (!m || (scan.open && end === scan.s.length && m[2] === undefined)) return false;
  return scan.trusts(url);
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

/** Where a bare URL (or a link's target) that starts at `from` ends: a blank or a character that closes it. */
function urlEnd(scan: Scan, from: number): number {
  const { s } = scan;
  let k = from;
  while (k < s.length && k - from <= MAX_URL && !isBlank(s[k]) && !'<>)|]`"'.includes(s[k]!)) k++;
  scan.meter?.add(k - from + 1);
  return k;
}

interface Target {
  url: string;
  /** Where the target (with its closing `>` when it was written `<url>`) ends. */
  end: number;
}

/** A link target after `](` or `]:` at `from`: blanks, an optional `<`, the URL. */
function targetAt(scan: Scan, from: number): Target {
  const { s } = scan;
  let k = from;
  while (k < s.length && k - from < MAX_GAP && (s[k] === ' ' || s[k] === '\t')) k++;
  const angled = s[k] === '<';
  if (angled) k++;
  scan.meter?.add(k - from);
  const end = urlEnd(scan, k);
  return { url: s.slice(k, end), end: angled && s[end] === '>' ? end + 1 : end };
}

/** A span to show as text, or none; and where the scan goes on. */
interface Step {
  span?: [number, number];
  next: number;
}

/**
 * Whether a reference definition's target at `from` is a link (`<url>`, `//host`, `scheme:`), not
 * words (`Note[1]: the price`). A scanner: it looks at no more than 16 blanks and a 22-character scheme.
 */
function referenceTargetAt(scan: Scan, from: number): boolean {
  const { s } = scan;
  let k = from;
  while (k < s.length && k - from < MAX_GAP && (s[k] === ' ' || s[k] === '\t')) k++;
  const first = s[k];
  if (first === '<' || (first === '/' && s[k + 1] === '/')) return true;
  let j = k;
  while (j < s.length && j - k <= 21 && /[a-z0-9+.-]/i.test(s[j]!)) j++;
  scan.meter?.add(j - from + 1);
  return j > k && /[a-z]/i.test(first ?? '') && s[j] === ':';
}

/** `](` (a masked link or image) or `]:` (a reference definition) at `i`: text unless its target is trusted. */
function linkSyntaxAt(scan: Scan, i: number): Step | undefined {
  const c = scan.s[i + 1];
  if (c !== '(' && c !== ':') return undefined;
  // `Note[1]: the price` is no reference to a link: only a target that looks like one counts.
  if (c === ':' && !referenceTargetAt(scan, i + 2)) return { next: i + 1 };
  const t = targetAt(scan, i + 2);
  const next = Math.max(t.end, i + 2);
  return trustedUrl(scan, t.url, t.end) ? { next } : { span: [i, next], next };
}

/** A bare `http(s)://` URL at `i`: text unless trusted (`<url>` around it goes with it). */
function bareUrlAt(scan: Scan, i: number): Step | undefined {
  const { s } = scan;
  scan.meter?.add(8);
  if (!/^https?:\/\//i.test(s.slice(i, i + 8))) return undefined;
  const end = urlEnd(scan, i);
  if (trustedUrl(scan, s.slice(i, end), end)) return { next: end };
  const wrapped = s[i - 1] === '<' && s[end] === '>';
  return { span: wrapped ? [i - 1, end + 1] : [i, end], next: wrapped ? end + 1 : end };
}

/**
 * The chatbot's `text` with every link that may not show under its label turned into an untrusted
 * span: masked links and images (`[label](url)`, `[label](<url>)`), reference definitions
 * (`[ref]: url`) and bare URLs whose host `trusts` does not vouch for. `open`: the text is a prefix
 * that may still grow (a streaming answer), so a URL at its very end counts only once its host is
 * seen to end. One pass, linear in the text's length (counted by `meter`).
 */
export function linksInSight(
  text: string,
  trusts: LinkTrust,
  opts: { open?: boolean; meter?: StepMeter } = {},
): string {
  // The answer's words never carry the bridge's span marks (one could end a span early).
  const s = text.replace(SPAN_MARKS, '');
  const scan: Scan = { s, trusts, open: opts.open === true, ...(opts.meter ? { meter: opts.meter } : {}) };
  let out = '';
  let emitted = 0;
  let i = 0;
  while (i < s.length) {
    scan.meter?.add(1);
    const c = s[i];
    const step = c === ']' ? linkSyntaxAt(scan, i) : c === 'h' || c === 'H' ? bareUrlAt(scan, i) : undefined;
    if (!step) {
      i++;
      continue;
    }
    if (step.span) {
      const from = Math.max(step.span[0], emitted);
      const to = step.span[1];
      out += s.slice(emitted, from) + shownAsText(s.slice(from, to) as UntrustedText);
      emitted = to;
    }
    i = step.next;
  }
  return out + s.slice(emitted);
}
