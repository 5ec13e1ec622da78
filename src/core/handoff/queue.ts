/** The handoff queue as `/handoff queue` and Slack's App Home show it: open tickets, oldest first. */
import type { OutMessage } from '../surface';
import type { Ticket } from './model';
import { claimWait, duration } from './render';
import { surfaceLabel } from './ticket-view';
import { asText } from './wording';

/** `extra`: what handoff around the clock adds (who is away, e-mails not sent yet: hours/hours.ts). */
export function queueMessage(tickets: Ticket[], now: number, extra: string[] = []): OutMessage {
  const tail = extra.length > 0 ? `\n${extra.join('\n')}` : '';
  if (tickets.length === 0)
    return { text: `*Handoff queue*\nNo open tickets: nobody is waiting.${tail}`, markdown: true };
  const lines = tickets.map((t) => {
    const since = t.waitingSince ?? t.createdAt;
    const state =
      t.status === 'claimed'
        ? `Claimed by ${t.claimedBy ? asText(t.claimedBy.name) : 'an agent'}, waited ${duration(claimWait(t, now))}`
        : `Waiting ${duration(now - since)}`;
    const link = t.ticketLink ?? (t.root ? 'no link' : 'ticket message not posted yet');
    // Names are what people chose: shown as text in this Markdown list.
    return `• ${state} · ${asText(t.user.name)} (${surfaceLabel(t.userPlace.surface)}) · ${link}`;
  });
  const waiting = tickets.filter((t) => t.status === 'open').length;
  return {
    text: `*Handoff queue*: ${tickets.length} open, ${waiting} waiting\n${lines.join('\n')}${tail}`,
    markdown: true,
  };
}
