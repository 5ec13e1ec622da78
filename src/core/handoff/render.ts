/**
 * The ticket message in the handoff channel, rendered from the ticket's state: the state line first
 * (one of Waiting, Claimed, Closed, Cancelled, Timed out, with times), then who and where, the lead
 * summary and the recent transcript, trimmed to the handoff surface's limit.
 */
import type { Turn } from '../conversations/model';
import { recentLines } from '../recent-lines';
import type { Button, OutMessage } from '../surface';
import { SPAN_CLOSE, SPAN_OPEN, shownAsText, untrusted } from '../text/untrusted';
import { leadLines, type LeadSummary } from './lead';
import { hoursLines } from './hours/ticket-lines';
import { HANDOFF_ACTIONS, stateWord, type Ticket } from './model';

const TURN_CHARS = 300;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TURN_CHARS ? `${flat.slice(0, TURN_CHARS - 1)}…` : flat;
}

/** Words from the user, the chatbot or the service, on one line and shown as text. */
function quoted(text: string): string {
  return shownAsText(untrusted(oneLine(text)));
}

/**
 * A chatbot answer on one line as the chat showed it (its `shown`: Markdown, untrusted links already
 * spans): the surface renders its links as it does the answer's. Cut where no link or span is left
 * half open: a cut inside `[label](url` goes back to before the `[`, and a span cut open is closed.
 */
function answerLine(shown: string): string {
  const flat = shown.replace(/\s+/g, ' ').trim();
  if (flat.length <= TURN_CHARS) return flat;
  let cut = flat.slice(0, TURN_CHARS - 1);
  const open = cut.lastIndexOf('[');
  if (open >= 0 && !/\]\([^)]*\)/.test(cut.slice(open))) cut = cut.slice(0, open);
  const spanOpen = cut.lastIndexOf(SPAN_OPEN) > cut.lastIndexOf(SPAN_CLOSE);
  return `${cut.trimEnd()}${spanOpen ? SPAN_CLOSE : ''}…`;
}

/** A transcript line: an answer as the chat showed it, anything else (people's words) as text. */
function turnLine(t: Turn): string {
  return `> *${quoted(t.author)}:* ${t.shown !== undefined ? answerLine(t.shown) : quoted(t.text)}`;
}

/** 19:05 UTC: tickets are read within the day; the date is in the platform's own timestamp. */
export function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/** A duration as people say it: "40 s", "3 min", "1 h 5 min". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

/** How long the user waited for the current claim (a take-over does not add the first agent's time). */
export function claimWait(ticket: Ticket, now: number): number {
  return ticket.claimWaitMs ?? (ticket.claimedAt ?? now) - (ticket.waitingSince ?? ticket.createdAt);
}

/** The first line of the ticket: its state word and the times that matter in that state. */
export function stateLine(ticket: Ticket, now: number): string {
  const word = stateWord(ticket.status);
  const since = ticket.waitingSince ?? ticket.createdAt;
  switch (ticket.status) {
    case 'open':
      return `${word} since ${clock(since)} (${duration(now - since)} so far)`;
    case 'claimed':
      return `${word} by ${ticket.claimedBy ? quoted(ticket.claimedBy.name) : 'an agent'} at ${clock(ticket.claimedAt ?? now)}, ${duration(claimWait(ticket, now))} after the request`;
    case 'closed':
      return `${word} by ${ticket.endedBy ? quoted(ticket.endedBy.name) : 'an agent'} at ${clock(ticket.endedAt ?? now)}${ticket.rating ? `, rated ${ticket.rating}/5` : ''}`;
    case 'cancelled':
      return `${word} by ${ticket.endedBy ? quoted(ticket.endedBy.name) : 'the user'} at ${clock(ticket.endedAt ?? now)}`;
    case 'timedout':
      return `${word} at ${clock(ticket.endedAt ?? now)}: nobody claimed it in ${duration((ticket.endedAt ?? now) - since)}`;
  }
}

export interface TicketView {
  /** How the user is named (a mention and the name on the same surface, the name elsewhere). */
  userLabel: string;
  transcript: Turn[];
  lead: LeadSummary;
  maxLength: number;
  now: number;
}

export function ticketButtons(ticket: Ticket): Button[] {
  const close = { action: HANDOFF_ACTIONS.close, label: 'Close', value: ticket.id, style: 'danger' as const };
  if (ticket.status === 'open')
    return [{ action: HANDOFF_ACTIONS.claim, label: 'Claim', value: ticket.id, style: 'primary' }, close];
  if (ticket.status === 'claimed') {
    return [
      close,
      { action: HANDOFF_ACTIONS.release, label: 'Release', value: ticket.id },
      { action: HANDOFF_ACTIONS.takeover, label: 'Take over', value: ticket.id },
    ];
  }
  return [];
}

export function renderTicket(ticket: Ticket, view: TicketView): OutMessage {
  const where = [
    ticket.userChannelName ? `#${ticket.userChannelName}` : undefined,
    `on ${ticket.userPlace.surface === 'slack' ? 'Slack' : ticket.userPlace.surface === 'discord' ? 'Discord' : ticket.userPlace.surface}`,
  ]
    .filter(Boolean)
    .join(' ');
  const head = [
    stateLine(ticket, view.now),
    ...hoursLines(ticket, view.now),
    `*Handoff request* from ${view.userLabel}`,
    `Where: ${where}${ticket.userLink ? ` · conversation: ${ticket.userLink}` : ''}`,
    `Reason: ${ticket.reason.trim() ? quoted(ticket.reason) : '(none given)'}`,
    ...(ticket.rating ? [`Satisfaction: ${ticket.rating}/5`] : []),
    `*Lead*`,
    ...leadLines(view.lead).map((l) => `• ${quoted(l)}`),
  ].join('\n');
  const lines = view.transcript.map(turnLine);
  const budget = view.maxLength - head.length - 40;
  const kept = recentLines(lines, budget);
  const body = kept.length > 0 ? `Recent conversation:\n${kept.join('\n')}` : 'Recent conversation: (none)';
  return { text: `${head}\n${body}`, markdown: true, asShown: true, buttons: ticketButtons(ticket) };
}
