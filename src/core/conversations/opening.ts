/**
 * How the service's answer opens: the first event tells a refusal (the service's own "no", shown as
 * it is and not retried) and a server failure (HTTP 5xx before any text: the user may retry) apart
 * from a stream, which the relay shows and, if it breaks later, marks interrupted.
 */
import type { AnswerEvent } from '../../service/answer-events';
import { RequestValidationError, ServiceError } from '../../service/errors';

export type Refusal = ServiceError | RequestValidationError;

type Opened =
  | { kind: 'refused'; error: Refusal }
  | { kind: 'failed'; error: ServiceError }
  | { kind: 'streaming'; events: AsyncIterable<AnswerEvent> };

/** An HTTP 5xx: the service broke, it did not decide; unlike a refusal, asking again may work. */
export function isServerFailure(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.httpStatus !== undefined && err.httpStatus >= 500;
}

/** The service's own "no" (Success:false, a 4xx, a request it would not take): shown as is, not retried. */
export function isRefusal(err: unknown): err is Refusal {
  return (err instanceof ServiceError && !isServerFailure(err)) || err instanceof RequestValidationError;
}

/**
 * Pulls the first event, so that a refusal (the service's Success:false, raised before any text)
 * is told apart from a stream that breaks later, which the relay marks interrupted.
 */
export async function openStream(stream: AsyncIterable<AnswerEvent>): Promise<Opened> {
  const iterator = stream[Symbol.asyncIterator]();
  let first: IteratorResult<AnswerEvent>;
  try {
    first = await iterator.next();
  } catch (err) {
    if (isRefusal(err)) return { kind: 'refused', error: err };
    if (isServerFailure(err)) return { kind: 'failed', error: err };
    return {
      kind: 'streaming',
      events: {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
      },
    };
  }
  let replayed = false;
  return {
    kind: 'streaming',
    events: {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (!replayed) {
            replayed = true;
            return Promise.resolve(first);
          }
          return iterator.next();
        },
        return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
      }),
    },
  };
}
