/**
 * What core keeps about conversations in the state store: zod schemas of the stored values (the
 * store hands back untyped JSON) and the keys they live under.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Json } from '../../state/store';
import { scoped, scopedPrefix, type ScopedKey } from '../../state/tenant-store';
import { type Place, SURFACE_NAMES } from '../surface';
import { type RequestTenant, recordedTenant } from '../tenants/tenant';

export const placeSchema = z.object({
  surface: z.enum(SURFACE_NAMES),
  workspace: z.string(),
  channel: z.string(),
  thread: z.string().optional(),
});

export const actorSchema = z.object({ id: z.string(), name: z.string(), isAdmin: z.boolean() });

export const messageRefSchema = z.object({ place: placeSchema, id: z.string() });

export const attachmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  mime: z.string().optional(),
  size: z.number().optional(),
  url: z.string().optional(),
  workspace: z.string().optional(),
});

export const conversationSchema = z.object({
  id: z.string(),
  place: placeSchema,
  createdAt: z.number(),
  /** Who started it: the one user (besides admins) who may hand it to a human or cancel that. */
  asker: actorSchema.optional(),
});
export type Conversation = z.infer<typeof conversationSchema>;

/** One unit of work on a conversation's queue, answered (or relayed) in push order. */
export const queueItemSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('message'),
    msgId: z.string(),
    actor: actorSchema,
    text: z.string(),
    attachments: z.array(attachmentSchema),
  }),
  z.object({ kind: z.literal('retry'), retryId: z.string(), actor: actorSchema }),
]);
export type ConvQueueItem = z.infer<typeof queueItemSchema>;

export const askTypeSchema = z.enum(['Text', 'Image', 'Audio', 'Video']);

/** Everything needed to ask the same question again (Retry): files are not uploaded twice. */
export const retryRecordSchema = z.object({
  conv: z.string(),
  question: z.string(),
  chatAskType: askTypeSchema.optional(),
  fileIds: z.array(z.number()).optional(),
  /** Who asked: only they (or an admin) may press Retry. Absent on records from before this field. */
  asker: z.object({ id: z.string(), name: z.string() }).optional(),
});
/**
 * What a worker wrote when it started a queue item (keys.started): who, how far it got, and the
 * placeholder it posted. A worker that finds an item started by a dead one reads this to decide:
 * answered already (`done`), handed to the relay (`answerKey` set: the relay's recovery marks that
 * answer interrupted with Retry, or already has), or lost before the relay (answered again here, in
 * the placeholder it left).
 */
export const startedMarkSchema = z.object({
  owner: z.string(),
  done: z.boolean().default(false),
  placeholder: messageRefSchema.optional(),
  /**
   * The relay's answer key, written before the item is handed to the relay. It outlives the relay's
   * in-flight record (which recovery deletes once it has marked the answer), so a takeover cannot
   * mistake an answer recovery already marked for one that was never started.
   */
  answerKey: z.string().optional(),
  /**
   * How many workers have taken the item, this one included: one that keeps failing before its
   * answer starts (every worker that takes it dies or fails before the relay) is given up after
   * MAX_ITEM_TRIES. Absent on marks from before the count: one.
   */
  tries: z.number().int().positive().optional(),
});
export type StartedMark = z.infer<typeof startedMarkSchema>;

export type RetryRecord = z.infer<typeof retryRecordSchema>;

export const turnSchema = z.object({
  author: z.string(),
  text: z.string(),
  at: z.number(),
  /**
   * A chatbot answer as the chat showed it: Markdown whose links the link rules did not trust are
   * untrusted spans (core/text/links.ts). The ticket shows this, so an answer reads as it did in the
   * chat; `text` stays the service's words (lead facts, mail). Absent on people's turns.
   */
  shown: z.string().optional(),
});
export type Turn = z.infer<typeof turnSchema>;

/** A stable, short id of a conversation key: fits button values (Discord custom_id is 100 chars). */
export function placeKey(place: Place): string {
  return [place.surface, place.workspace, place.channel, place.thread ?? '-'].map(encodeURIComponent).join(':');
}

export function conversationIdOf(place: Place): string {
  return createHash('sha256').update(placeKey(place)).digest('base64url').slice(0, 16);
}

/** A conversation as the store reaches it: its tenant's part of the store, and its id there. */
export interface ConvRef {
  readonly tenant: RequestTenant;
  readonly id: string;
}

/** The ref of the conversation at `place` (its id is the place's hash, its tenant the place's). */
export function convRefAt(place: Place, id = conversationIdOf(place)): ConvRef {
  return { tenant: recordedTenant(place), id };
}

