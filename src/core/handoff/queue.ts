/** The handoff queue as `/handoff queue` and Slack's App Home show it: open tickets, oldest first. */
import type { OutMessage } from '../surface';
import type { Ticket } from './model';
import { claimWait, duration } from './render';
import { surfaceLabel } from './ticket-view';

export function queueMessage(tickets: Ticket[], now: number): OutMessage {
  if (tickets.length === 0) return { text: '*Handoff queue*\nNo open tickets: nobody is waiting.', markdown: true };
  const lines = tickets.map((t) => {
    const since = t.waitingSince ?? t.createdAt;
    const state =
      t.status === 'claimed'
        ? `Claimed by ${t.claimedBy?.name ?? 'an agent'}, waited ${duration(claimWait(t, now))}`
        : `Waiting ${duration(now - since)}`;
    const link = t.ticketLink ?? (t.root ? 'no link' : 'ticket message not posted yet');
    return `• ${state} · ${t.user.name} (${surfaceLabel(t.userPlace.surface)}) · ${link}`;
  });
  const waiting = tickets.filter((t) => t.status === 'open').length;
  return { text: `*Handoff queue*: ${tickets.length} open, ${waiting} waiting\n${lines.join('\n')}`, markdown: true };
}
