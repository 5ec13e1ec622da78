/**
 * Links in the chatbot's answers, stated once. An answer can repeat a link it was told to repeat (a
 * question, a listing's description, a page the model read), and under the bot's name
 * `[Reset your Slack password](https://evil.example/reset)` is phishing, an image link a way out for
 * data. So a link shows under its label (or with a preview) only when its host is trusted: the hosts
 * of the chatbot's listings and LINK_HOSTS. Any other link, masked or bare, becomes an untrusted span
 * (untrusted.ts): every surface's renderer, in the one step that shows untrusted words as text, then
 * shows its URL as written (no masked link, no preview). Nothing here knows a platform.
 */
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

/** `url` is trusted and whole: with `open` (more text may follow), its host must be seen to end. */
function trustedUrl(url: string, trusts: LinkTrust, mayGrow: boolean): boolean {
  if (url.length > MAX_URL) return false;
  const m = AUTHORITY.exec(url);
  if (!m || (mayGrow && m[2] === undefined)) return false;
  return trusts(url);
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

/** Where a bare URL (or a link's target) that starts at `from` ends: a blank or a character that closes it. */
function urlEnd(s: string, from: number): number {
  let k = from;
  while (k < s.length && k - from <= MAX_URL && !isBlank(s[k]) && !'<>)|]`"'.includes(s[k]!)) k++;
  return k;
}

interface Target {
  url: string;
  /** Where the target (with its closing `>` when it was written `<url>`) ends. */
  end: number;
}

/** A link target after `](` or `]:` at `from`: blanks, an optional `<`, the URL. */
function targetAt(s: string, from: number): Target {
  let k = from;
  while (k < s.length && k - from < MAX_GAP && (s[k] === ' ' || s[k] === '\t')) k++;
  const angled = s[k] === '<';
  if (angled) k++;
  const end = urlEnd(s, k);
  return { url: s.slice(k, end), end: angled && s[end] === '>' ? end + 1 : end };
}

/** A span to show as text, or none; and where the scan goes on. */
interface Step {
  span?: [number, number];
  next: number;
}

/** `](` (a masked link or image) or `]:` (a reference definition) at `i`: text unless its target is trusted. */
function linkSyntaxAt(s: string, i: number, trusts: LinkTrust, open: boolean): Step | undefined {
  const c = s[i + 1];
  if (c !== '(' && c !== ':') return undefined;
  const t = targetAt(s, i + 2);
  // `Note[1]: the price` is no reference to a link: only a target that looks like one counts.
  if (c === ':' && !/^(<|\/\/|[a-z][a-z0-9+.-]{0,20}:)/i.test(s.slice(i + 2, i + 2 + MAX_GAP + 24).trimStart()))
    return { next: i + 1 };
  if (trustedUrl(t.url, trusts, open && t.end === s.length)) return { next: Math.max(t.end, i + 2) };
  return { span: [i, Math.max(t.end, i + 2)], next: Math.max(t.end, i + 2) };
}

/** A bare `http(s)://` URL at `i`: text unless trusted (`<url>` around it goes with it). */
function bareUrlAt(s: string, i: number, trusts: LinkTrust, open: boolean): Step | undefined {
  if (!/^https?:\/\//i.test(s.slice(i, i + 8))) return undefined;
  const end = urlEnd(s, i);
  if (trustedUrl(s.slice(i, end), trusts, open && end === s.length)) return { next: end };
  const wrapped = s[i - 1] === '<' && s[end] === '>';
  return { span: wrapped ? [i - 1, end + 1] : [i, end], next: wrapped ? end + 1 : end };
}

/**
 * The chatbot's `text` with every link that may not show under its label turned into an untrusted
 * span: masked links and images (`[label](url)`, `[label](<url>)`), reference definitions
 * (`[ref]: url`) and bare URLs whose host `trusts` does not vouch for. `open`: the text is a prefix
 * that may still grow (a streaming answer), so a URL at its very end counts only once its host is
 * seen to end. One pass, linear in the text's length.
 */
export function linksInSight(text: string, trusts: LinkTrust, opts: { open?: boolean } = {}): string {
  // The answer's words never carry the bridge's span marks (one could end a span early).
  const s = text.replace(SPAN_MARKS, '');
  const open = opts.open === true;
  let out = '';
  let emitted = 0;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    const step =
      c === ']' ? linkSyntaxAt(s, i, trusts, open) : c === 'h' || c === 'H' ? bareUrlAt(s, i, trusts, open) : undefined;
    if (!step) {
      i++;
      continue;
    }
    if (step.span) {
      const [at, to] = step.span;
      const from = Math.max(at, emitted);
      out += s.slice(emitted, from) + shownAsText(s.slice(from, to) as UntrustedText);
      emitted = to;
    }
    i = step.next;
  }
  return out + s.slice(emitted);
}
