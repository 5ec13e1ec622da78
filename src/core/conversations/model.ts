/**
 * What core keeps about conversations in the state store: zod schemas of the stored values (the
 * store hands back untyped JSON) and the keys they live under.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Json } from '../../state/store';
import { scoped, type ScopedKey } from '../../state/tenant-store';
import { type Place, SURFACE_NAMES } from '../surface';

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
});
export type StartedMark = z.infer<typeof startedMarkSchema>;

export type RetryRecord = z.infer<typeof retryRecordSchema>;

export const turnSchema = z.object({ author: z.string(), text: z.string(), at: z.number() });
export type Turn = z.infer<typeof turnSchema>;

/** A stable, short id of a conversation key: fits button values (Discord custom_id is 100 chars). */
export function placeKey(place: Place): string {
  return [place.surface, place.workspace, place.channel, place.thread ?? '-'].map(encodeURIComponent).join(':');
}

export function conversationIdOf(place: Place): string {
  return createHash('sha256').update(placeKey(place)).digest('base64url').slice(0, 16);
}

export const keys = {
  conversation: (convId: string) => `conv:${convId}`,
  session: (convId: string) => `conv:${convId}:session`,
  /** The chatbot the session was opened with (a tenant that connects another chatbot gets a new session). */
  sessionChatbot: (convId: string) => `conv:${convId}:session-chatbot`,
  transcript: (convId: string) => `conv:${convId}:transcript`,
  /** The open ticket of a conversation in handoff; absent while the bot answers. */
  handoff: (convId: string) => `conv:${convId}:handoff`,
  queue: (convId: string) => `convq:${convId}`,
  lease: (convId: string) => `convlease:${convId}`,
  /** Marks a conversation with queued work, so a sweep can find queues an instance left behind. */
  pending: (convId: string) => `convpending:${convId}`,
  pendingPrefix: 'convpending:',
  started: (convId: string, itemId: string) => `convstarted:${convId}:${itemId}`,
  /** Where the recent conversation was kept before tenants had their own part of the store (read until it expires). */
  recent: (place: Place, userId: string) =>
    `recent:${placeKey({ surface: place.surface, workspace: place.workspace, channel: place.channel })}:${encodeURIComponent(userId)}`,
  /** A Slack ts is unique only within its channel: the channel is part of the dedupe key. */
  seen: (place: Place, msgId: string) => `seen:${place.surface}:${place.workspace}:${place.channel}:${msgId}`,
  retry: (retryId: string) => `retry:${retryId}`,
  /** Set while a Retry is queued or streaming: a second press does nothing. */
  retrying: (retryId: string) => `retrying:${retryId}`,
};

/** Keys in a tenant's own part of the store (state/tenant-store.ts): relative to the place's workspace. */
export const tenantKeys = {
  /** A user's most recent conversation in a channel (for `/handoff` typed outside a thread). */
  recent: (place: Place, userId: string): ScopedKey => scoped('recent', place.channel, userId),
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
