/**
 * The segmenter: one answer's text, cut into the pieces its messages carry. Pure: no timers, no I/O,
 * no platform. The clock is a value (`now`) passed to the few methods whose answer depends on how
 * long something has lasted; everything else depends on the text alone.
 *
 * State:
 * - `text`: everything streamed so far (deltas joined);
 * - the **finished** pieces: texts of the messages whose cut is decided (sealed), joined a prefix of
 *   `text`; the **live** piece is the rest, the last message while the answer streams;
 * - `floor`: a cut committed for the live piece (it ends no earlier), after settled text stayed
 *   hidden behind its visible end for `maxHoldMs` (`held`: since when);
 * - `sealDueBy`: when an interim held back for an imminent seal goes anyway;
 * - the phase: streaming, complete (all pieces of the final answer) or interrupted (with the reason).
 *
 * In: `push(fragment)`, `catchUp(partial)`, `settle(now)` (seals decided cuts, commits a floor),
 * `sealShown(n)` (a native stream that can show no more: its piece ends where it stands),
 * `finish(answer, existing)`, `interrupt(reason)`.
 *
 * Out: `view(native)`: the finished pieces and what the live message may show now, or the final
 * pieces, or the partial text and the reason; `interimWaitMs(now)` (whether an interim of the live
 * message is worth sending yet) and `holdWaitMs(now)` (when `settle` has something to re-examine).
 *
 * Guarantees (test/core/relay/segmenter.test.ts): the finished pieces are never longer than the limit
 * and never change; every version of the live text is a prefix of that message's final text (appends
 * to a native stream also end at a natural cut); when the final answer continues the streamed text,
 * the pieces joined are exactly the answer, cut where `split.ts` would cut (natural boundaries, never
 * inside a code fence when another cut exists, never inside a surrogate pair).
 */
import type { Button, Card, FeedbackPrompt, OutMessage } from '../surface';
import { interruptedMessage } from './inflight';
import { linksInSight, type LinkTrust } from '../text/links';
import { withoutSpanMarks } from '../text/untrusted';
import { nextCut, splitForLimit, splitFrom, splitIntoAtLeast, streamingCut, type StreamingCut } from './split';

export interface SegmenterOptions {
  /** The platform's longest message. */
  limit: number;
  /**
   * Longest the live message's visible text may stay behind settled text it cannot show yet (its cut
   * may still land before that text). Past this, its cut is committed to no earlier than the latest
   * settled natural cut, so the text shows; the cut may then be a weaker boundary.
   */
  maxHoldMs: number;
}

/** What the messages of an answer should carry now. */
export type SegmentView =
  | {
      phase: 'streaming';
      finished: readonly string[];
      /** What the live (last) message may show: a prefix of its final text. */
      live: string;
    }
  | { phase: 'complete'; finished: readonly string[] }
  | { phase: 'interrupted'; finished: readonly string[]; partial: string; reason: string };

type Phase = { kind: 'streaming' } | { kind: 'complete'; pieces: string[] } | { kind: 'interrupted'; reason: string };

/**
 * When the text still to place is within this share of the live message's room, its cut is about to
 * be decided: an interim edit then would most likely be followed by a sealing edit that shows
 * nothing new (only the typing mark goes), so the interim waits (up to maxHoldMs) for the seal.
 */
const SEAL_NEAR_SHARE = 0.05;

export class Segmenter {
  private streamed = '';
  private readonly sealed: string[] = [];
  private sealedChars = 0;
  private floor: number | undefined;
  private held: { since: number; at: number } | undefined;
  private sealDueBy: number | undefined;
  private phase: Phase = { kind: 'streaming' };
  private cache: { key: string; cut: StreamingCut } | undefined;

  constructor(private readonly opts: SegmenterOptions) {}

  /** Everything streamed so far. */
  get text(): string {
    return this.streamed;
  }

  get streaming(): boolean {
    return this.phase.kind === 'streaming';
  }

  /** How many pieces are finished: the live message's index while streaming. */
  get finishedCount(): number {
    return this.sealed.length;
  }

  /**
   * Appends a fragment. True when the live message's cut is now decided: the caller's waiting
   * interim of it should go as a final (its next `settle` seals it).
   */
  push(fragment: string): boolean {
    if (!this.streaming) return false;
    // The bridge's span marks are never the answer's (links.ts drops them too): lengths stay the text's.
    this.streamed += withoutSpanMarks(fragment);
    return this.liveCut().cut !== undefined;
  }

  /** Takes the partial text an error carried, when it continues what streamed. */
  catchUp(text: string): void {
    const partial = withoutSpanMarks(text);
    if (this.streaming && partial.length > this.streamed.length && partial.startsWith(this.streamed)) {
      this.streamed = partial;
    }
  }

  /**
   * Seals the live piece while its cut is decided, and commits its cut when settled text has stayed
   * hidden for maxHoldMs (so the visible text keeps growing). True when a piece was sealed.
   */
  settle(now: number): boolean {
    if (!this.streaming) return false;
    let sealedAny = false;
    for (;;) {
      const cut = this.liveCut().cut;
      if (cut === undefined) break;
      this.seal(cut);
      sealedAny = true;
    }
    const view = this.liveCut();
    if (view.settledCut === undefined || view.settledCut <= view.safe) {
      this.held = undefined;
    } else if (this.held?.at !== view.safe) {
      this.held = { since: now, at: view.safe };
    } else if (now - this.held.since >= this.opts.maxHoldMs) {
      this.floor = view.settledCut;
      this.held = undefined;
    }
    return sealedAny;
  }

