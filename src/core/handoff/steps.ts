/**
 * The steps of a ticket's life, one function each, as `decide` (decide.ts) runs them once the
 * permission table allowed the step: the ticket after it and the notices it owes, or a refusal
 * (a take-over whose ticket changed hands, a rating out of range). Pure, like `decide`.
 */
import type { Actor } from '../surface';
import { BRIDGE_ACTOR, type Decision, type EventOf, type Opening, type Refused, type Who } from './events';
import { HANDOFF_ACTIONS, MAX_REMINDERS, type Ticket } from './model';
import type { Notice, NoticeMessage } from './notice';
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
  TIMED_OUT_FOR_USER,
  UNREACHABLE_FOR_USER,
} from './wording';

export function actorOf(who: Who): Actor {
  return who.kind === 'bridge' ? BRIDGE_ACTOR : who.actor;
}

const toThread = (t: Ticket, msg: string | NoticeMessage): Notice => ({
  kind: 'toThread',
  ticketId: t.id,
  msg: typeof msg === 'string' ? { text: msg } : msg,
});
const toUser = (t: Ticket, msg: string | NoticeMessage): Notice => ({
  kind: 'post',
  ticketId: t.id,
  place: t.userPlace,
  msg: typeof msg === 'string' ? { text: msg } : msg,
});
/** Last where it stands: an edit the platform holds back (rate limits) must not keep anyone waiting. */
const refresh = (t: Ticket): Notice => ({ kind: 'refresh', ticketId: t.id });
const stripCancel = (t: Ticket): Notice => ({ kind: 'editNotice', ticketId: t.id, msg: { text: endedNotice(t) } });