/** The ref of a stored conversation, or of a ticket's (`convId` of the thread `userPlace`). */
export function convRef(conv: Pick<Conversation, 'id' | 'place'>): ConvRef {
  return convRefAt(conv.place, conv.id);
}

/**
 * A conversation's records, in its tenant's part of the store (state/tenant-store.ts): relative keys,
 * read and written only through the tenant's view.
 */
export const convKeys = {
  conversation: (convId: string): ScopedKey => scoped('conv', convId),
  session: (convId: string): ScopedKey => scoped('conv', convId, 'session'),
  /** The chatbot the session was opened with (a tenant that connects another chatbot gets a new session). */
  sessionChatbot: (convId: string): ScopedKey => scoped('conv', convId, 'session-chatbot'),
  transcript: (convId: string): ScopedKey => scoped('conv', convId, 'transcript'),
  /** The open ticket of a conversation in handoff; absent while the bot answers. */
  handoff: (convId: string): ScopedKey => scoped('conv', convId, 'handoff'),
  /** The lead facts gathered from its turns (handoff/lead-store.ts). */
  lead: (convId: string): ScopedKey => scoped('conv', convId, 'lead'),
  /** Every conversation's records: `conv:<id>` and `conv:<id>:<record>`. */
  conversations: scopedPrefix('conv'),
  queue: (convId: string): ScopedKey => scoped('convq', convId),
  started: (convId: string, itemId: string): ScopedKey => scoped('convstarted', convId, itemId),
  /** The tenant's dead-letter list: queue items given up after MAX_ITEM_TRIES (kept for RETENTION_DAYS). */
  deadLetters: scoped('convdead'),
  /** Who asked in a conversation from before its asker was kept on it (read only; nothing writes it now). */
  asker: (convId: string, userId: string): ScopedKey => scoped('convasker', convId, userId),
  /** A user's most recent conversation in a channel (for `/handoff` typed outside a thread). */
  recent: (place: Place, userId: string): ScopedKey => scoped('recent', place.channel, userId),
  /** A Slack ts is unique only within its channel: the channel is part of the dedupe key. */
  seen: (place: Place, msgId: string): ScopedKey => scoped('seen', place.channel, msgId),
  retry: (retryId: string): ScopedKey => scoped('retry', retryId),
  /** Set while a Retry is queued or streaming: a second press does nothing. */
  retrying: (retryId: string): ScopedKey => scoped('retrying', retryId),
};

/** Global on purpose (state/tenant-store.ts says why): one name per conversation, whoever's it is. */
export const infraKeys = {
  lease: (convId: string) => `convlease:${convId}`,
  /**
   * Marks a conversation with queued work, so a sweep can find queues an instance left behind. Its
   * value is the conversation's tenant (`pendingSchema`): the queue is in that tenant's part.
   */
  pending: (convId: string) => `convpending:${convId}`,
  pendingPrefix: 'convpending:',
};

/** The pending index's value; `1` (no tenant) was written before queues moved into the tenants' parts. */
export const pendingSchema = z.union([z.object({ surface: z.enum(SURFACE_NAMES), id: z.string() }), z.literal(1)]);

/**
 * Where each record was kept before tenants had their own part of the store. Read on upgrade only:
 * a record found here is moved into its tenant's part (records.ts), a queue here is still answered.
 */
export const legacyKeys = {
  conversation: (convId: string) => `conv:${convId}`,
  session: (convId: string) => `conv:${convId}:session`,
  sessionChatbot: (convId: string) => `conv:${convId}:session-chatbot`,
  transcript: (convId: string) => `conv:${convId}:transcript`,
  handoff: (convId: string) => `conv:${convId}:handoff`,
  lead: (convId: string) => `conv:${convId}:lead`,
  queue: (convId: string) => `convq:${convId}`,
  started: (convId: string, itemId: string) => `convstarted:${convId}:${itemId}`,
  asker: (convId: string, userId: string) => `convasker:${convId}:${encodeURIComponent(userId)}`,
  recent: (place: Place, userId: string) =>
    `recent:${placeKey({ surface: place.surface, workspace: place.workspace, channel: place.channel })}:${encodeURIComponent(userId)}`,
  seen: (place: Place, msgId: string) => `seen:${place.surface}:${place.workspace}:${place.channel}:${msgId}`,
  retry: (retryId: string) => `retry:${retryId}`,
  retrying: (retryId: string) => `retrying:${retryId}`,
};

/** Drops undefined members so a value fits the store's Json type. */
export function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** Reads and validates one stored value; a value of the wrong shape counts as absent (and is logged by callers). */
export function parseStored<S extends z.ZodTypeAny>(schema: S, value: Json | undefined): z.output<S> | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? (parsed.data as z.output<S>) : undefined;
}
