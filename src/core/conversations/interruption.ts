/**
 * The words an interruption notice gives for an answer whose stream failed. Conversations hand this
 * to the relay (RelayRequest.explain): the relay knows no service and its errors. The service
 * client's messages are safe to show (see service/errors), so refusals are shown in its own words.
 */
import {
  InterruptedStreamError,
  NetworkError,
  QuotaExceededError,
  RateLimitedError,
  RequestValidationError,
  ServiceError,
  TimeoutError,
} from '../../service/errors';
import { stoppedAnswering } from '../relay/relay';
import { knownLine } from '../user-messages';

export function describeInterruption(err: unknown, idleTimeoutMs: number): string {
  if (err instanceof InterruptedStreamError) {
    switch (err.reason) {
      case 'idle-timeout': {
        const cause = (err as { cause?: unknown }).cause;
        return stoppedAnswering(cause instanceof TimeoutError ? cause.timeoutMs : idleTimeoutMs);
      }
      case 'connection-lost':
        return 'the connection to the chatbot service broke';
      case 'ended':
        return 'the answer stream ended before it was complete';
      case 'aborted':
        return 'the answer was cancelled';
    }
  }
  if (err instanceof TimeoutError) return stoppedAnswering(err.timeoutMs);
  // Before the 5xx check: a rate limit answered with a 5xx status is still the service's refusal.
  if (err instanceof RateLimitedError || err instanceof QuotaExceededError) return err.message;
  if (err instanceof ServiceError) {
    if (err.httpStatus !== undefined && err.httpStatus >= 500)
      return `the chatbot service failed (HTTP ${err.httpStatus})`;
    // Its refusal in its words; its failing (an answer the client cannot read) is internal.
    if (knownLine(err) === undefined) return 'the chatbot service failed';
    return err.message || `the chatbot service refused the question (${String(err.code)})`;
  }
  if (err instanceof RequestValidationError) return err.message || 'the question could not be sent';
  if (err instanceof NetworkError) return 'could not reach the chatbot service';
  return 'the answer could not be completed';
}