export function open(o: Opening, now: number, who: Who): Decision {
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
    ...(o.office ? { office: { ...o.office } } : {}),
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

export function claim(ticket: Ticket, e: EventOf<'claim'>, who: Who): Decision {
  const by = actorOf(who);
  const t: Ticket = {
    ...ticket,
    status: 'claimed',
    claimedBy: by,
    claimedAt: e.at,
    claimWaitMs: e.at - (ticket.waitingSince ?? ticket.createdAt),
    firstClaimedAt: ticket.firstClaimedAt ?? e.at,
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

export function release(ticket: Ticket, e: EventOf<'release'>, who: Who): Decision {
  const by = actorOf(who);
  const { claimedBy: _c, claimedAt: _a, claimWaitMs: _w, lastRemindAt: _l, ...rest } = ticket;
  const t: Ticket = { ...rest, status: 'open', waitingSince: e.at, reminders: 0 };
  return {
    ticket: t,
    notices: [
      refresh(t),
      toThread(t, `${by.name} released this ticket: it is waiting again. Press Claim to take it.`),
      toUser(t, `${by.name} handed your request back to the team: someone else will pick it up here shortly.`),
    ],
  };
}

export function takeOver(ticket: Ticket, e: EventOf<'takeOver'>, who: Who): Decision | Refused {
  const previous = ticket.claimedBy;
  if (previous?.id !== e.from)
    return {
      refusal: `The ticket changed hands meanwhile (now ${previous?.name ?? 'nobody'}): nothing was taken over.`,
    };
  const by = actorOf(who);
  const t: Ticket = { ...ticket, claimedBy: by, claimedAt: e.at };
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

/** Close, time out, cancel: the thread goes back to the bot, both sides are told. */
export function end(ticket: Ticket, e: EventOf<'close' | 'timeOut' | 'cancel'>, who: Who): Decision {
  const status = e.kind === 'close' ? 'closed' : e.kind === 'timeOut' ? 'timedout' : 'cancelled';
  const by = actorOf(who);
  const t: Ticket = { ...ticket, status, endedBy: by, endedAt: e.at };
  if (e.kind === 'cancel' && e.unreachable)
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
      toThread(t, endedForAgents(t, who.kind === 'bridge' ? undefined : by, e.at)),
      forUser,
      refresh(t),
      stripCancel(t),
    ],
  };
}

export function remind(ticket: Ticket, e: EventOf<'remind'>): Decision | Refused {
  if (e.to === 'user') {
    if (ticket.toldLateAt !== undefined) return { refusal: 'told already', quiet: true };
    const t: Ticket = { ...ticket, toldLateAt: e.at };
    return { ticket: t, notices: [toUser(t, lateText(t, e.at))] };
  }
  // Reminder n of this wait: only if the ticket still waits the same wait with n - 1 sent, so a
  // second sweep (or instance) that read the same ticket is refused.
  const sent = ticket.reminders ?? 0;
  if (sent !== e.sent || (ticket.waitingSince ?? ticket.createdAt) !== e.since || sent >= MAX_REMINDERS)
    return { refusal: 'reminded already', quiet: true };
  const t: Ticket = { ...ticket, reminders: sent + 1, lastRemindAt: e.at };
  const last = sent + 1 === MAX_REMINDERS;
  return {
    ticket: t,
    notices: [
      toThread(
        t,
        `Reminder (${sent + 1} of ${MAX_REMINDERS}): ${t.user.name} has been waiting ${duration(e.waitedMs ?? e.at - e.since)}${e.officeTime ? ' in office hours' : ''} for an agent. Press Claim on the ticket to take it.`,
      ),
      refresh(t),
      // Still unclaimed after the last reminder: e-mailed too, owed with the reminder in one step.
      ...(last && e.mails ? [{ kind: 'mail', ticketId: t.id, reason: 'unclaimed' } as const] : []),
    ],
  };
}

/** The longest survey comment kept (the rest is cut). */
const MAX_COMMENT = 1000;

export function rate(ticket: Ticket, e: EventOf<'rate'>): Decision | Refused {
  if (!Number.isInteger(e.score) || e.score < 1 || e.score > 5) return { refusal: 'That rating button is not valid.' };
  if (ticket.rating !== undefined) return { refusal: `You already rated the help ${ticket.rating}/5. Thank you!` };
  const comment = e.comment?.trim().slice(0, MAX_COMMENT) || undefined;
  const t: Ticket = { ...ticket, rating: e.score, ratedAt: e.at, ...(comment ? { ratingComment: comment } : {}) };
  // The comment is the user's words: quoted as text for the agents (no markup or link of theirs goes live).
  const said = comment ? ` They wrote: ${asText(comment)}` : '';
  const line = `${t.user.name} rated the help ${e.score}/5.`;
  return {
    ticket: t,
    notices: [refresh(t), toThread(t, comment ? { text: `${asText(line)}${said}`, markdown: true } : line)],
    reply: `${closedText(t)}\nThank you! You rated the help ${e.score}/5.`,
  };
}

/** The claiming agent's message to the user. */
export function relay(ticket: Ticket, e: EventOf<'relay'>, who: Who): Decision {
  const by = actorOf(who);
  const t: Ticket = ticket.firstReplyAt === undefined ? { ...ticket, firstReplyAt: e.at } : { ...ticket };
  return {
    ticket: t,
    notices: [
      toUser(t, { text: `*${asText(by.name)} (agent):* ${asText(e.text)}${fileLines(e.files)}`, markdown: true }),
    ],
    turn: { author: `${by.name} (agent)`, text: e.text },
  };
}

/** A message in the ticket thread kept for the team; its writer learns why it reached no one. */
export function note(ticket: Ticket, _e: EventOf<'note'>, who: Who): Decision {
  const by = actorOf(who);
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

/** A message in the user's thread, to the ticket thread. */
export function forward(ticket: Ticket, e: EventOf<'forward'>, who: Who): Decision {
  const by = actorOf(who);
  return {
    ticket: { ...ticket },
    notices: [
      {
        kind: 'toThread',
        ticketId: ticket.id,
        msg: { text: `*${asText(by.name)}:* ${asText(e.text)}${fileLines(e.files)}`, markdown: true },
      },
    ],
    turn: { author: by.name, text: e.text },
  };
}