  /**
   * Ends the live piece after its first `shown` characters (a native stream that cannot go on: it
   * only ever showed text up to natural cuts, so it keeps exactly what it shows).
   */
  sealShown(shown: number): void {
    if (this.streaming && shown > 0) this.seal(this.sealedChars + shown);
  }

  /**
   * The final answer arrived; `existing` messages are already posted. False when the answer had
   * already ended.
   */
  finish(text: string, existing: number): boolean {
    if (!this.streaming) return false;
    const answer = withoutSpanMarks(text);
    const sealedText = this.sealed.join('');
    // The final answer continues the streamed text (the normal case): the cuts decided or committed
    // while streaming stand, so every message ends as a continuation of what it showed. Messages
    // already sealed keep their text when the final answer agrees with them; otherwise each existing
    // message keeps a share of the answer rather than being blanked.
    const pieces = answer.startsWith(this.streamed)
      ? [...this.sealed, ...splitFrom(answer, sealedText.length, this.opts.limit, this.floor)]
      : this.sealed.length > 0 && answer.startsWith(sealedText)
        ? [...this.sealed, ...splitForLimit(answer.slice(sealedText.length), this.opts.limit)]
        : splitIntoAtLeast(answer, this.opts.limit, Math.max(1, existing));
    this.phase = { kind: 'complete', pieces };
    return true;
  }

  /** The answer stopped early: what streamed is final, cut to the limit. False when it had already ended. */
  interrupt(reason: string): boolean {
    if (!this.streaming) return false;
    while (this.streamed.length - this.sealedChars > this.opts.limit) {
      this.seal(nextCut(this.streamed, this.sealedChars, this.opts.limit, this.floor));
    }
    this.phase = { kind: 'interrupted', reason };
    return true;
  }

  /**
   * What the messages should carry now. `native`: the live message is a native stream, whose appends
   * cannot be taken back, so it shows only up to a natural cut (a whole word).
   */
  view(native: boolean): SegmentView {
    const phase = this.phase;
    if (phase.kind === 'complete') return { phase: 'complete', finished: phase.pieces };
    const rest = this.streamed.slice(this.sealedChars);
    if (phase.kind === 'interrupted') {
      return { phase: 'interrupted', finished: [...this.sealed], partial: rest, reason: phase.reason };
    }
    const cut = this.liveCut();
    const live = this.streamed.slice(this.sealedChars, native ? cut.safeBoundary : cut.safe);
    return { phase: 'streaming', finished: [...this.sealed], live };
  }

  /**
   * How long an interim edit of the live message should still wait for its imminent seal (0: send
   * it). The wait starts at the first question and ends at the seal or after maxHoldMs.
   */
  interimWaitMs(now: number): number {
    const room = this.sealedChars + this.opts.limit - this.streamed.length;
    if (room > this.opts.limit * SEAL_NEAR_SHARE) {
      this.sealDueBy = undefined;
      return 0;
    }
    this.sealDueBy ??= now + this.opts.maxHoldMs;
    return Math.max(0, this.sealDueBy - now);
  }

  /** When `settle` must look again (a hold may be due), if a hold runs. */
  holdWaitMs(now: number): number | undefined {
    if (!this.held) return undefined;
    return Math.max(0, this.held.since + this.opts.maxHoldMs - now);
  }

  private seal(cut: number): void {
    const piece = this.streamed.slice(this.sealedChars, cut);
    this.sealed.push(piece);
    this.sealedChars += piece.length;
    this.floor = undefined;
    this.held = undefined;
    this.sealDueBy = undefined;
  }

  /** Where the live piece stands: its cut if decided, else how far it may show (see streamingCut). */
  private liveCut(): StreamingCut {
    const start = this.sealedChars;
    const key = `${this.streamed.length}:${start}:${this.floor ?? ''}`;
    if (this.cache?.key !== key) {
      this.cache = { key, cut: streamingCut(this.streamed, start, this.opts.limit, this.floor) };
    }
    return this.cache.cut;
  }
}

/** How the last message of an answer ends: its controls, and the Retry of an interruption. */
export interface Ending {
  /** Buttons under the last message of a complete answer. */
  buttons: Button[];
  /** The rating control of the last message of a complete answer. */
  feedback?: FeedbackPrompt;
  retry: { action: string; value: string };
  /** The cards of what the complete answer names (listings), under its last message. */
  cards?: (answer: string) => Card[];
}

/**
 * The messages a view asks for: finished pieces plain, the live one typing, the last one with its
 * ending. The answer's links that `links` does not trust become text here (core/text/links.ts), so
 * every version of every message, and the in-flight record, carries them as text.
 */
export function messagesOf(view: SegmentView, ending: Ending, links: LinkTrust = () => false): OutMessage[] {
  const done = (text: string): OutMessage => ({ text: linksInSight(text, links), markdown: true, typing: false });
  if (view.phase === 'complete') {
    const last = view.finished.length - 1;
    const cards = ending.cards?.(view.finished.join('')) ?? [];
    const tail = {
      ...(cards.length > 0 ? { cards } : {}),
      ...(ending.buttons.length > 0 ? { buttons: ending.buttons } : {}),
      ...(ending.feedback ? { feedback: ending.feedback } : {}),
    };
    return view.finished.map((text, i) => (i === last ? { ...done(text), ...tail } : done(text)));
  }
  const finished = view.finished.map(done);
  if (view.phase === 'interrupted') {
    return [...finished, interruptedMessage(linksInSight(view.partial, links), view.reason, ending.retry)];
  }
  return [...finished, { text: linksInSight(view.live, links, { open: true }), markdown: true, typing: true }];
}
