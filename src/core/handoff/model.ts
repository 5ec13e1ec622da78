/** Handoff tickets as stored: the ticket itself plus indexes from both threads to it. */
import { z } from 'zod';
import { actorSchema, convRef, messageRefSchema, placeKey, placeSchema, type ConvRef } from '../conversations/model';
import type { Place } from '../surface';

export const ticketSchema = z.object({
  id: z.string(),
  convId: z.string(),
  /** open = Waiting; timedout = nobody claimed it after every reminder. */
  status: z.enum(['open', 'claimed', 'closed', 'cancelled', 'timedout']),
  user: actorSchema,
  /** The user's conversation thread. */
  userPlace: placeSchema,
  reason: z.string(),
  createdAt: z.number(),
  /** The ticket message in the handoff channel (root of the ticket thread), once posted. */
  root: messageRefSchema.optional(),
  thread: placeSchema.optional(),
  claimedBy: actorSchema.optional(),
  claimedAt: z.number().optional(),
  endedBy: actorSchema.optional(),
  endedAt: z.number().optional(),
  /** When the ticket last started waiting (creation, or a Release); reminders count from it. */
  waitingSince: z.number().optional(),
  /** How long the current wait lasted until its claim: a take-over keeps it, a release drops it. */
  claimWaitMs: z.number().optional(),
  /** The first claim (time to claim counts to it, whatever releases follow). */
  firstClaimedAt: z.number().optional(),
  /** The first claiming agent's message relayed to the user. */
  firstReplyAt: z.number().optional(),
  /** Reminders posted in the ticket thread during the current wait. */
  reminders: z.number().optional(),
  lastRemindAt: z.number().optional(),
  /** The user's notice with the Cancel button, so it loses the button once the ticket ends. */
  userNotice: messageRefSchema.optional(),
  userNoticeText: z.string().optional(),
  /** A link to the user's conversation, and its channel's name, found when the ticket opened. */
  userLink: z.string().optional(),
  userChannelName: z.string().optional(),
  /** A link to the ticket message itself (for the queue). */
  ticketLink: z.string().optional(),
  /** Satisfaction 1-5 given by the user after the close. */
  rating: z.number().int().min(1).max(5).optional(),
  ratedAt: z.number().optional(),
  /** What the user wrote with their rating (the survey's optional comment): their words, untrusted. */
  ratingComment: z.string().optional(),
  /** When the user was told that nobody has claimed the ticket yet (once per ticket). */
  toldLateAt: z.number().optional(),
  /**
   * Written, but not yet handed its conversation (the next store step): a crash in between leaves
   * a ticket nothing points to, which the figures skip and which expires. Any later change drops it.
   */
  opening: z.literal(true).optional(),
  /** Internal notes kept in the ticket thread (not relayed). */
  notes: z.number().optional(),
  /** Opened outside office hours (HANDOFF_HOURS): marked, and e-mailed to TalkToHumanEmail. */
  afterHours: z.literal(true).optional(),
  /**
   * The office it was opened in (its tenant's chatbot then, and whose it was): its e-mails and steps
   * follow that office only. A tenant that disconnected or left since has no office of this ticket
   * any more, so nothing of it is mailed to another office or to the operator.
   */
  office: z.object({ chatbotId: z.string(), kind: z.enum(['own', 'operator', 'shared']) }).optional(),
  /** Round-robin: the agent it is offered to now, since when, and the roster entries offered it so far. */
  offeredTo: actorSchema.optional(),
  offeredAt: z.number().optional(),
  offered: z.array(z.string()).optional(),
  /** Response target (HANDOFF_FIRST_REPLY_S): the 80% warning, and the escalation at 100%. */
  targetWarnedAt: z.number().optional(),
  escalatedAt: z.number().optional(),
  /** The "missed by" step (minutes) the ticket message was last refreshed for (response-target.ts). */
  missedShown: z.number().optional(),
});
export type Ticket = z.infer<typeof ticketSchema>;

/** A ticket's conversation: the user's thread (`userPlace`), in its tenant's part of the store. */
export function ticketConv(t: Pick<Ticket, 'convId' | 'userPlace'>): ConvRef {
  return convRef({ id: t.convId, place: t.userPlace });
}

export const ticketKeys = {
  ticket: (id: string) => `ticket:${id}`,
  /** Present while a ticket is open or claimed: what the claim-timeout sweep walks. */
  open: (id: string) => `ticketopen:${id}`,
  openPrefix: 'ticketopen:',
  /** Tickets from before `toldLateAt` marked the late notice with this key instead. */
  late: (id: string) => `ticketlate:${id}`,
  byThread: (thread: Place) => `ticketthread:${placeKey(thread)}`,
  byMessage: (ref: { place: Place; id: string }) => `ticketmsg:${placeKey(ref.place)}:${encodeURIComponent(ref.id)}`,
  /** Every ticket, for the queue and the figures. */
  prefix: 'ticket:',
};

export const HANDOFF_ACTIONS = {
  request: 'handoff.request',
  claim: 'handoff.claim',
  close: 'handoff.close',
  cancel: 'handoff.cancel',
  release: 'handoff.release',
  takeover: 'handoff.takeover',
  takeoverConfirm: 'handoff.takeover.confirm',
  rate: 'handoff.rate',
  /** Opens the satisfaction survey (a rating and a comment) where the surface shows forms. */
  survey: 'handoff.survey',
} as const;

/** The satisfaction survey's form (its state: the ticket id). */
export const HANDOFF_SURVEY_FORM = 'handoff.survey';

/** The state word a ticket shows first. */
export function stateWord(status: Ticket['status']): 'Waiting' | 'Claimed' | 'Closed' | 'Cancelled' | 'Timed out' {
  switch (status) {
    case 'open':
      return 'Waiting';
    case 'claimed':
      return 'Claimed';
    case 'closed':
      return 'Closed';
    case 'cancelled':
      return 'Cancelled';
    case 'timedout':
      return 'Timed out';
  }
}

export function isEnded(status: Ticket['status']): boolean {
  return status === 'closed' || status === 'cancelled' || status === 'timedout';
}

/** Most reminders one wait gets; the ticket times out one interval after the last. */
export const MAX_REMINDERS = 3;
export const DEFAULT_REMIND_MS = 300_000;

export const DEFAULT_TALK_TO_HUMAN = 'Connecting you with a human agent — someone will reply here shortly.';
