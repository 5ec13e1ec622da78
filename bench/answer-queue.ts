/**
 * Answer events pushed by a producer (a timer, a benchmark loop) and read once by a relay: iteration
 * waits for the next push and ends after the final event, or when the producer closes the queue.
 */
import type { AnswerEvent } from '../src/service/answer-events';

export class AnswerQueue implements AsyncIterable<AnswerEvent> {
  private readonly queue: AnswerEvent[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(ev: AnswerEvent): void {
    this.queue.push(ev);
    this.wake?.();
  }

  /** No more events: a reader waiting for one stops. */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AnswerEvent> {
    for (;;) {
      const ev = this.queue.shift();
      if (ev) {
        yield ev;
        if (ev.type === 'final') return;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
