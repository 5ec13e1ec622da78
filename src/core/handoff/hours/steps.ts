/**
 * The bridge's own ticket steps of handoff around the clock, as a pure state machine beside
 * decide.ts: a round-robin offer to the next agent, the response-target warning, the escalation.
 * Each gives the ticket after the step and the notices it owes, or undefined when the step no longer
 * applies (another sweep or instance took it, the ticket moved on): nothing changes then.
 */
import type { Actor } from '../../surface';
import type { Ticket } from '../model';
import type { Notice } from '../notice';
import { duration } from '../render';
import { asText } from '../wording';

/** An offer's `previousAt`: the offer it replaces (none: the first), so two sweeps cannot both offer. */
export type HoursStep = { at: number } & (
  | { kind: 'offer'; to: Actor; key: string; mention: string; offerMs: number; previousAt?: number }
  | { kind: 'warnTarget'; leftMs: number; targetMs: number }
  | { kind: 'escalate'; mentions: string[]; targetMs: number }
  /** The ticket message refreshed so "missed by N min" stays current (`step`: response-target.ts). */
  | { kind: 'missedBy'; step: number }
);

export interface HoursDecision {
  ticket: Ticket;
  notices: Notice[];
}

export function decideHours(t: Ticket, step: HoursStep): HoursDecision | undefined {
  const toThread = (text: string): Notice => ({ kind: 'toThread', ticketId: t.id, msg: { text } });
  const refresh: Notice = { kind: 'refresh', ticketId: t.id };
  switch (step.kind) {
    case 'offer': {
      if (t.status !== 'open' || t.offeredAt !== step.previousAt) return undefined;
      return {
        ticket: {
          ...t,
          offeredTo: step.to,
          offeredAt: step.at,
          offered: [...(t.offered ?? []).filter((k) => k !== step.key), step.key],
        },
        notices: [
          toThread(
            `Offered to ${step.mention} (round-robin): please claim it within ${duration(step.offerMs)}, or it goes to the next agent. Anyone here may still claim it.`,
          ),
          refresh,
          {
            kind: 'tell',
            ticketId: t.id,
            to: step.to,
            msg: {
              text: `A handoff ticket is offered to you: ${asText(t.user.name)} is waiting. Press Claim on it within ${duration(step.offerMs)}.`,
            },
          },
        ],
      };
    }
    case 'warnTarget': {
      if (t.status !== 'claimed' || t.firstReplyAt !== undefined || t.targetWarnedAt !== undefined) return undefined;
      return {
        ticket: { ...t, targetWarnedAt: step.at },
        notices: [
          toThread(
            `Response target: ${duration(step.leftMs)} left for ${asText(t.claimedBy?.name ?? 'the claiming agent')}'s first reply to ${asText(t.user.name)} (target ${duration(step.targetMs)} from the claim, in office time).`,
          ),
        ],
      };
    }
    case 'missedBy': {
      if (t.status !== 'claimed' || t.firstReplyAt !== undefined || t.escalatedAt === undefined) return undefined;
      if ((t.missedShown ?? 0) >= step.step) return undefined;
      return { ticket: { ...t, missedShown: step.step }, notices: [refresh] };
    }
    case 'escalate': {
      if (t.status !== 'claimed' || t.firstReplyAt !== undefined || t.escalatedAt !== undefined) return undefined;
      const who = step.mentions.length > 0 ? `${step.mentions.join(' ')} ` : '';
      return {
        ticket: { ...t, escalatedAt: step.at },
        notices: [
          toThread(
            `${who}Escalated: ${asText(t.user.name)} has had no reply from ${asText(t.claimedBy?.name ?? 'the claiming agent')} ${duration(step.targetMs)} after the claim (the response target). Please step in or take it over.`,
          ),
          refresh,
        ],
      };
    }
  }
}
