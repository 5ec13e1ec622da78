/**
 * One chat message an answer occupies: what the platform shows (as far as the relay knows), whether
 * it is a live native stream, and the one call that brings it to a wanted version. The reconciler
 * decides which message to change and when; this module knows how.
 */
import type { MessageRef, NativeStream, OutMessage, Priority, SurfacePort } from '../surface';
import type { InflightRecord } from './inflight';
import { withoutSpanMarks } from '../text/untrusted';

/** What a message's call needs from the answer it belongs to. */
export interface MessageCall {
  surface: SurfacePort;
  coalesceKey: string;
  priority: Priority;
  /** The version wanted when the call actually goes out (it may have waited for budget). */
  latest: () => OutMessage | undefined;
  now: () => number;
}

function sameMessage(a: OutMessage, b: OutMessage): boolean {
  return (
    a.text === b.text &&
    Boolean(a.typing) === Boolean(b.typing) &&
    (a.notice ?? '') === (b.notice ?? '') &&
    JSON.stringify(a.buttons ?? []) === JSON.stringify(b.buttons ?? []) &&
    JSON.stringify(a.feedback ?? null) === JSON.stringify(b.feedback ?? null)
  );
}

export class AnswerMessage {
  /** Native: everything appended so far. */
  private appended: string;
  lastInterimAt = 0;
  failures = 0;
  gaveUp = false;
  /**
   * A native stream whose append or stop failed: it may still be live on the platform, so it is no
   * longer appended to, and its final call stops it (an edit alone may leave it streaming).
   */
  unstopped = false;

  constructor(
    readonly ref: MessageRef,
    /** What the platform shows now (as far as we know). */
    private sent: OutMessage,
    /** Set while the message is a live native stream. */
    private native?: NativeStream,
  ) {
    this.appended = native ? sent.text : '';
  }

  get isNative(): boolean {
    return this.native !== undefined;
  }

  /** When a live native stream expires. */
  get expiresAt(): number | undefined {
    return this.native?.expiresAt;
  }

  /**
   * How many of the answer's characters a live native stream shows (appends end at settled natural
   * cuts; the bridge's span marks in what it was sent are not the answer's).
   */
  get streamedChars(): number {
    return withoutSpanMarks(this.appended).length;
  }

  /** True when it shows `want` (a live native stream only ever grows). */
  inSync(want: OutMessage): boolean {
    if (this.native && want.typing) {
      return !(want.text.length > this.appended.length && want.text.startsWith(this.appended));
    }
    return !this.native && sameMessage(this.sent, want);
  }

  /** Its line in the in-flight record. */
  get record(): InflightRecord['messages'][number] {
    return {
      ref: this.ref,
      text: this.native ? this.appended : this.sent.text,
      done: !this.native && !this.sent.typing,
      native: this.native || this.unstopped ? true : undefined,
    };
  }

  /** A native stream that failed is appended to no more; its final call stops it. */
  streamFailed(): void {
    if (!this.native) return;
    this.sent = { text: this.appended, markdown: true, typing: true };
    this.native = undefined;
    this.unstopped = true;
  }

  /** Brings the message to `want`, or to the version wanted when the call goes out (coalescing). */
  async bringTo(want: OutMessage, call: MessageCall): Promise<void> {
    if (this.inSync(want)) return;
    const { surface } = call;
    if (this.native) {
      if (want.typing) {
        const sentFrom = this.appended;
        let shows = want.text;
        await this.native.append(want.text.slice(sentFrom.length), {
          priority: call.priority,
          coalesceKey: call.coalesceKey,
          latest: () => {
            const now = call.latest();
            // The message is finished meanwhile (the answer ended, or its piece was sealed): its
            // stop, due next, carries the rest, so this append would be one more call for a text
            // shown a moment. It goes out empty (no call).
            if (now && !now.typing) shows = sentFrom;
            // Only growth is appended; anything else waits for the final stop.
            else if (now?.typing && now.text.startsWith(sentFrom)) shows = now.text;
            return shows.slice(sentFrom.length);
          },
        });
        this.appended = shows;
        this.sent = { text: shows, markdown: true, typing: true };
        this.lastInterimAt = call.now();
        return;
      }
      await this.native.stop(want);
      this.native = undefined;
      this.sent = want;
      return;
    }
    if (this.unstopped) {
      // Only reached with a finished message (see Reconciler.nextIndex): stopping the stream ends it
      // showing exactly `want`; without that method, an edit is the best there is.
      if (surface.streaming) await surface.streaming.stopNativeStream(this.ref, want);
      else await surface.edit(this.ref, want);
      this.unstopped = false;
      this.sent = want;
      return;
    }
    let sent = want;
    await surface.edit(this.ref, want, {
      priority: call.priority,
      coalesceKey: call.coalesceKey,
      latest: () => (sent = call.latest() ?? want),
    });
    this.sent = sent;
    if (sent.typing) this.lastInterimAt = call.now();
  }
}
