/**
 * What a ticket change owes the people involved: the notices `decide` returns and the outbox
 * (notices.ts) carries out. Stored as outbox intents, so parsed back with this schema.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Json, OutboxIntent } from '../../state/store';
import { actorSchema, placeSchema } from '../conversations/model';

const buttonSchema = z.object({
  action: z.string(),
  label: z.string(),
  value: z.string(),
  style: z.enum(['primary', 'danger']).optional(),
});
const noticeMessageSchema = z.object({
  text: z.string(),
  markdown: z.boolean().optional(),
  buttons: z.array(buttonSchema).optional(),
});
export type NoticeMessage = z.infer<typeof noticeMessageSchema>;

export const noticeSchema = z.discriminatedUnion('kind', [
  /**
   * A new message (in the user's thread). `keep: 'userNotice'` marks the user's "passed to the team"
   * notice: what it posted is kept on the ticket (its Cancel button is removed when the ticket ends).
   */
  z.object({
    kind: z.literal('post'),
    ticketId: z.string(),
    place: placeSchema,
    msg: noticeMessageSchema,
    keep: z.literal('userNotice').optional(),
  }),
  /** A new message in the ticket thread, wherever it is by then (it waits for the ticket message). */
  z.object({ kind: z.literal('toThread'), ticketId: z.string(), msg: noticeMessageSchema }),
  /** The ticket message posted in the handoff channel (the root of the ticket thread). */
  z.object({ kind: z.literal('open'), ticketId: z.string(), channel: placeSchema, title: z.string() }),
  /** The ticket message shown as the ticket is now (it waits for the ticket message). */
  z.object({ kind: z.literal('refresh'), ticketId: z.string() }),
  /** The user's notice replaced (losing its Cancel button), wherever it is by then. */
  z.object({ kind: z.literal('editNotice'), ticketId: z.string(), msg: noticeMessageSchema }),
  /** Buttons that no longer apply removed from a thread ("Talk to a human" once a human is asked for). */
  z.object({ kind: z.literal('strip'), ticketId: z.string(), place: placeSchema, actions: z.array(z.string()) }),
  /**
   * The ticket's e-mail (after hours; still unclaimed after its last reminder), owed to the mail
   * outbox under a stable id once the ticket message is posted (its link goes in). Decided with the
   * ticket change and stored in the same atomic step, so a restart between the two cannot lose it.
   */
  z.object({ kind: z.literal('mail'), ticketId: z.string(), reason: z.enum(['afterhours', 'unclaimed']) }),
  /** A private word to one agent in the ticket thread (the round-robin offer), once the thread exists and while the offer is theirs. */
  z.object({ kind: z.literal('tell'), ticketId: z.string(), to: actorSchema, msg: noticeMessageSchema }),
]);
export type Notice = z.infer<typeof noticeSchema>;

/** The outbox the ticket notices are kept in (StateStore intents). */
export const NOTICE_BOX = 'handoff-notices';

/** The stable ids of a ticket's opening notices (later notices wait for them). */
export const openingId = (ticketId: string): string => `${ticketId}:open`;
export const userNoticeId = (ticketId: string): string => `${ticketId}:notice`;

/**
 * Intents for the notices of one change, with ids that stay theirs for life. `stableId` names a
 * change that may be made again (a platform event redelivered, a queue item replayed): its notices
 * get the same ids each time, so the outbox keeps them once.
 */
export function noticeIntents(notices: Notice[], stableId?: string): OutboxIntent[] {
  const change = stableId ?? randomBytes(6).toString('hex');
  return notices.map((n, i) => ({ id: idOf(n, `${n.ticketId}:${change}:${i}`), value: n as unknown as Json }));
}

/** The opening notices have ids later notices can find; the others are per change. */
function idOf(n: Notice, perChange: string): string {
  if (n.kind === 'open') return openingId(n.ticketId);
  if (n.kind === 'post' && n.keep === 'userNotice') return userNoticeId(n.ticketId);
  return perChange;
}
