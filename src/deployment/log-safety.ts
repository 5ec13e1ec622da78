/**
 * No secret reaches a log line, at any depth. Every logger the app uses is a child of the one made
 * safe here: its `formatters.log` hook rewrites each logged object before pino serialises it.
 * - Errors become plain objects with a short list of fields (message, stack, code, status, URL, cause,
 *   `original`, ...): an SDK error's request config, headers and body (which carry
 *   `Authorization: Bearer xoxb-…`, a chatbot key or the message itself) are never walked.
 * - Values under secret-looking keys (authorization, token, secret, apiKey, ...) are replaced.
 * - Every string is scrubbed of the configured secret values and of token shapes (Slack `xox?-`,
 *   `xapp-`, `Bearer …`/`Bot …` credentials, Discord bot tokens, interaction and webhook tokens in
 *   URL paths), so a token quoted in a message or a URL is caught too.
 */
import type { Logger } from 'pino';
import { SECRET_FIELDS } from './secrets';

const CENSOR = '***';
const MAX_DEPTH = 8;
const MAX_ITEMS = 50;

/** Secret-looking field names: the shapes of any credential's name, and every name of secrets.ts's list. */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|token|access_token|refresh_token|password|passwd|.*secret.*|.*api_?key|sessionkey|.*token)$/i;
const SECRET_FIELD_NAMES = new Set(SECRET_FIELDS);
const isSecretField = (key: string) => SECRET_KEY.test(key) || SECRET_FIELD_NAMES.has(key);

