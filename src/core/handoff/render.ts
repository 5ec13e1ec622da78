/** The ticket message in the handoff channel, rendered from the ticket's state. */
import type { Turn } from '../conversations/model';
import { recentLines } from '../recent-lines';
import type { OutMessage, Place } from '../surface';
import { HANDOFF_ACTIONS, type Ticket } from './model';

const TURN_CHARS = 300;

export function describePlace(place: Place): string {
  const parts = [`${place.surface}`, `workspace ${place.workspace}`, `channel ${place.channel}`];
  if (place.thread) parts.push(`thread ${place.thread}`);
  return parts.join(' · ');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TURN_CHARS ? `${flat.slice(0, TURN_CHARS - 1)}…` : flat;
}

function statusLine(ticket: Ticket): string {
  switch (ticket.status) {
    case 'open':
      return 'Status: waiting for an agent: press Claim to take it.';
    case 'claimed':
      return `Status: claimed by ${ticket.claimedBy?.name ?? 'an agent'}.`;
    case 'closed':
      return `Status: closed by ${ticket.endedBy?.name ?? 'an agent'}; the bot answers the user again.`;
    case 'cancelled':
      return `Status: cancelled by ${ticket.endedBy?.name ?? 'the user'}; the bot answers the user again.`;
  }
}

/**
 * Who, where, why and the recent transcript, trimmed (oldest turns first) so the message fits the
 * handoff surface's limit.
 */
export function renderTicket(ticket: Ticket, userLabel: string, transcript: Turn[], maxLength: number): OutMessage {
  const head = [
    `*Handoff request* from ${userLabel}`,
    `Where: ${describePlace(ticket.userPlace)}`,
    `Reason: ${oneLine(ticket.reason) || '(none given)'}`,
  ].join('\n');
  const status = statusLine(ticket);
  const lines = transcript.map((t) => `> *${oneLine(t.author)}:* ${oneLine(t.text)}`);
  const budget = maxLength - head.length - status.length - 40;
  const kept = recentLines(lines, budget);
  const body = kept.length > 0 ? `Recent conversation:\n${kept.join('\n')}` : 'Recent conversation: (none)';
  const buttons =
    ticket.status === 'open'
      ? [
          { action: HANDOFF_ACTIONS.claim, label: 'Claim', value: ticket.id, style: 'primary' as const },
          { action: HANDOFF_ACTIONS.close, label: 'Close', value: ticket.id, style: 'danger' as const },
        ]
      : ticket.status === 'claimed'
        ? [{ action: HANDOFF_ACTIONS.close, label: 'Close', value: ticket.id, style: 'danger' as const }]
        : [];
  return { text: `${head}\n${body}\n${status}`, markdown: true, buttons };
}
