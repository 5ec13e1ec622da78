/**
 * The e-mail of one ticket (after hours, or still unclaimed after its last reminder): a subject naming
 * the user and the city, the lead summary, the recent transcript, the links to the ticket and to the
 * user's conversation, as a plain-text part and an HTML part. Pure; everything from users is escaped
 * in the HTML part.
 */
import type { Mail } from '../../../mail/mailer';
import type { Turn } from '../../conversations/model';
import { type LeadSummary, leadLines } from '../lead';
import type { Ticket } from '../model';
import { escapeHtml, htmlList, htmlPage } from './mail-html';

/** The transcript an e-mail carries: enough to answer without opening the chat. */
const MAIL_TURNS = 12;
const TURN_CHARS = 600;

export type TicketMailReason = 'afterhours' | 'unclaimed';

export interface TicketMailInput {
  ticket: Ticket;
  lead: LeadSummary;
  transcript: Turn[];
  reason: TicketMailReason;
  to: string;
  /** "Monday at 9:00 AM (Central Time)", for an after-hours ticket. */
  backAt?: string;
}

function flat(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > TURN_CHARS ? `${one.slice(0, TURN_CHARS - 1)}…` : one;
}

export function ticketMailSubject(ticket: Ticket, lead: LeadSummary, reason: TicketMailReason): string {
  const what = reason === 'afterhours' ? 'After-hours handoff' : 'Unclaimed handoff';
  return `${what}: ${flat(ticket.user.name)} (${lead.city ? flat(lead.city) : 'city not given'})`;
}

export function ticketMail(input: TicketMailInput): Mail {
  const { ticket, lead, reason } = input;
  const intro =
    reason === 'afterhours'
      ? `${ticket.user.name} asked for a human outside office hours.${input.backAt ? ` They were told agents are back ${input.backAt}.` : ''}`
      : `${ticket.user.name} has been waiting for an agent and nobody has claimed the ticket after every reminder.`;
  const turns = input.transcript.slice(-MAIL_TURNS).map((t) => ({ author: flat(t.author), text: flat(t.text) }));
  const links: Array<[string, string | undefined]> = [
    ['Ticket', ticket.ticketLink],
    ['Conversation', ticket.userLink],
  ];
  const text = [
    intro,
    `Reason: ${flat(ticket.reason) || '(none given)'}`,
    '',
    'Lead',
    ...leadLines(lead).map((l) => `- ${flat(l)}`),
    '',
    'Recent conversation',
    ...(turns.length > 0 ? turns.map((t) => `${t.author}: ${t.text}`) : ['(none)']),
    '',
    ...links.map(([label, url]) => `${label}: ${url ?? '(no link yet)'}`),
    '',
  ].join('\n');
  const html = htmlPage([
    `<p>${escapeHtml(intro)}</p>`,
    `<p><b>Reason:</b> ${escapeHtml(flat(ticket.reason) || '(none given)')}</p>`,
    '<h3>Lead</h3>',
    htmlList(leadLines(lead).map((l) => escapeHtml(flat(l)))),
    '<h3>Recent conversation</h3>',
    turns.length > 0
      ? htmlList(turns.map((t) => `<b>${escapeHtml(t.author)}:</b> ${escapeHtml(t.text)}`))
      : '<p>(none)</p>',
    `<p>${links
      .map(([label, url]) =>
        url && /^https?:\/\//i.test(url)
          ? `<a href="${escapeHtml(url)}">${label}</a>`
          : `${label}: ${escapeHtml(url ?? '(no link yet)')}`,
      )
      .join(' · ')}</p>`,
  ]);
  return {
    to: input.to,
    subject: ticketMailSubject(ticket, lead, reason),
    text,
    html,
    messageId: `<ticket-${ticket.id}-${reason}@chatbot-bridge>`,
  };
}
