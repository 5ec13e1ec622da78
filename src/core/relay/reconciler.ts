/**
 * The reconciler: brings one answer's chat messages to what its segmenter says they should show,
 * one platform call at a time through the surface's gateway (so at most one call is in flight per
 * message). Each call reads the layout when it actually goes out (`SendOptions.latest`), so a call
 * that waited for budget carries all the text that came meanwhile (coalescing).
 *
 * It owns the timing the segmenter leaves out: the least gap between two interims of a message, the
 * wait for an imminent seal, a native stream's expiry (rotated to a new message), and the retries
 * of failed calls (a final is given up after `finalAttempts`).
 */
import type { Logger } from 'pino';
import {
  isPlatformRateLimit,
  type MessageRef,
  type NativeStream,
  type OutMessage,
  type Person,
  type Place,
  type Priority,
  type StreamingPort,
  type BudgetPort,
  type SurfacePort,
} from '../surface';
import type { InflightRecord } from './inflight';
import { AnswerMessage } from './message';
import { type Ending, messagesOf, type Segmenter } from './segmenter';
import type { Wake } from './wake';
import type { LinkTrust } from '../text/links';

export interface ReconcilerOptions {
  /** Least time between two interim updates of one message (the budget may space them more). */
  minInterimIntervalMs: number;
  /** Rotate a native stream to a new message this long before it expires. */
  nativeExpiryMarginMs: number;
  /** Tries of one final (non-rate-limit) platform call before the message is given up. */
  finalAttempts: number;
}

export interface ReconcilerDeps {
  surface: SurfacePort;
  place: Place;
  /** Whom the answer is for: native streams are addressed to them. */
  for?: Person;
  /** Already posted by the caller: message 0. */
  placeholder?: MessageRef;
  /** New messages start as native streams (the caller's decision; see RelayRequest.native). */
  native: boolean;
  seg: Segmenter;
  ending: Ending;
  /** Which links of the answer show under their label (RelayRequest.links). */
  links: LinkTrust;
  /** Bumped by whoever changes the segmenter (new text, the end): the loop looks again. */
  wake: Wake;
  /** Names this answer's calls in the gateway (coalescing, promotion, reservation). */
  coalesceKey: string;
  answerKey: string;
  log: Logger;
  now: () => number;
  options: ReconcilerOptions;
  /** A message changed on the platform (the caller saves its in-flight record). */
  changed: () => void;
}

const MAX_INTERIM_FAILURES = 5;

/** One answer's messages, brought to its segmenter's view. */
export class Reconciler {
  private readonly surface: SurfacePort;
  /** The surface's budgets and native streaming, resolved once (streaming only where this answer may stream). */
  private readonly budgets: BudgetPort;
  private readonly streaming: StreamingPort | undefined;
  private readonly seg: Segmenter;
  private readonly wake: Wake;
  private readonly ending: Ending;
  private readonly coalesceKey: string;
  private readonly opts: ReconcilerOptions;
  private readonly slots: AnswerMessage[] = [];
  /** New messages start as native streams (until the surface refuses or a stream fails). */
  private nativeMode: boolean;
  /** Failed posts of a message the answer's end needs (a final), and whether they are given up. */
  private createFailures = 0;
  private createGaveUp = false;
  private releaseFinal: () => void = () => undefined;
  /** Halted (the answer was dropped): no call is made from now on, and one waiting for budget fails. */
  private halted = false;
  /** The last platform failure (the answer's result reports it). */
  lastError: unknown;

  constructor(private readonly deps: ReconcilerDeps) {
    this.surface = deps.surface;
    this.seg = deps.seg;
    this.wake = deps.wake;
    this.ending = deps.ending;
    this.coalesceKey = deps.coalesceKey;
    this.opts = deps.options;
    this.budgets = deps.surface.budgets;
    this.streaming = deps.native && deps.placeholder === undefined ? deps.surface.streaming : undefined;
    this.nativeMode = this.streaming !== undefined;
    if (deps.placeholder)
      this.slots.push(new AnswerMessage(deps.placeholder, { text: '', markdown: true, typing: true }));
  }

  /** The answer's messages, in order. */
  get messages(): MessageRef[] {
    return this.slots.map((s) => s.ref);
  }

  /** What each message shows now, for the in-flight record. */
  get shown(): InflightRecord['messages'] {
    return this.slots.map((m) => m.record);
  }

  /** A waiting interim of this answer goes as a final (its cut is decided, or the answer ended). */
  promote(): void {
    this.budgets.promote(this.coalesceKey);
  }

  /**
   * Until the answer's final call is done, interims on the shared budget leave a token for it, and
   * share that budget's rate with the other answers on it (see interimSpacingMs). Registered on the
   * budget the message's edits spend now: a live native stream's are its appends, so the streams
   * that append share the append budget evenly instead of the first ones spending it all.
   */
  reserveFinal(): void {
    const previous = this.releaseFinal;
    // Registered before the old one goes, so the answer keeps its place (and interim rhythm).
    this.releaseFinal = this.budgets.reserveFinal(this.deps.place, this.coalesceKey);
    previous();
  }

