/**
 * What every relay under test shares: one streamed answer to relay into one Slack thread, and the
 * bounded Retry-After handling a typical peer has (so a relay that causes 429s still gets a fair
 * chance to show its final text).
 */
import type { AnswerEvent } from '../../src/service/answer-events';
import { PlatformRateLimitError, type Place } from '../../src/core/surface';

export interface BenchAnswer {
  place: Place;
  events: AsyncIterable<AnswerEvent>;
  answerKey: string;
  /** Aborted when the run's deadline passes: the relay must stop soon after. */
  signal: AbortSignal;
}

export interface BenchRelay {
  readonly name: string;
  relay(answer: BenchAnswer): Promise<void>;
  close(): Promise<void>;
}

export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/** Resolves after `ms`, or rejects with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterOf(err: unknown): number | undefined {
  return err instanceof PlatformRateLimitError ? err.retryAfterMs : undefined;
}

/** Calls `fn`; on a 429 waits the Retry-After and tries again, `tries` calls in all. */
export async function withRetryAfter<T>(fn: () => Promise<T>, tries: number, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw new AbortedError();
    try {
      return await fn();
    } catch (err) {
      const wait = retryAfterOf(err);
      if (wait === undefined || attempt >= tries) throw err;
      await sleep(wait, signal);
    }
  }
}
