/**
 * The variables of handoff around the clock (office hours, e-mail, response targets, assignment,
 * the day's leads), as part of config.ts's one environment schema: their zod fields and what they
 * become. A bad value stops start-up like any other variable, with a message naming it.
 */
import { z } from 'zod';
import type { OfficeConfig } from '../core/context';
import { parseHours, type OfficeWindow } from '../core/handoff/hours/office-hours';
import { isTimeZone } from '../core/handoff/hours/zoned-time';
import type { MailConfig } from '../mail/mailer';

const DEFAULT_OFFER_MS = 120_000;
const DEFAULT_DIGEST_HOUR = 8;
const DEFAULT_FROM = 'chatbot-bridge@localhost';

// Loose on purpose: the mail server is the judge of an address; this catches a pasted name or URL.
const emailAddress = z.string().regex(/^[^\s@<>]+@[^\s@<>]+$/, 'must be an e-mail address like agents@example.com');

/** Each variable's schema, wrapped by config.ts in its optional/blank handling (the seconds ones are config.ts's). */
export const officeSchemas = {
  HANDOFF_HOURS: z.string().transform((v, ctx) => {
    const windows = parseHours(v);
    if (typeof windows !== 'string') return windows;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: windows });
    return z.NEVER;
  }),
  HANDOFF_TIMEZONE: z
    .string()
    .refine(isTimeZone, { message: 'must be an IANA time zone such as America/Chicago or UTC' }),
  HANDOFF_EMAIL: emailAddress,
  SMTP_URL: z.string().refine((v) => /^smtps?:\/\/\S+$/i.test(v) && URL.canParse(v), {
    message: 'must be smtp://[user:password@]host[:port] or smtps://… (credentials in the URL)',
  }),
  MAIL_FROM: z
    .string()
    .regex(/^([^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, 'must be an address, or "Name <address>"'),
  HANDOFF_ESCALATE: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .refine((ids) => ids.every((id) => /^([UWS][A-Z0-9]+|\d+)$/.test(id)), {
      message: 'must be Slack user (U…) or user-group (S…) ids, or Discord role ids (numbers), comma-separated',
    }),
  HANDOFF_ASSIGN: z
    .string()
    .transform((v) => v.toLowerCase())
    .refine((v) => v === 'round-robin' || v === 'none', { message: 'must be round-robin or none' }),
  LEADS_DIGEST_HOUR: z
    .string()
    .refine((v) => /^\d{1,2}$/.test(v) && Number(v) <= 23, { message: 'must be an hour from 0 to 23' })
    .transform(Number),
};

interface OfficeEnv {
  HANDOFF_HOURS?: OfficeWindow[];
  HANDOFF_TIMEZONE?: string;
  HANDOFF_EMAIL?: string;
  SMTP_URL?: string;
  MAIL_FROM?: string;
  HANDOFF_FIRST_REPLY_S?: number;
  HANDOFF_ESCALATE?: string[];
  HANDOFF_ASSIGN?: string;
  HANDOFF_OFFER_S?: number;
  LEADS_DIGEST_HOUR?: number;
}

export function officeConfig(e: OfficeEnv): { office: OfficeConfig; mail?: MailConfig } {
  const office: OfficeConfig = {
    escalate: e.HANDOFF_ESCALATE ?? [],
    assign: e.HANDOFF_ASSIGN === 'round-robin' ? 'round-robin' : 'none',
    offerMs: e.HANDOFF_OFFER_S ?? DEFAULT_OFFER_MS,
    digestHour: e.LEADS_DIGEST_HOUR ?? DEFAULT_DIGEST_HOUR,
  };
  if (e.HANDOFF_HOURS) office.hours = e.HANDOFF_HOURS;
  if (e.HANDOFF_TIMEZONE) office.timeZone = e.HANDOFF_TIMEZONE;
  if (e.HANDOFF_EMAIL) office.email = e.HANDOFF_EMAIL;
  if (e.HANDOFF_FIRST_REPLY_S) office.firstReplyMs = e.HANDOFF_FIRST_REPLY_S;
  return e.SMTP_URL ? { office, mail: { url: e.SMTP_URL, from: e.MAIL_FROM ?? DEFAULT_FROM } } : { office };
}

/** SMTP_URL with its password (and user) replaced, for printing. */
export function redactedSmtpUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  if (u.username) u.username = '***';
  return u.toString();
}
