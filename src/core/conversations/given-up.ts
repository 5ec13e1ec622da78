/**
 * A queue item given up: every worker that took it failed before its answer started (it died, or
 * the item's handling threw), MAX_ITEM_TRIES times (the count is in the item's started mark, in the
 * store, so a restart does not reset it). The user is told in the thread, with a Retry button, and
 * the item is moved aside to the tenant's dead-letter list with one log line: never lost silently,
 * never tried for ever.
 */
import { randomBytes } from 'node:crypto';
import type { CoreContext } from '../context';
import type { OutMessage, SurfacePort } from '../surface';
import { ANSWER_RETRY_ACTION, RETRY_TTL_MS } from './answer-turn';
import { type ConvQueueItem, type Conversation, convKeys, convRef, toJson } from './model';
import { convView } from './records';
import type { ItemProgress } from './started';
import type { TakenItem } from './worker';

export const GIVEN_UP_TEXT = "I couldn't answer this one; press Retry or ask again.";
export const GIVEN_UP_LINE = 'conversation: queue item given up after its last try; moved to the dead-letter list';

export async function giveUpItem(
  ctx: CoreContext,
  conv: Conversation,
  taken: TakenItem,
  item: ConvQueueItem,
  progress: ItemProgress,
  surface: SurfacePort,
): Promise<void> {
  const ref = convRef(conv);
  const view = convView(ctx.store, ref);
  // The question again under a Retry button: a pressed Retry's own record, or a new one for a message.
  let retryId: string;
  if (item.kind === 'retry') {
    retryId = item.retryId;
    // The pressed Retry is over: its button works again.
    await view.delete(convKeys.retrying(retryId));
  } else {
    retryId = randomBytes(8).toString('hex');
    const record = { conv: conv.id, question: item.text, asker: { id: item.actor.id, name: item.actor.name } };
    await taken.lease.write([view.setWrite(convKeys.retry(retryId), toJson(record), RETRY_TTL_MS)]);
  }
  await view.push(convKeys.deadLetters, {
    conv: conv.id,
    item: taken.raw.id,
    value: taken.raw.value,
    tries: progress.tries,
    at: ctx.now(),
  });
  ctx.log.error({ convId: conv.id, item: taken.raw.id, tries: progress.tries }, GIVEN_UP_LINE);
  const told: OutMessage = {
    text: GIVEN_UP_TEXT,
    buttons: [{ action: ANSWER_RETRY_ACTION, label: 'Retry', value: retryId }],
  };
  // Into the placeholder an earlier try left, so no typing mark stays behind.
  const placeholder = progress.takeLeftPlaceholder();
  await (placeholder ? surface.edit(placeholder, told) : surface.post(conv.place, told)).catch((err: unknown) =>
    ctx.log.warn({ err, convId: conv.id }, 'conversation: could not tell the user an item was given up'),
  );
  await progress.done();
}
