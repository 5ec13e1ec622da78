/** What the ticket message shows of handoff around the clock, under its state line. Pure. */
import type { Ticket } from '../model';
import { shownAsText, untrusted } from '../../text/untrusted';
import { missedByLine } from './response-target';

export function hoursLines(t: Ticket, now: number): string[] {
  const lines: string[] = [];
  if (t.afterHours) lines.push('After hours: opened outside office hours');
  if (t.status === 'open' && t.offeredTo)
    lines.push(`Offered to ${shownAsText(untrusted(t.offeredTo.name))} (round-robin)`);
  if (t.escalatedAt !== undefined) lines.push(missedByLine((t.firstReplyAt ?? now) - t.escalatedAt));
  return lines;
}