  /**
   * Makes no platform call from now on: the loop ends, and a call already waiting for budget fails
   * when it would go out (it reads the layout then, see `layout`).
   */
  halt(): void {
    this.halted = true;
    this.wake.bump();
  }

  /** Gives back the final call reserved for this answer (see reserveFinal). */
  release(): void {
    this.releaseFinal();
  }

  private get now(): number {
    return this.deps.now();
  }

  /**
   * How long slot's next interim must wait here: the least interval between two of its interims.
   * The surface's gateway spaces interims further by the budget's plan (see reserveFinal).
   */
  private interimGap(slot: AnswerMessage): number {
    return slot.lastInterimAt + this.opts.minInterimIntervalMs - this.now;
  }

  // ---- what the messages should show ------------------------------------------------------------

  /**
   * The live message's piece ends where it stands. An interim of this answer waiting for budget now
   * carries a sealing edit (it reads the layout when it runs): a final, and the next message's post
   * waits behind it.
   */
  private sealShown(shown: number): void {
    this.seg.sealShown(shown);
    this.promote();
  }

  /** A native stream about to expire is finished at a natural cut within what it already shows. */
  private rotateExpiring(): void {
    const live = this.slots[this.seg.finishedCount];
    const expiresAt = live?.expiresAt;
    if (expiresAt === undefined || this.slots.length !== this.seg.finishedCount + 1) return;
    if (this.now < expiresAt - this.opts.nativeExpiryMarginMs) return;
    // Nothing shown yet: an empty message would be left behind; the idle timeout ends such a stream.
    if (live.streamedChars === 0) return;
    this.sealShown(live.streamedChars);
  }

  private layout(): OutMessage[] {
    // Read by every call of this answer when it goes out: a halted answer's call goes nowhere.
    if (this.halted) throw new Error('the answer was dropped');
    const live = this.slots[this.seg.finishedCount];
    const native = live ? live.isNative : this.nativeMode;
    return messagesOf(this.seg.view(native), this.ending, this.deps.links);
  }

  // ---- bringing the messages there ---------------------------------------------------------------

  async run(): Promise<void> {
    for (;;) {
      if (this.halted) return;
      const seen = this.wake.current;
      if (this.seg.streaming) {
        if (this.seg.settle(this.now)) this.promote();
        this.rotateExpiring();
      }
      const layout = this.layout();
      const terminal = !this.seg.streaming;
      const index = this.nextIndex(layout);
      if (index === undefined) {
        if (terminal) return;
        const waits = [this.expiryWaitMs(), this.seg.holdWaitMs(this.now)].filter((w): w is number => w !== undefined);
        await this.wake.wait(seen, waits.length > 0 ? Math.min(...waits) : undefined);
        continue;
      }
      const want = layout[index];
      if (!want) continue;
      const slot = this.slots[index];
      // A new message is never held back: the user must see the bot is on it.
      const priority: Priority = slot && want.typing && !terminal ? 'interim' : 'final';
      if (slot && priority === 'interim' && !slot.isNative && index === this.seg.finishedCount) {
        const wait = this.seg.interimWaitMs(this.now);
        if (wait > 0) {
          // Text that arrives meanwhile seals the message: its sealing edit then shows it all at once.
          await this.wake.wait(seen, wait);
          continue;
        }
      }
      if (slot && priority === 'interim') {
        const gap = this.interimGap(slot);
        if (gap > 0) {
          // Woken by new text too: it may seal this message, whose final (and the next message's
          // post) must not wait for an interim's turn.
          await this.wake.wait(seen, gap);
          continue;
        }
      }
      await this.step(index, priority);
    }
  }

  private nextIndex(layout: OutMessage[]): number | undefined {
    for (let i = 0; i < layout.length; i++) {
      const slot = this.slots[i];
      const want = layout[i];
      if (!want) continue;
      if (!slot) return this.createGaveUp ? undefined : i;
      if (slot.gaveUp) continue;
      if (slot.failures >= MAX_INTERIM_FAILURES && want.typing) continue;
      // Not edited while it may still stream: its final call stops it.
      if (slot.unstopped && want.typing) continue;
      if (!slot.inSync(want)) return i;
    }
    return undefined;
  }

  private expiryWaitMs(): number | undefined {
    const expiresAt = this.slots[this.slots.length - 1]?.expiresAt;
    if (expiresAt === undefined) return undefined;
    return Math.max(0, expiresAt - this.opts.nativeExpiryMarginMs - this.now);
  }

  /** Waits `ms`, or less if the answer finishes or is interrupted meanwhile. */
  private async phaseOrDelay(ms: number): Promise<void> {
    const deadline = this.now + ms;
    while (this.seg.streaming && !this.halted) {
      const left = deadline - this.now;
      if (left <= 0) return;
      const seen = this.wake.current;
      await this.wake.wait(seen, left);
    }
  }

