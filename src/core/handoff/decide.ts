/**
 * The handoff state machine: `decide(ticket, event, who)` gives the ticket after the event and the
 * notices it owes, or a refusal that says why (nothing changes). Pure: no store, no platform, no
 * clock (the event carries its time); permissions come from the one table in permissions.ts.
 * handoffs.ts loads the ticket, calls this, and stores the result with its notices in one step.
 */
import type { Actor, Place, SurfaceName } from '../surface';
import { HANDOFF_ACTIONS, isEnded, MAX_REMINDERS, type Ticket } from './model';
import type { Notice, NoticeMessage } from './notice';
import { type Action, outcome, type Role, type State } from './permissions';
import { duration } from './render';
import {
  asText,
  CANCELLED_FOR_USER,
  closedText,
  endedForAgents,
  endedNotice,
  fileLines,
  lateText,
  ratingQuestion,
  refusalText,
  TIMED_OUT_FOR_USER,
  UNREACHABLE_FOR_USER,
} from './wording';

/** Who acts: a person (where they act, and whether they are an agent: see who.ts), or the bridge itself. */
export type Who = { kind: 'bridge' } | { kind: 'person'; actor: Actor; surface: SurfaceName; agent: boolean };

export const BRIDGE: Who = { kind: 'bridge' };
/** How the bridge is named on a ticket it ended. */
export const BRIDGE_ACTOR: Actor = { id: 'bridge', name: 'the bridge', isAdmin: false };

/** A new ticket's particulars, chosen by the caller (ids, the configured words and channel). */
export interface Opening {
  id: string;
  convId: string;
  /** The user's conversation thread. */
  place: Place;
  /** Who started the conversation: the ticket is theirs, whoever asks for it. */
  asker: Actor;
  reason: string;
  noticeText: string;
  /** The handoff channel. */
  channel: Place;
  /** Opened outside office hours: marked so. */
  afterHours?: boolean;
  /** Tickets are e-mailed (SMTP and an address): an after-hours ticket owes its e-mail. */
  mails?: boolean;
}

/** One step of a ticket's life; with its time (`HandoffEvent`) it is what `decide` decides. */
export type HandoffStep =
  | { kind: 'open'; opening: Opening }
  | { kind: 'claim' }
  | { kind: 'release' }
  /** `from`: the holder the confirmation named; the take-over fails if the ticket changed hands. */
  | { kind: 'takeOver'; from: string }
  | { kind: 'close' }
  /** `unreachable`: the bridge calls off a ticket whose message could not be posted. */
  | { kind: 'cancel'; unreachable?: boolean }
  | { kind: 'timeOut' }
  /** To the user once ("nobody has picked it up yet"), or reminder `sent + 1` to the agents in the wait since `since`. */
  | { kind: 'remind'; to: 'user' }
  /**
   * `waitedMs`: the wait as it counts (office time with HANDOFF_HOURS, `officeTime` then; else all of
   * it since `since`). `mails`: tickets are e-mailed, so the last reminder also owes the ticket's e-mail.
   */
  | {
      kind: 'remind';
      to: 'agents';
      sent: number;
      since: number;
      waitedMs?: number;
      officeTime?: boolean;
      mails?: boolean;
    }
  | { kind: 'rate'; score: number }
  | { kind: 'relay'; text: string; files: string[] }
  | { kind: 'note'; text: string }
  | { kind: 'forward'; text: string; files: string[] };
export type HandoffEvent = { at: number } & HandoffStep;

/** A line for the conversation's transcript (the ticket shows it; the lead reads it). */
export interface TurnLine {
  author: string;
  text: string;
}

export interface Decision {
  ticket: Ticket;
  notices: Notice[];
  /** Told to the person who acted, ephemerally, once the change is stored. */
  reply?: string;
  turn?: TurnLine;
}
/** `quiet`: a step the bridge no longer needs (another sweep took it); nobody is told. */
export interface Refused {
  refusal: string;
  quiet?: boolean;
}

/** The state a ticket is in for the permission table (`none`: no ticket in progress). */
export function stateOf(ticket: Ticket | undefined): State {
  return ticket ? ticket.status : 'none';
}

/** The one role a person has towards a ticket (or, for `open`, towards the conversation's asker). */
export function roleOf(ticket: Ticket | undefined, who: Who, asker?: Actor): Role {
  if (who.kind === 'bridge') return 'bridge';
  const { actor } = who;
  const user = ticket?.user ?? asker;
  const userSurface = ticket?.userPlace.surface;
  if (ticket?.claimedBy?.id === actor.id && (who.agent || actor.isAdmin)) return 'claimer';
  if (user && user.id === actor.id && (!userSurface || userSurface === who.surface)) return 'asker';
  if (actor.isAdmin) return 'admin';
  if (who.agent) return 'agent';
  return 'other';
}

export function refusalOf(action: Action, ticket: Ticket | undefined, who: Who, asker?: Actor): Refused | undefined {
  const cell = outcome(action, roleOf(ticket, who, asker), stateOf(ticket));
  return cell === 'allow' ? undefined : { refusal: refusalText(cell, action, ticket) };
}

