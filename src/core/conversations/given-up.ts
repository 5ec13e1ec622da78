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
import { type ConvQueueItem, type ConvRef, type Conversation, convKeys, toJson } from './model';
import { convView } from './records';
import type { ItemProgress } from './started';
import type { TakenItem } from './worker';

export const GIVEN_UP_TEXT = "I couldn't answer this one; press Retry or ask again.";
export const GIVEN_UP_LINE = 'conversation: queue item given up after its last try; moved to the dead-letter list';

/**
 * Runs the item's try; a failure is left to the worker (the item stays queued, this try counted)
 * unless it was the last try: then the item is given up here without telling (what failed may be
 * what telling needs: the conversation's read, its surface), so it is never retried for ever.
 */
export async function givenUpOnLastFailure(
  ctx: CoreContext,
  ref: ConvRef,
  taken: TakenItem,
  item: ConvQueueItem,
  progress: ItemProgress,
  run: () => Promise<void>,
): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!progress.exhausted || taken.lease.lost.aborted) throw err;
    ctx.log.warn({ err, convId: ref.id, item: taken.raw.id }, 'conversation: the last try failed while giving up');
    await giveUpItem(ctx, ref, taken, item, progress);
  }
}

/** `tell`: the conversation and its surface, to tell the user in its thread (absent: not told). */
export async function giveUpItem(
  ctx: CoreContext,
  ref: ConvRef,
  taken: TakenItem,
  item: ConvQueueItem,
  progress: ItemProgress,
  tell?: { conv: Conversation; surface: SurfacePort },
): Promise<void> {
  const view = convView(ctx.store, ref);
  // The question again under a Retry button: a pressed Retry's own record, or a new one for a message.
  let retryId: string;
  if (item.kind === 'retry') {
    retryId = item.retryId;
    // The pressed Retry is over: its button works again.
    await view.delete(convKeys.retrying(retryId));
  } else {
    retryId = randomBytes(8).toString('hex');
    const record = { conv: ref.id, question: item.text, asker: { id: item.actor.id, name: item.actor.name } };
    await taken.lease.write([view.setWrite(convKeys.retry(retryId), toJson(record), RETRY_TTL_MS)]);
  }
  await view.push(convKeys.deadLetters, {
    conv: ref.id,
    item: taken.raw.id,
    value: taken.raw.value,
    tries: progress.tries,
    at: ctx.now(),
  });
  ctx.log.error({ convId: ref.id, item: taken.raw.id, tries: progress.tries }, GIVEN_UP_LINE);
  if (!tell) return progress.done();
  const { conv, surface } = tell;
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