/** Token shapes caught even when the value is not one configured here (another workspace's, a rotated one). */
const TOKEN_SHAPES: Array<[RegExp, string]> = [
  [/xox[a-z]-[A-Za-z0-9-]+/g, `xox?-${CENSOR}`],
  [/xapp-[A-Za-z0-9-]+/g, `xapp-${CENSOR}`],
  [/\b(Bearer|Bot|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${CENSOR}`],
  [/\/(webhooks|interactions|callback)\/(\d+)\/[^/?#\s"']+/gi, `/$1/$2/${CENSOR}`],
  [/[A-Za-z\d_-]{23,28}\.[A-Za-z\d_-]{6,7}\.[A-Za-z\d_-]{27,}/g, CENSOR],
];

/** Fields of an error worth logging; everything else (config, request, headers, body) is dropped. */
const ERROR_FIELDS = [
  'code',
  'errno',
  'syscall',
  'status',
  'statusCode',
  'method',
  'url',
  'retryAfter',
  'data',
  'rawError',
  'original',
  'cause',
  'errors',
];

/** How many tenants' keys the scrubber holds at most (the least recently used go first). */
export const MAX_LEARNED_SECRETS = 1000;

/**
 * The secret values scrubbed from log lines: the deployment's own (secrets.ts's list, for the
 * process's life) and the keys tenants connected (`learn`), which are many and come and go, so a
 * bounded number is kept: the least recently learned or seen go first.
 */
export class SecretScrubber {
  private readonly fixed = new Set<string>();
  /** Insertion order is recency: a learned or matched secret is moved to the end. */
  private readonly learned = new Map<string, true>();

  constructor(
    secrets: Iterable<string | undefined> = [],
    private readonly maxLearned = MAX_LEARNED_SECRETS,
  ) {
    this.add(...secrets);
  }

  /** The deployment's own secrets, kept for good (short ones, under 6 characters, would censor ordinary words: skipped). */
  add(...secrets: Array<string | undefined>): void {
    for (const s of secrets) if (s && s.length >= 6) this.fixed.add(s);
  }

  /**
   * A tenant's keys, once they passed the live check (never a string someone merely typed): kept
   * among the `maxLearned` most recent.
   */
  learn(...secrets: Array<string | undefined>): void {
    for (const s of secrets) {
      if (!s || s.length < 6 || this.fixed.has(s)) continue;
      this.learned.delete(s);
      this.learned.set(s, true);
    }
    for (const oldest of this.learned.keys()) {
      if (this.learned.size <= this.maxLearned) break;
      this.learned.delete(oldest);
    }
  }

  /** How many tenant keys are held (the bound's test reads it). */
  get learnedCount(): number {
    return this.learned.size;
  }

  text(s: string): string {
    let out = s;
    for (const secret of this.fixed) if (out.includes(secret)) out = out.split(secret).join(CENSOR);
    const seen: string[] = [];
    for (const secret of this.learned.keys()) {
      if (!out.includes(secret)) continue;
      out = out.split(secret).join(CENSOR);
      seen.push(secret);
    }
    // A key still in use stays: seen now, it is the most recent.
    for (const secret of seen) {
      this.learned.delete(secret);
      this.learned.set(secret, true);
    }
    for (const [shape, replacement] of TOKEN_SHAPES) out = out.replace(shape, replacement);
    return out;
  }

  /** A copy of `value` safe to log. */
  value(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[…]';
    seen.add(value);
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
    if (value instanceof Error) return this.error(value, depth, seen);
    if (value instanceof Date) return value.toISOString();
    if (value instanceof URL) return this.text(value.toString());
    if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => this.value(v, depth + 1, seen));
    if (value instanceof Map) return this.object(Object.fromEntries(value), depth, seen);
    return this.object(value as Record<string, unknown>, depth, seen);
  }

  private object(obj: Record<string, unknown>, depth: number, seen: WeakSet<object>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const key of Object.keys(obj)) {
      if (n++ >= MAX_ITEMS) break;
      const v = obj[key];
      out[key] =
        isSecretField(key) && v !== undefined && v !== null && typeof v !== 'boolean' && typeof v !== 'number'
          ? CENSOR
          : this.value(v, depth + 1, seen);
    }
    return out;
  }

  private error(err: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
    const out: Record<string, unknown> = {
      type: err.name || err.constructor?.name || 'Error',
      message: this.text(String(err.message ?? '')),
    };
    if (err.stack) out.stack = this.text(err.stack);
    const fields = err as unknown as Record<string, unknown>;
    for (const key of ERROR_FIELDS) {
      if (fields[key] !== undefined) out[key] = this.value(fields[key], depth + 1, seen);
    }
    return out;
  }
}

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * `base` made safe (children inherit it): the one way the app logs, whoever made `base` (the app's
 * factory, or a test's pino writing to a buffer). Every output path of a line is covered:
 * - the merging object, through pino's `formatters.log` (errors reduced, secret keys censored);
 * - the message string and its interpolation values (`log.info('x %s', secret)`), and an error's
 *   message when it stands for the message (`log.warn(err)`);
 * - child bindings and a child's message prefix (`log.child({ token })`), at every depth, since
 *   every child is made safe the same way.
 * A Proxy rather than patched methods: pino reassigns its level methods when the level changes.
 */
export function safeLogger(base: Logger, scrubber: SecretScrubber): Logger {
  return guard(
    base.child(
      {},
      {
        formatters: {
          log: (obj: object) => scrubber.value(obj) as object,
        },
      },
    ),
    scrubber,
  );
}

function guard(logger: Logger, scrubber: SecretScrubber): Logger {
  return new Proxy(logger, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && LEVELS.has(prop)) {
        const method = Reflect.get(target, prop, target) as (...args: unknown[]) => void;
        return (...args: unknown[]) => method.apply(target, safeArgs(args, scrubber));
      }
      if (prop === 'child') {
        return (bindings: object, options?: { msgPrefix?: string }) => {
          const opts = options?.msgPrefix ? { ...options, msgPrefix: scrubber.text(options.msgPrefix) } : options;
          return guard(target.child(scrubber.value(bindings) as object, opts), scrubber);
        };
      }
      if (prop === 'setBindings') return (bindings: object) => target.setBindings(scrubber.value(bindings) as object);
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A log call's arguments with every string and interpolation value scrubbed (the object is the formatter's). */
function safeArgs(args: unknown[], scrubber: SecretScrubber): unknown[] {
  const [first, ...rest] = args;
  const tail = rest.map((a) => (typeof a === 'string' ? scrubber.text(a) : scrubber.value(a)));
  if (typeof first === 'string') return [scrubber.text(first), ...tail];
  // pino takes an error's message (`log.warn(err)`, `log.error({ err })`) as the line's message when
  // none is given, before any formatter runs: given here, scrubbed.
  if (typeof rest[0] !== 'string' && first !== null && typeof first === 'object') {
    const err = first instanceof Error ? first : (first as { err?: unknown }).err;
    if (err instanceof Error && !('msg' in first)) return [first, scrubber.text(err.message), ...tail];
  }
  return [first, ...tail];
}
