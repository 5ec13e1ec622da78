/**
 * Crash marks: what a worker writes when it starts a queue item (keys.started), so that a worker
 * taking the thread over after a crash knows how far the dead one got. Answered already (`done`),
 * handed to the relay (`answerKey`: the relay's recovery owns that answer), or lost before the relay
 * (answered again here, in the placeholder it left).
 */
import type { CoreContext } from '../context';
import type { MessageRef } from '../surface';
import { keys, parseStored, startedMarkSchema, toJson, type StartedMark } from './model';

const MARK_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How far the item being handled got, noted in its started mark as it goes. One per item: the turn
 * that answers it carries it.
 */
export class ItemProgress {
  private resumed = false;

  constructor(
    private readonly ctx: CoreContext,
    private readonly key: string,
    private readonly mark: StartedMark,
  ) {}

  /** The placeholder a lost item left behind, answered into by the worker that took it over (once). */
  takeLeftPlaceholder(): MessageRef | undefined {
    const ref = this.mark.placeholder;
    if (!ref || this.mark.owner !== this.ctx.config.instanceId || this.resumed) return undefined;
    this.resumed = true;
    return ref;
  }

  /** The placeholder posted for the answer: a worker that takes over answers in it. */
  notePlaceholder(placeholder: MessageRef): Promise<void> {
    return this.note({ placeholder });
  }

  /**
   * The relay's answer key, written before the relay gets the answer: from then on the relay's crash
   * recovery owns it, and the item must not be answered again.
   */
  noteAnswerKey(answerKey: string): Promise<void> {
    return this.note({ answerKey });
  }

  /** The item is over (answered, refused or failed). */
  async done(): Promise<void> {
    await this.ctx.store.set(this.key, toJson({ ...this.mark, done: true }), MARK_TTL_MS).catch(() => undefined);
  }

  private async note(note: Pick<StartedMark, 'placeholder'> | Pick<StartedMark, 'answerKey'>): Promise<void> {
    Object.assign(this.mark, note);
    await this.ctx.store.set(this.key, toJson(this.mark), MARK_TTL_MS);
  }
}

/**
 * Marks the item started by this instance and hands back its progress; undefined when an earlier
 * worker (dead: this one holds the lease it lost) got it to the relay or answered it, which leaves
 * it to recovery.
 */
export async function startItem(ctx: CoreContext, convId: string, itemId: string): Promise<ItemProgress | undefined> {
  const startedKey = keys.started(convId, itemId);
  const mark: StartedMark = { owner: ctx.config.instanceId, done: false };
  if (!(await ctx.store.setIfAbsent(startedKey, toJson(mark), MARK_TTL_MS))) {
    const earlier = parseStored(startedMarkSchema, await ctx.store.get(startedKey));
    if (!earlier || earlier.done || earlier.answerKey !== undefined) {
      ctx.log.warn(
        { convId, item: itemId, answerKey: earlier?.answerKey },
        'conversation: item started by an earlier worker; left to recovery',
      );
      return undefined;
    }
    ctx.log.warn(
      { convId, item: itemId, owner: earlier.owner },
      'conversation: item lost by an earlier worker before the relay took it; answering it again',
    );
    if (earlier.placeholder) mark.placeholder = earlier.placeholder;
    await ctx.store.set(startedKey, toJson(mark), MARK_TTL_MS);
  }
  return new ItemProgress(ctx, startedKey, mark);
}
