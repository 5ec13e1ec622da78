/**
 * The bridge's own ticket steps of handoff around the clock, decided by `decide` (decide.ts) like
 * every other step, after the permission table (only the bridge takes them, only in the state they
 * belong to): a round-robin offer to the next agent, the response-target warning, the escalation,
 * the "missed by" refresh. Each gives the ticket after the step and the notices it owes, or a quiet
 * refusal when the step no longer applies (another sweep or instance took it): nothing changes then.
 */
import type { Decision, EventOf, Refused } from '../events';
import type { Ticket } from '../model';
import type { Notice } from '../notice';
import { duration } from '../render';
import { asText } from '../wording';

/** A bridge step around the clock, with its time (hours.ts asks for them). */
export type HoursStep = EventOf<'offer' | 'warnTarget' | 'escalate' | 'missedBy'>;

const TAKEN: Refused = { refusal: 'no longer due', quiet: true };
const toThread = (t: Ticket, text: string): Notice => ({ kind: 'toThread', ticketId: t.id, msg: { text } });
const refresh = (t: Ticket): Notice => ({ kind: 'refresh', ticketId: t.id });
const claimer = (t: Ticket): string => asText(t.claimedBy?.name ?? 'the claiming agent');
/** The claimer has not answered the user yet (a warning or escalation still applies). */
const unanswered = (t: Ticket): boolean => t.firstReplyAt === undefined;

function offer(t: Ticket, step: EventOf<'offer'>): Decision | Refused {
  if (t.offeredAt !== step.previousAt) return TAKEN;
  const ticket: Ticket = {
    ...t,
    offeredTo: step.to,
    offeredAt: step.at,
    offered: [...(t.offered ?? []).filter((k) => k !== step.key), step.key],
  };
  const within = duration(step.offerMs);
  return {
    ticket,
    notices: [
      toThread(
        t,
        `Offered to ${step.mention} (round-robin): please claim it within ${within}, or it goes to the next agent. Anyone here may still claim it.`,
      ),
      refresh(t),
      {
        kind: 'tell',
        ticketId: t.id,
        to: step.to,
        msg: {
          text: `A handoff ticket is offered to you: ${asText(t.user.name)} is waiting. Press Claim on it within ${within}.`,
        },
      },
    ],
  };
}

function warnTarget(t: Ticket, step: EventOf<'warnTarget'>): Decision | Refused {
  if (!unanswered(t) || t.targetWarnedAt !== undefined) return TAKEN;
  return {
    ticket: { ...t, targetWarnedAt: step.at },
    notices: [
      toThread(
        t,
        `Response target: ${duration(step.leftMs)} left for ${claimer(t)}'s first reply to ${asText(t.user.name)} (target ${duration(step.targetMs)} from the claim, in office time).`,
      ),
    ],
  };
}

function missedBy(t: Ticket, step: EventOf<'missedBy'>): Decision | Refused {
  if (!unanswered(t) || t.escalatedAt === undefined || (t.missedShown ?? 0) >= step.step) return TAKEN;
  return { ticket: { ...t, missedShown: step.step }, notices: [refresh(t)] };
}

function escalate(t: Ticket, step: EventOf<'escalate'>): Decision | Refused {
  if (!unanswered(t) || t.escalatedAt !== undefined) return TAKEN;
  const who = step.mentions.length > 0 ? `${step.mentions.join(' ')} ` : '';
  return {
    ticket: { ...t, escalatedAt: step.at },
    notices: [
      toThread(
        t,
        `${who}Escalated: ${asText(t.user.name)} has had no reply from ${claimer(t)} ${duration(step.targetMs)} after the claim (the response target). Please step in or take it over.`,
      ),
      refresh(t),
    ],
  };
}

/** The steps by kind, for `decide`'s table. */
export const HOURS_STEPS = { offer, warnTarget, missedBy, escalate } as const;
