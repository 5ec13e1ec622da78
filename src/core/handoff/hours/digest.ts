/**
 * The day's leads (EmailForDailyLeads): at LEADS_DIGEST_HOUR in the office's time zone, the previous
 * local day's tickets in one e-mail, each with its user, lead summary, state, who handled it, time to
 * claim and rating. Which day is due is pure over the clock; composing the mail is pure over the tickets.
 */
import type { Mail } from '../../../mail/mailer';
import { type LeadSummary, leadLines } from '../lead';
import { stateWord, type Ticket } from '../model';
import { duration } from '../render';
import { escapeHtml, htmlList, htmlPage } from './mail-html';
import { instantOf, wallTime } from './zoned-time';

export interface DigestDay {
  /** The local date the digest covers, YYYY-MM-DD. */
  date: string;
  from: number;
  to: number;
}

/**
 * The day whose digest is due at `now`: yesterday (office time) once today's digest hour has passed,
 * else the day before. A digest missed while the bridge was down is therefore still due after a
 * restart, until the next one replaces it.
 */
export function dueDigestDay(now: number, timeZone: string, hour: number): DigestDay {
  const w = wallTime(now, timeZone);
  const back = w.hour >= hour ? 1 : 2;
  const day = new Date(Date.UTC(w.year, w.month - 1, w.day - back));
  const y = day.getUTCFullYear();
  const m = day.getUTCMonth() + 1;
  const d = day.getUTCDate();
  return {
    date: `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    from: instantOf(y, m, d, 0, timeZone),
    to: instantOf(y, m, d + 1, 0, timeZone),
  };
}

export interface DigestEntry {
  ticket: Ticket;
  lead: LeadSummary;
}

function handledBy(t: Ticket): string {
  if (t.claimedBy) return t.claimedBy.name;
  if (t.status === 'cancelled' && t.endedBy) return `nobody (cancelled by ${t.endedBy.name})`;
  return 'nobody';
}

function timeToClaim(t: Ticket): string {
  return t.firstClaimedAt !== undefined ? duration(t.firstClaimedAt - t.createdAt) : 'not claimed';
}

function facts(e: DigestEntry): Array<[string, string]> {
  const t = e.ticket;
  return [
    ['State', stateWord(t.status)],
    ['Handled by', handledBy(t)],
    ['Time to claim', timeToClaim(t)],
    ['Rating', t.rating !== undefined ? `${t.rating}/5` : 'not rated'],
  ];
}

/** `id`: the digest's outbox id (`leads:<date>`, or with its office's chatbot in it), which names the message too. */
export function digestMail(day: DigestDay, entries: DigestEntry[], to: string, id = `leads:${day.date}`): Mail {
  const subject = `Leads of ${day.date}: ${entries.length} handoff ticket${entries.length === 1 ? '' : 's'}`;
  const text = [
    subject,
    '',
    ...entries.flatMap((e, i) => [
      `${i + 1}. ${e.ticket.user.name}`,
      ...facts(e).map(([k, v]) => `   ${k}: ${v}`),
      ...leadLines(e.lead).map((l) => `   - ${l}`),
      ...(e.ticket.ticketLink ? [`   Ticket: ${e.ticket.ticketLink}`] : []),
      '',
    ]),
  ].join('\n');
  const html = htmlPage([
    `<h2>${escapeHtml(subject)}</h2>`,
    ...entries.map(
      (e, i) =>
        `<h3>${i + 1}. ${escapeHtml(e.ticket.user.name)}</h3>` +
        htmlList([
          ...facts(e).map(([k, v]) => `<b>${k}:</b> ${escapeHtml(v)}`),
          ...leadLines(e.lead).map((l) => escapeHtml(l)),
        ]),
    ),
  ]);
  return { to, subject, text, html, messageId: `<${id.replace(/[^\w.-]+/g, '-')}@chatbot-bridge>` };
}
