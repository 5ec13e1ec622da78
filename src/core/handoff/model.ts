/** Handoff tickets as stored: the ticket itself plus indexes from both threads to it. */
import { z } from 'zod';
import { actorSchema, messageRefSchema, placeKey, placeSchema } from '../conversations/model';
import type { Place } from '../surface';

export const ticketSchema = z.object({
  id: z.string(),
  convId: z.string(),
  status: z.enum(['open', 'claimed', 'closed', 'cancelled']),
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
});
export type Ticket = z.infer<typeof ticketSchema>;

export const ticketKeys = {
  ticket: (id: string) => `ticket:${id}`,
  /** Present while a ticket is open or claimed: what the claim-timeout sweep walks. */
  open: (id: string) => `ticketopen:${id}`,
  openPrefix: 'ticketopen:',
  /** The user was told nobody has claimed it yet (once). */
  late: (id: string) => `ticketlate:${id}`,
  byThread: (thread: Place) => `ticketthread:${placeKey(thread)}`,
  byMessage: (ref: { place: Place; id: string }) => `ticketmsg:${placeKey(ref.place)}:${encodeURIComponent(ref.id)}`,
};

export const HANDOFF_ACTIONS = {
  request: 'handoff.request',
  claim: 'handoff.claim',
  close: 'handoff.close',
  cancel: 'handoff.cancel',
} as const;

export const DEFAULT_TALK_TO_HUMAN = 'Connecting you with a human agent — someone will reply here shortly.';
