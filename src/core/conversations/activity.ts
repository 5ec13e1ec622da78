/**
 * Activity in a conversation: its record, chat session and transcript live another retention period.
 *
 * A conversation this instance has just created is left as it is: its record was written a moment
 * ago with the full retention, and nothing else of it exists yet (its first turn writes its session,
 * transcript and lead facts, each with the retention), so a touch would be six commands that change
 * nothing. Unless the store may still hold records of the old layout, which a touch moves.
 */
import { oldLayoutMayRemain } from '../../state/old-layout';
import type { CoreContext } from '../context';
import { convKeys, convRef, toJson, type Conversation } from './model';
import { convView } from './records';
import { touchSession } from './sessions';
import { touchTranscript } from './transcript';

/** Conversations created here, by object, until their first item is queued (then: plain activity). */
export class FreshConversations {
  private readonly fresh = new WeakSet<Conversation>();

  /** `conv` was written just now by this instance (it won the conversation's first write). */
  created(conv: Conversation): Conversation {
    this.fresh.add(conv);
    return conv;
  }

  /** Restarts the conversation's retention, unless it was created just now (see above). */
  async touch(ctx: Pick<CoreContext, 'store'>, conv: Conversation, retentionMs: number): Promise<void> {
    const justMade = this.fresh.delete(conv);
    if (justMade && !oldLayoutMayRemain(ctx.store)) return;
    const ref = convRef(conv);
    await convView(ctx.store, ref).set(convKeys.conversation(conv.id), toJson(conv), retentionMs);
    await touchSession(ctx, ref, retentionMs);
    await touchTranscript(ctx.store, ref, retentionMs);
  }
}
