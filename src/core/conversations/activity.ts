/**
 * A conversation's first record, and activity in it (its record, chat session and transcript live
 * another retention period).
 *
 * A conversation this instance has just created is left as it is by the activity of its first item:
 * its record was written a moment ago with the full retention, and nothing else of it exists yet (its
 * first turn writes its session, transcript and lead facts, each with the retention), so a touch would
 * be six commands that change nothing. Unless the store may still hold records of the old layout,
 * which a touch moves.
 */
import { oldLayoutMayRemain } from '../../state/old-layout';
import type { CoreContext } from '../context';
import type { Actor, Place } from '../surface';
import { lastWritten } from './last-written';
import { convKeys, convRef, convRefAt, toJson, type Conversation } from './model';
import { convView, loadConversation } from './records';
import { touchSession } from './sessions';
import { touchTranscript } from './transcript';

type Ctx = Pick<CoreContext, 'store' | 'memory' | 'now'>;

/** Conversations created here, by object, until their first item is queued (then: plain activity). */
export class FreshConversations {
  private readonly fresh = new WeakSet<Conversation>();

  /**
   * The conversation of `place`; a new one is `starter`'s (its asker, kept as long as the
   * conversation). Its callers ask for a thread with no conversation found (a new `/ask` thread, a
   * first mention), so the write comes first (one command) and a record already there is read after
   * it; where records of the old layout may remain, the read comes first (it moves one it finds).
   */
  async ensure(ctx: Ctx, place: Place, starter: Actor, retentionMs: number): Promise<Conversation> {
    const ref = convRefAt(place);
    const known = oldLayoutMayRemain(ctx.store) ? await loadConversation(ctx.store, ref, retentionMs) : undefined;
    if (known) return known;
    const conv: Conversation = { id: ref.id, place, createdAt: ctx.now(), asker: starter };
    if (await convView(ctx.store, ref).setIfAbsent(convKeys.conversation(conv.id), toJson(conv), retentionMs)) {
      this.fresh.add(conv);
      // Its transcript and lead facts are not there yet: the first turn's appends need not read them
      // (a guess their compare-and-set checks: last-written.ts).
      const memo = lastWritten(ctx.memory);
      for (const key of [convKeys.transcript(conv.id), convKeys.lead(conv.id)]) memo.note(ref.tenant, key, undefined);
      return conv;
    }
    return (await loadConversation(ctx.store, ref, retentionMs)) ?? conv;
  }

  /** Whether this instance made `conv` just now (its first item not queued yet). */
  isNew(conv: Conversation): boolean {
    return this.fresh.has(conv);
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