function actorOf(who: Who): Actor {
  return who.kind === 'bridge' ? BRIDGE_ACTOR : who.actor;
}

const toThread = (t: Ticket, text: string): Notice => ({ kind: 'toThread', ticketId: t.id, msg: { text } });
const toUser = (t: Ticket, msg: string | NoticeMessage): Notice => ({
  kind: 'post',
  ticketId: t.id,
  place: t.userPlace,
  msg: typeof msg === 'string' ? { text: msg } : msg,
});
/** Last where it stands: an edit the platform holds back (rate limits) must not keep anyone waiting. */
const refresh = (t: Ticket): Notice => ({ kind: 'refresh', ticketId: t.id });
const stripCancel = (t: Ticket): Notice => ({ kind: 'editNotice', ticketId: t.id, msg: { text: endedNotice(t) } });

export function decide(ticket: Ticket | undefined, event: HandoffEvent, who: Who): Decision | Refused {
  const asker = event.kind === 'open' ? event.opening.asker : undefined;
  const refused = refusalOf(event.kind, ticket, who, asker);
  if (refused) return refused;
  if (event.kind === 'open') return open(event.opening, event.at, who);
  if (!ticket) return { refusal: 'This ticket no longer exists.' };
  const by = actorOf(who);
  const now = event.at;
  switch (event.kind) {
    case 'claim': {
      const t: Ticket = {
        ...ticket,
        status: 'claimed',
        claimedBy: by,
        claimedAt: now,
        claimWaitMs: now - (ticket.waitingSince ?? ticket.createdAt),
        firstClaimedAt: ticket.firstClaimedAt ?? now,
      };
      return {
        ticket: t,
        notices: [
          toThread(
            t,
            `${by.name} claimed this ticket. Their messages in this thread go to ${t.user.name} (start one with "note:" to keep it for the team); theirs appear here. Press Close to hand them back to the bot.`,
          ),
          toUser(t, `${by.name} (agent) has joined the conversation and will answer you here.`),
          refresh(t),
        ],
      };
    }
    case 'release': {
      const { claimedBy: _c, claimedAt: _a, claimWaitMs: _w, lastRemindAt: _l, ...rest } = ticket;
      const t: Ticket = { ...rest, status: 'open', waitingSince: now, reminders: 0 };
      return {
        ticket: t,
        notices: [
          refresh(t),
          toThread(t, `${by.name} released this ticket: it is waiting again. Press Claim to take it.`),
          toUser(t, `${by.name} handed your request back to the team: someone else will pick it up here shortly.`),
        ],
      };
    }
    case 'takeOver': {
      const previous = ticket.claimedBy;
      if (previous?.id !== event.from)
        return {
          refusal: `The ticket changed hands meanwhile (now ${previous?.name ?? 'nobody'}): nothing was taken over.`,
        };
      const t: Ticket = { ...ticket, claimedBy: by, claimedAt: now };
      const from = previous?.name ?? 'the previous agent';
      return {
        ticket: t,
        notices: [
          refresh(t),
          toThread(
            t,
            `${by.name} took this ticket over from ${from}. From now on their messages here go to ${t.user.name}.`,
          ),
          toUser(t, `${by.name} (agent) now answers you here, taking over from ${from}.`),
        ],
        reply: `You now hold the ticket of ${t.user.name}.`,
      };
    }
    case 'close':
    case 'timeOut':
    case 'cancel':
      return end(ticket, event, who, now);
    case 'remind':
      return remind(ticket, event, now);
    case 'rate': {
      if (!Number.isInteger(event.score) || event.score < 1 || event.score > 5)
        return { refusal: 'That rating button is not valid.' };
      if (ticket.rating !== undefined) return { refusal: `You already rated the help ${ticket.rating}/5. Thank you!` };
      const t: Ticket = { ...ticket, rating: event.score, ratedAt: now };
      return {
        ticket: t,
        notices: [refresh(t), toThread(t, `${t.user.name} rated the help ${event.score}/5.`)],
        reply: `${closedText(t)}\nThank you! You rated the help ${event.score}/5.`,
      };
    }
    case 'relay': {
      const t: Ticket = ticket.firstReplyAt === undefined ? { ...ticket, firstReplyAt: now } : { ...ticket };
      return {
        ticket: t,
        notices: [
          toUser(t, {
            text: `*${asText(by.name)} (agent):* ${asText(event.text)}${fileLines(event.files)}`,
            markdown: true,
          }),
        ],
        turn: { author: `${by.name} (agent)`, text: event.text },
      };
    }
    case 'note': {
      const t: Ticket = { ...ticket, notes: (ticket.notes ?? 0) + 1 };
      const holder = ticket.status === 'claimed' && ticket.claimedBy?.id === by.id;
      const why =
        ticket.status === 'open'
          ? ' Press Claim to talk to them.'
          : holder
            ? ''
            : ` Only ${ticket.claimedBy?.name ?? 'the claiming agent'}'s messages reach them.`;
      return {
        ticket: t,
        notices: [toThread(t, `Internal note from ${by.name}: kept for the team, not sent to ${t.user.name}.${why}`)],
      };
    }
    case 'forward':
      return {
        ticket: { ...ticket },
        notices: [
          {
            kind: 'toThread',
            ticketId: ticket.id,
            msg: { text: `*${asText(by.name)}:* ${asText(event.text)}${fileLines(event.files)}`, markdown: true },
          },
        ],
        turn: { author: by.name, text: event.text },
      };
  }
}

