/**
 * Crash marks: what a worker writes when it starts a queue item (keys.started), so that a worker
 * taking the thread over after a crash knows how far the dead one got. Answered already (`done`),
 * handed to the relay (`answerKey`: the relay's recovery owns that answer), or lost before the relay
 * (answered again here, in the placeholder it left).
 */
import type { FencedWrite, Json } from '../../state/store';
import type { CoreContext } from '../context';
import type { MessageRef } from '../surface';
import { convKeys, legacyKeys, parseStored, startedMarkSchema, toJson, type ConvRef, type StartedMark } from './model';
import { convView } from './records';
import type { TakenItem } from './worker';

const MARK_TTL_MS = 24 * 60 * 60 * 1000;

/** Workers that may take one queue item before it is given up (it failed before its answer started). */
export const MAX_ITEM_TRIES = 3;

/** Where an item's mark is kept: in the tenant's part, or (an item of the old layout's queue) at its old key. */
interface MarkSlot {
  get(): Promise<Json | undefined>;
  /** The mark written, as one write of a fenced batch (under the thread's lease). */
  write(value: Json): FencedWrite;
  setIfAbsent(value: Json): Promise<boolean>;
  remove(): Promise<void>;
}

function markSlot(ctx: CoreContext, ref: ConvRef, item: TakenItem): MarkSlot {
  if (item.legacy) {
    // A dead instance of the version before wrote its mark there, under that queue's item ids.
    const key = legacyKeys.started(ref.id, item.raw.id);
    return {
      get: () => ctx.store.get(key),
      write: (value) => ({ op: 'set', key, value, ttlMs: MARK_TTL_MS }),
      setIfAbsent: (value) => ctx.store.setIfAbsent(key, value, MARK_TTL_MS),
      remove: () => ctx.store.delete(key),
    };
  }
  const view = convView(ctx.store, ref);
  const key = convKeys.started(ref.id, item.raw.id);
  return {
    get: () => view.get(key),
    write: (value) => view.setWrite(key, value, MARK_TTL_MS),
    setIfAbsent: (value) => view.setIfAbsent(key, value, MARK_TTL_MS),
    remove: () => view.delete(key),
  };
}

/**
 * How far the item being handled got, noted in its started mark as it goes. One per item: the turn
 * that answers it carries it.
 */
export class ItemProgress {
  private resumed = false;

  constructor(
    private readonly ctx: CoreContext,
    private readonly item: TakenItem,
    private readonly slot: MarkSlot,
    private readonly mark: StartedMark,
  ) {}

  /** How many workers took the item, this one included (kept in its mark). */
  get tries(): number {
    return this.mark.tries ?? 1;
  }

  /** Every try of the item failed before its answer started: it is given up, not tried again. */
  get exhausted(): boolean {
    return this.tries > MAX_ITEM_TRIES;
  }

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

  /** The item's mark deleted (its tenant left: nothing of it is written again). */
  async forget(): Promise<void> {
    await this.slot.remove();
  }

  /**
   * The item is over (answered, refused or failed). Nothing is written: the worker acks the item
   * under the thread's lease next, and a mark is read only while its item is still queued.
   */
  async done(): Promise<void> {}

  private async note(note: Pick<StartedMark, 'placeholder'> | Pick<StartedMark, 'answerKey'>): Promise<void> {
    Object.assign(this.mark, note);
    await this.item.lease.write([this.slot.write(toJson(this.mark))]);
  }
}

/**
 * Marks the item started by this instance and hands back its progress; undefined when an earlier
 * worker (dead: this one holds the lease it lost) got it to the relay or answered it, which leaves
 * it to recovery.
 */
export async function startItem(ctx: CoreContext, ref: ConvRef, item: TakenItem): Promise<ItemProgress | undefined> {
  const slot = markSlot(ctx, ref, item);
  const convId = ref.id;
  const itemId = item.raw.id;
  const mark: StartedMark = { owner: ctx.config.instanceId, done: false, tries: 1 };
  if (!(await slot.setIfAbsent(toJson(mark)))) {
    const earlier = parseStored(startedMarkSchema, await slot.get());
    if (!earlier || earlier.done || earlier.answerKey !== undefined) {
      ctx.log.warn(
        { convId, item: itemId, answerKey: earlier?.answerKey },
        'conversation: item started by an earlier worker; left to recovery',
      );
      return undefined;
    }
    mark.tries = (earlier.tries ?? 1) + 1;
    // Its last try gone too: the engine gives it up (one line there).
    if (mark.tries <= MAX_ITEM_TRIES) {
      ctx.log.warn(
        { convId, item: itemId, owner: earlier.owner, tries: mark.tries },
        'conversation: item lost by an earlier worker before the relay took it; answering it again',
      );
    }
    if (earlier.placeholder) mark.placeholder = earlier.placeholder;
    await item.lease.write([slot.write(toJson(mark))]);
  }
  return new ItemProgress(ctx, item, slot, mark);
}
