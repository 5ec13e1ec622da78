/**
 * The words of handoff: what a refused person is told (per refusal of the permission table) and
 * what the agents and the user are told when a ticket changes. Kept apart from decide.ts so the
 * rules read without the prose.
 */
import type { Actor } from '../surface';
import { shownAsText, untrusted } from '../text/untrusted';
import { DEFAULT_TALK_TO_HUMAN, stateWord, type Ticket } from './model';
import type { Action, Refusal } from './permissions';
import { duration } from './render';

const VERBS: Record<Action, string> = {
  open: 'ask for a human here',
  claim: 'claim a ticket',
  release: 'release it',
  takeOver: 'take over a ticket',
  close: 'close this ticket',
  cancel: 'cancel this handoff',
  timeOut: 'time a ticket out',
  remind: 'remind the agents',
  rate: 'rate this',
  relay: 'talk to the user',
  note: 'write in a ticket thread',
  forward: 'write here',
  offer: 'offer a ticket',
  warnTarget: 'warn about the response target',
  escalate: 'escalate a ticket',
  missedBy: 'refresh a missed target',
  queue: 'see the handoff queue',
  availability: 'set away or back',
  retry: 'press Retry',
};

const lower = (t: Ticket): string => stateWord(t.status).toLowerCase();
const claimer = (t: Ticket): string => t.claimedBy?.name ?? 'the claiming agent';

/** What the refused person is told (ephemerally); nothing changed. */
export function refusalText(code: Refusal, action: Action, t: Ticket | undefined, asker?: Actor): string {
  switch (code) {
    case 'noTicket':
      return action === 'cancel'
        ? 'This conversation is not with a human, so there is nothing to cancel.'
        : 'This ticket no longer exists.';
    case 'inHandoff':
      return `${t?.status === 'claimed' ? `${claimer(t)} is already with you here` : 'A human has already been asked to join this conversation'}. Use /handoff cancel to go back to the bot.`;
    case 'notAgent':
      if (action === 'queue') return 'The handoff queue is for members of the handoff channel and admins.';
      if (action === 'availability') return 'Away and back are for members of the handoff channel.';
      return action === 'relay' || action === 'note'
        ? 'Only members of the handoff channel may write to the user from a ticket thread: your message was not sent to anyone.'
        : `Only members of the handoff channel may ${VERBS[action]}.`;
    case 'notAsker':
      if (action === 'open')
        return 'Only the person who asked in this conversation, or an admin, may ask for a human here. Start your own with /ask.';
      if (action === 'rate') return `Only ${t?.user.name ?? 'the user'}, who was helped, may rate this.`;
      if (action === 'retry')
        return `Only ${asker?.name ?? 'the person who asked'}, who asked this question, or an admin can press Retry.`;
      return `Only ${t?.user.name ?? 'the user'}, who asked for a human, or an admin may cancel this handoff.`;
    case 'notClaimer':
      if (action === 'close' && t) return `Only ${claimer(t)} (who claimed it) or an admin may close this ticket.`;
      if (action === 'relay' && t) return `Only ${claimer(t)}'s messages reach the user.`;
      return `Only ${t ? claimer(t) : 'the claiming agent'}, who claimed this ticket, may ${VERBS[action]}.`;
    case 'unclaimed':
      return 'Only an admin may close a ticket nobody has claimed: press Claim to take it, then Close.';
    case 'alreadyClaimed':
      return `Already claimed by ${t?.claimedBy?.name ?? 'another agent'}.`;
    case 'holdsIt':
      return 'You already hold this ticket.';
    case 'waiting':
      if (action === 'takeOver') return 'This ticket is waiting: press Claim instead.';
      if (action === 'release') return 'This ticket is waiting: there is nothing to release.';
      return 'This ticket is waiting: press Claim to talk to the user.';
    case 'notClosed':
      return 'There is nothing to rate: the handoff was not closed by an agent.';
    case 'ended':
      if (action === 'relay' || action === 'note')
        return `This ticket is ${t ? lower(t) : 'over'}: the user no longer sees messages here.`;
      if (action === 'claim' && t) return `This ticket is ${lower(t)}.`;
      if (action === 'takeOver' && t) return `This ticket is ${lower(t)}: there is nothing to take over.`;
      if (action === 'release' && t) return `This ticket is ${lower(t)}: there is nothing to release.`;
      return 'This handoff has already ended.';
    case 'bridgeOnly':
      return `Only the bridge may ${VERBS[action]}.`;
    case 'notBridge':
      return `The bridge does not ${VERBS[action]}.`;
    case 'notDue':
      return 'no longer due';
  }
}

export function closedText(t: Ticket): string {
  return `${t.endedBy?.name ?? 'The agent'} closed the handoff. I'm back: ask me anything here.`;
}

export function ratingQuestion(t: Ticket): string {
  return `How would you rate the help you got from ${t.claimedBy?.name ?? t.endedBy?.name ?? 'our agent'}? 1 = poor, 5 = great.`;
}

/** The agents' line when a ticket ends. */
export function endedForAgents(t: Ticket, by: Actor | undefined, now: number): string {
  const back = `The bot answers ${t.user.name} again.`;
  if (t.status === 'closed') return `${by?.name ?? 'An agent'} closed this ticket. ${back}`;
  if (t.status === 'cancelled')
    return `${!by || by.id === t.user.id ? t.user.name : by.name} cancelled the request. ${back}`;
  return `Nobody claimed this ticket in ${duration(now - (t.waitingSince ?? t.createdAt))}: it timed out. ${back}`;
}

export const CANCELLED_FOR_USER = "Handoff cancelled. I'm back: ask me anything here.";
export const TIMED_OUT_FOR_USER =
  "Sorry, no agent could pick up your request in time. I'm back: ask me anything here, or use /handoff to try again later.";
export const UNREACHABLE_FOR_USER =
  'Sorry, I could not reach the handoff channel, so no human was notified. The bot keeps answering here; try /handoff again later.';

/** The user's notice once its Cancel button no longer applies. */
export function endedNotice(t: Ticket): string {
  return `${t.userNoticeText ?? DEFAULT_TALK_TO_HUMAN}\n(Handoff ${lower(t)}.)`;
}

export function lateText(t: Ticket, now: number): string {
  return (
    `No one has picked up your request yet (${minutes(now - t.createdAt)}). It stays open in the handoff channel ` +
    'and an agent will reply in this thread. Use /handoff cancel to go back to the bot.'
  );
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'under a minute' : m === 1 ? '1 minute' : `${m} minutes`;
}

export function fileLines(names: string[]): string {
  return names.map((n) => `\n[file: ${asText(n)}]`).join('');
}

/** A relayed message's words and its writer's name: the user's or the agent's, shown as text. */
export function asText(text: string): string {
  return shownAsText(untrusted(text));
}
