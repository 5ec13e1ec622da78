/**
 * A conversation answered in its channel as replies to the user's message (channel-replies.ts says
 * when): its place names that message as a thread marker, `reply:<message>`. Discord's ids are
 * numbers, so no thread's id is ever taken for one.
 */
import type { Place } from '../../core/surface';

const MARKER = 'reply:';

/** The place of a conversation answered as replies to `messageId` in its channel. */
export function replyPlace(guild: string, channel: string, messageId: string): Place {
  return { surface: 'discord', workspace: guild, channel, thread: `${MARKER}${messageId}` };
}

/** The message a reply place answers; undefined for any other place. */
export function repliedMessage(place: Place): string | undefined {
  return place.thread?.startsWith(MARKER) ? place.thread.slice(MARKER.length) : undefined;
}

/** A reply's `message_reference` (sent as no reply should the user have deleted the message meanwhile). */
export function replyReference(messageId: string | undefined): { message_reference?: object } {
  return messageId ? { message_reference: { message_id: messageId, fail_if_not_exists: false } } : {};
}