  private async step(index: number, priority: Priority): Promise<void> {
    const creating = this.slots[index] === undefined;
    const op = creating ? 'post' : 'edit';
    try {
      await (creating ? this.create(index, priority) : this.sync(index, priority));
      const slot = this.slots[index];
      if (slot) slot.failures = 0;
      this.deps.changed();
    } catch (err) {
      if (this.halted) return;
      this.lastError = err;
      const slot = this.slots[index];
      const terminal = !this.seg.streaming;
      this.deps.log.warn({ err, answerKey: this.deps.answerKey, index, op }, 'relay platform call failed');
      if (!slot) {
        // The scheduler's retries of a rate-limited native start are spent: post and edit instead.
        if (creating && this.nativeMode && isPlatformRateLimit(err)) this.nativeMode = false;
        if (terminal && ++this.createFailures >= this.opts.finalAttempts) this.createGaveUp = true;
        else await this.phaseOrDelay(this.opts.minInterimIntervalMs);
        return;
      }
      slot.failures++;
      if (slot.isNative) {
        // A native stream that failed is appended to no more; the rest of the answer is posted and edited.
        slot.streamFailed();
        this.nativeMode = false;
        this.reserveFinal();
        // A failed append while streaming: the message keeps what it shows (appends end at settled
        // natural cuts) and is finished now, rather than when the whole answer is.
        const live = index === this.seg.finishedCount && index === this.slots.length - 1;
        if (!terminal && live && slot.streamedChars > 0) {
          this.sealShown(slot.streamedChars);
          this.wake.bump();
        }
      }
      if (terminal && slot.failures >= this.opts.finalAttempts) slot.gaveUp = true;
      else if (!terminal) await this.phaseOrDelay(this.opts.minInterimIntervalMs);
    }
  }

  /** The send options of one call of this answer; `latest` is read when the call goes out. */
  private sendOpts(priority: Priority, latest: () => OutMessage) {
    return { priority, coalesceKey: this.coalesceKey, latest };
  }

  /** Posts message `index` (a native stream when the surface offers one), with the layout as it is when it goes. */
  private async create(index: number, priority: Priority): Promise<void> {
    if (this.slots[index]) return;
    if (!this.layout()[index]) return;
    await this.firstWords(index);
    if (this.halted) return;
    const want = this.layout()[index];
    if (!want) return;
    const streaming = this.nativeMode ? this.streaming : undefined;
    if (streaming && want.typing) {
      let stream: NativeStream | undefined;
      // The stream starts with what the message shows when the start goes out (a retry after a 429
      // reads it again): only settled whole words, as a stream cannot take text back.
      let first = want.text;
      const latest = (): OutMessage => {
        const now = this.layout()[index];
        if (now?.typing) first = now.text;
        return { text: first, markdown: true, typing: now?.typing ?? true };
      };
      try {
        stream = await streaming.startNativeStream(
          this.deps.place,
          { text: want.text, markdown: true, typing: true },
          { latest, ...(this.deps.for ? { for: this.deps.for } : {}) },
        );
      } catch (err) {
        // The gateway's retries of a rate-limited start are spent: post and edit instead (see step).
        if (isPlatformRateLimit(err)) throw err;
        this.deps.log.info({ err }, 'native streaming refused; using post and edit');
      }
      if (stream) {
        this.slots[index] = new AnswerMessage(stream.ref, { text: first, markdown: true, typing: true }, stream);
        this.reserveFinal();
        return;
      }
      if (this.halted) return;
      this.nativeMode = false;
    }
    let sent = want;
    const ref = await this.surface.post(
      this.deps.place,
      want,
      this.sendOpts(priority, () => (sent = this.layout()[index] ?? want)),
    );
    this.slots[index] = new AnswerMessage(ref, sent);
  }

  /**
   * An empty streaming message waits, up to the surface's `firstWordsWaitMs`, for the answer's first
   * words (or its end), so that it goes up showing them: a partial text on the post's own budget
   * instead of an edit later. Woken by the segmenter's changes, not by polling.
   */
  private async firstWords(index: number): Promise<void> {
    const maxMs = this.budgets.firstWordsWaitMs;
    const until = this.now + maxMs;
    for (;;) {
      if (this.halted) return;
      const seen = this.wake.current;
      const now = this.layout()[index];
      const empty = now !== undefined && now.typing === true && now.text.length === 0 && (now.cards?.length ?? 0) === 0;
      const left = until - this.now;
      if (!empty || left <= 0) return;
      await this.wake.wait(seen, left);
    }
  }

  /** Brings message `index` to the layout as it is when the call goes out (coalescing). */
  private async sync(index: number, priority: Priority): Promise<void> {
    const message = this.slots[index];
    const want = this.layout()[index];
    if (!message || !want) return;
    await message.bringTo(want, {
      surface: this.surface,
      coalesceKey: this.coalesceKey,
      priority,
      latest: () => this.layout()[index],
      now: () => this.now,
    });
  }
}
