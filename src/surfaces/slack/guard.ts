/**
 * A gate in front of Bolt's HTTP request listener. Bolt verifies signatures well but trusts the
 * shape of what it then parses: a signed `null` body or `payload=null` makes it throw deep inside
 * and answer 500 (or worse). The gate buffers the body (Bolt reuses `rawBody`), lets Bolt refuse bad
 * signatures with 401 as usual, and answers 400 for signed bodies no schema accepts, or 200 for
 * well-formed payloads of kinds the bridge does not handle.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { isValidSlackRequest } from '@slack/bolt';
import type { Logger } from 'pino';
import type { ZodTypeAny } from 'zod';
import {
  blockActionsSchema,
  eventEnvelopeSchema,
  slashCommandSchema,
  urlVerificationSchema,
  viewSubmissionSchema,
} from './payloads';

const MAX_BODY_BYTES = 1_000_000;
/** Requests signed further from now than this are replays (or a broken clock): refused. */
const MAX_CLOCK_SKEW_S = 5 * 60;
const FORM = 'application/x-www-form-urlencoded';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Why the gate stopped a request, or 'pass' to hand it to Bolt. */
export type Verdict = 'pass' | 'bad' | 'ignore';

export interface GateRules {
  /** Slash commands the app registers (with the slash). */
  commands: readonly string[];
  /** action_id prefix of the bridge's buttons. */
  actionPrefix: string;
  /** callback_id prefix of the bridge's modals. */
  viewPrefix: string;
}

function check(schema: ZodTypeAny, value: unknown): boolean {
  return schema.safeParse(value).success;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Decide from a verified body what to do with it. Exported for unit tests. */
export function judgeBody(contentType: string, raw: string, rules: GateRules): Verdict {
  let body: unknown;
  try {
    if (contentType === FORM) {
      const form = parseQuery(raw);
      if ('payload' in form) {
        if (typeof form.payload !== 'string') return 'bad';
        body = JSON.parse(form.payload);
      } else {
        if (form.ssl_check === '1') return 'ignore';
        if (!check(slashCommandSchema, form)) return 'bad';
        return rules.commands.includes(String(form.command)) ? 'pass' : 'ignore';
      }
    } else {
      body = JSON.parse(raw);
    }
  } catch {
    return 'bad';
  }
  if (!isObject(body) || typeof body.type !== 'string') return 'bad';
  switch (body.type) {
    case 'url_verification':
      return check(urlVerificationSchema, body) ? 'pass' : 'bad';
    case 'event_callback': {
      if (!check(eventEnvelopeSchema, body)) return 'bad';
      return 'pass';
    }
    case 'block_actions': {
      const parsed = blockActionsSchema.safeParse(body);
      if (!parsed.success) return 'bad';
      return parsed.data.actions.some((a) => a.action_id.startsWith(rules.actionPrefix)) ? 'pass' : 'ignore';
    }
    case 'view_submission': {
      const parsed = viewSubmissionSchema.safeParse(body);
      if (!parsed.success) return 'bad';
      return parsed.data.view.callback_id.startsWith(rules.viewPrefix) ? 'pass' : 'ignore';
    }
    default:
      // Shortcuts, view_closed, app_rate_limited ...: well formed, nothing for the bridge to do.
      return 'ignore';
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | undefined): void => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Answered 413 at once (with Connection: close); Node discards the rest of the body.
        chunks.length = 0;
        finish(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(Buffer.concat(chunks)));
    req.on('error', () => finish(undefined));
    req.on('close', () => finish(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
  });
}

function answer(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status);
  res.end();
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

export function guardRequestListener(
  inner: RequestListener,
  opts: { signingSecret: string; rules: GateRules; log: Logger; path?: string },
): RequestListener {
  const path = opts.path ?? '/slack/events';
  return (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== path) return answer(res, 404);
      if (req.method !== 'POST') return answer(res, 405);
      const raw = await readBody(req);
      if (raw === undefined) {
        res.setHeader('connection', 'close');
        return answer(res, 413);
      }
      // Slack sends exactly this type; a charset suffix would make Bolt JSON.parse a form body.
      const ct = (header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (ct === FORM) req.headers['content-type'] = FORM;
      const text = raw.toString('utf8');
      const signature = header(req, 'x-slack-signature');
      const ts = Number(header(req, 'x-slack-request-timestamp'));
      // Slack's rule is |now - timestamp| <= 5 min; Bolt only refuses old ones, not future-dated ones.
      const fresh = Number.isFinite(ts) && Math.abs(Date.now() / 1000 - ts) <= MAX_CLOCK_SKEW_S;
      const signed =
        signature !== undefined &&
        fresh &&
        isValidSlackRequest({
          signingSecret: opts.signingSecret,
          body: text,
          headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts },
        });
      // Slack's certificate check: answered here with 200 and nothing forwarded, whatever else the
      // body carries (unsigned, it must never reach Bolt as a command).
      if (ct === FORM && parseQuery(text).ssl_check === '1') return answer(res, 200);
      if (!signed) return answer(res, 401);
      const verdict = judgeBody(ct, text, opts.rules);
      if (verdict === 'bad') {
        opts.log.warn({ contentType: ct, bytes: raw.length }, 'slack: malformed payload refused');
        return answer(res, 400);
      }
      if (verdict === 'ignore') return answer(res, 200);
      (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
      inner(req, res);
    })().catch((err: unknown) => {
      opts.log.error({ err }, 'slack: request gate failed');
      answer(res, 500);
    });
  };
}
