/**
 * What the service client throws. Callers branch on the class, never on envelopes or `Success`.
 * Messages are safe to show a user (no keys, no URLs with credentials).
 */
import type { FieldIssue } from './schemas/fields';

/** The service answered, and said no (envelope Success false, /v1 success false, or an HTTP error). */
export class ServiceError extends Error {
  constructor(
    /** Client operation name, e.g. 'ask', 'listListings'. */
    readonly operation: string,
    /** The service's Code (first family), its error code (/v1), or the HTTP status. */
    readonly code: number | string,
    message: string,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ServiceError';
  }
}

/** The chatbot's rate limit (RateLimitCount per RateLimitTime); message is the service's own text. */
export class RateLimitedError extends ServiceError {
  constructor(operation: string, code: number | string, message: string, httpStatus?: number) {
    super(operation, code, message, httpStatus);
    this.name = 'RateLimitedError';
  }
}

/** The chatbot's monthly MessageLimit is used up. */
export class QuotaExceededError extends ServiceError {
  constructor(operation: string, code: number | string, message: string, httpStatus?: number) {
    super(operation, code, message, httpStatus);
    this.name = 'QuotaExceededError';
  }
}

/** No answer at all: connection refused/reset, DNS, TLS. */
export class NetworkError extends Error {
  constructor(
    readonly operation: string,
    message: string,
    readonly causeCode?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/** The call took longer than its timeout (or, for a stream, no headers in time). */
export class TimeoutError extends Error {
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    message = `${operation}: the chatbot service did not answer within ${Math.round(timeoutMs / 100) / 10} s`,
  ) {
    super(message);
    this.name = 'TimeoutError';
  }
}

export type InterruptReason = 'ended' | 'idle-timeout' | 'connection-lost' | 'aborted';

/**
 * A streamed answer stopped before its final object. `partialText` is every delta received; the
 * answer is incomplete. Idle timeouts come here too (reason 'idle-timeout', cause a TimeoutError),
 * so the relay has one case to handle for "the stream broke".
 */
export class InterruptedStreamError extends Error {
  constructor(
    readonly operation: string,
    readonly partialText: string,
    readonly reason: InterruptReason,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(message ?? InterruptedStreamError.describe(reason), options);
    this.name = 'InterruptedStreamError';
  }

  private static describe(reason: InterruptReason): string {
    switch (reason) {
      case 'ended':
        return 'the answer stream ended before the answer was complete';
      case 'idle-timeout':
        return 'the answer stream went silent and was stopped';
      case 'connection-lost':
        return 'the connection broke while the answer was streaming';
      case 'aborted':
        return 'the answer was cancelled';
    }
  }
}

/** A request failed local validation and was not sent. */
export class RequestValidationError extends Error {
  constructor(
    readonly operation: string,
    readonly issues: FieldIssue[],
  ) {
    super(issues.map((i) => i.message).join('; '));
    this.name = 'RequestValidationError';
  }
}
