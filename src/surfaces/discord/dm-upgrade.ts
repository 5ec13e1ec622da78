/**
 * The way up for a DM conversation begun while every DM shared one tenant ('@me'). Its place then
 * named the workspace '@me', so its id (a hash of the place) and its records (`conv:<id>`, its chat
 * session and the chatbot that opened it, transcript, lead facts) are another place's than those of
 * the same DM today (`@me:<DM channel>`). When a DM's marker is found at its old key, the
 * conversation it names is moved with it into the DM user's own part, under the id of today's place:
 * the chat goes on in the same session and nothing the user said is lost on upgrade. Nothing is
 * moved that is not this DM channel's own (the old place must name this channel and marker).
 */
import {
  type Conversation,
  conversationIdOf,
  conversationSchema,
  convKeys,
  legacyKeys,
  parseStored,
  toJson,
} from '../../core/conversations/model';
import type { Place } from '../../core/surface';
import { readMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { type ScopedKey, tenantPrefix } from '../../state/tenant-store';
import { DM_WORKSPACE, discordPart } from './records';

/** The records of a conversation that move with it, by today's key and its key at the old id. */
const MOVED: Array<[(id: string) => ScopedKey, (id: string) => string]> = [
  [convKeys.session, legacyKeys.session],
  [convKeys.sessionChatbot, legacyKeys.sessionChatbot],
  [convKeys.transcript, legacyKeys.transcript],
  [convKeys.lead, legacyKeys.lead],
];

/** Moves the conversation of `place` (a DM's, today's) from the part every DM shared, if it is there. */
export async function moveSharedDmConversation(store: StateStore, place: Place, ttlMs: number): Promise<void> {
  const shared = discordPart(store, DM_WORKSPACE);
  const sharedAt = (key: ScopedKey): string => `${tenantPrefix(shared.tenant)}${key}`;
  const oldPlace: Place = { ...place, workspace: DM_WORKSPACE };
  const [oldId, newId] = [conversationIdOf(oldPlace), conversationIdOf(place)];
  const view = discordPart(store, place.workspace);
  if ((await view.get(convKeys.conversation(newId))) !== undefined) return;
  const oldKeys = [sharedAt(convKeys.conversation(oldId)), legacyKeys.conversation(oldId)];
  let old: Conversation | undefined;
  for (const at of oldKeys) old ??= parseStored(conversationSchema, await store.get(at));
  if (!old || old.place.channel !== place.channel || old.place.thread !== place.thread) return;
  for (const [key, legacy] of MOVED)
    await readMoving(store, view, key(newId), [sharedAt(key(oldId)), legacy(oldId)], ttlMs);
  // The record names today's place and id: core finds it where it now reads.
  await view.setIfAbsent(convKeys.conversation(newId), toJson({ ...old, id: newId, place }), ttlMs);
  for (const at of oldKeys) await store.delete(at);
}