function open(o: Opening, now: number, who: Who): Decision {
  const t: Ticket = {
    id: o.id,
    convId: o.convId,
    status: 'open',
    user: o.asker,
    userPlace: o.place,
    reason: o.reason,
    createdAt: now,
    waitingSince: now,
    userNoticeText: o.noticeText,
    opening: true,
    ...(o.afterHours ? { afterHours: true as const } : {}),
  };
  const by = actorOf(who);
  const forUser = by.id === o.asker.id ? '' : `, by ${by.name}`;
  return {
    ticket: t,
    notices: [
      {
        kind: 'post',
        ticketId: t.id,
        place: o.place,
        msg: { text: o.noticeText, buttons: [{ action: HANDOFF_ACTIONS.cancel, label: 'Cancel', value: t.id }] },
        keep: 'userNotice',
      },
      { kind: 'open', ticketId: t.id, channel: o.channel, title: `Handoff: ${o.asker.name}` },
      ...(o.afterHours && o.mails ? [{ kind: 'mail', ticketId: t.id, reason: 'afterhours' } as const] : []),
      // "Talk to a human" no longer applies while a human is asked for. Removing it edits earlier
      // messages one by one, as the channel's budget allows: cosmetic, so it comes after the notice and the ticket.
      { kind: 'strip', ticketId: t.id, place: o.place, actions: [HANDOFF_ACTIONS.request] },
    ],
    turn: { author: o.asker.name, text: `(asked for a human${forUser}) ${o.reason}` },
  };
}

function end(
  ticket: Ticket,
  event: Extract<HandoffEvent, { kind: 'close' | 'timeOut' | 'cancel' }>,
  who: Who,
  now: number,
): Decision {
  const status = event.kind === 'close' ? 'closed' : event.kind === 'timeOut' ? 'timedout' : 'cancelled';
  const by = actorOf(who);
  const t: Ticket = { ...ticket, status, endedBy: by, endedAt: now };
  if (event.kind === 'cancel' && event.unreachable)
    return { ticket: t, notices: [toUser(t, UNREACHABLE_FOR_USER), stripCancel(t)] };
  const forUser =
    status === 'closed'
      ? // One message: the user is told the bot is back and asked for a rating (1-5 buttons).
        toUser(t, {
          text: `${closedText(t)}\n${ratingQuestion(t)}`,
          buttons: [1, 2, 3, 4, 5].map((n) => ({
            action: HANDOFF_ACTIONS.rate,
            label: String(n),
            value: `${t.id}:${n}`,
          })),
        })
      : toUser(t, status === 'cancelled' ? CANCELLED_FOR_USER : TIMED_OUT_FOR_USER);
  return {
    ticket: t,
    notices: [
      toThread(t, endedForAgents(t, who.kind === 'bridge' ? undefined : by, now)),
      forUser,
      refresh(t),
      stripCancel(t),
    ],
  };
}

function remind(ticket: Ticket, event: Extract<HandoffEvent, { kind: 'remind' }>, now: number): Decision | Refused {
  if (event.to === 'user') {
    if (ticket.toldLateAt !== undefined) return { refusal: 'told already', quiet: true };
    const t: Ticket = { ...ticket, toldLateAt: now };
    return { ticket: t, notices: [toUser(t, lateText(t, now))] };
  }
  // Reminder n of this wait: only if the ticket still waits the same wait with n - 1 sent, so a
  // second sweep (or instance) that read the same ticket is refused.
  const sent = ticket.reminders ?? 0;
  if (sent !== event.sent || (ticket.waitingSince ?? ticket.createdAt) !== event.since || sent >= MAX_REMINDERS)
    return { refusal: 'reminded already', quiet: true };
  const t: Ticket = { ...ticket, reminders: sent + 1, lastRemindAt: now };
  const last = sent + 1 === MAX_REMINDERS;
  return {
    ticket: t,
    notices: [
      toThread(
        t,
        `Reminder (${sent + 1} of ${MAX_REMINDERS}): ${t.user.name} has been waiting ${duration(event.waitedMs ?? now - event.since)}${event.officeTime ? ' in office hours' : ''} for an agent. Press Claim on the ticket to take it.`,
      ),
      refresh(t),
      // Still unclaimed after the last reminder: e-mailed too, owed with the reminder in one step.
      ...(last && event.mails ? [{ kind: 'mail', ticketId: t.id, reason: 'unclaimed' } as const] : []),
    ],
  };
}

/** Whether a decision ended the ticket (the conversation goes back to the bot). */
export function ends(before: Ticket | undefined, after: Ticket): boolean {
  return before !== undefined && !isEnded(before.status) && isEnded(after.status);
}
