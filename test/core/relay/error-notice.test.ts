/**
 * The interruption notice says why the answer stopped, by the service client's error class: a
 * service failure is not a broken connection, and the service's own refusals keep its words.
 */
import { Relay } from '../../../src/core/relay/relay';
import { eachTestbed, startRun } from './testbed';
import { describeInterruption } from '../../../src/core/conversations/interruption';
import {
  InterruptedStreamError,
  NetworkError,
  QuotaExceededError,
  RateLimitedError,
  RequestValidationError,
  ServiceError,
  TimeoutError,
} from '../../../src/service/errors';
import { silentLog } from './fake-stream';

const RETRY = { action: 'answer.retry', value: 'q7' };
const bed = eachTestbed();
let relay: Relay;
let n = 0;

beforeEach(() => {
  relay = new Relay({
    store: bed.store,
    log: silentLog,
    now: Date.now,
    instanceId: 'e',
    options: { minInterimIntervalMs: 10 },
  });
});

const RATE_TEXT = 'You have sent too many messages. Please wait 60 seconds.';
const QUOTA_TEXT = 'This chatbot has used all of its messages for this month';

const cases: Array<[string, () => unknown, string]> = [
  [
    'a 5xx service failure',
    () => new ServiceError('askStream', 503, 'the chatbot service answered HTTP 503 to askStream', 503),
    'the chatbot service failed (HTTP 503).',
  ],
  ['the chatbot rate limit', () => new RateLimitedError('askStream', 4001, RATE_TEXT, 200), RATE_TEXT],
  ['the monthly quota', () => new QuotaExceededError('askStream', 4002, QUOTA_TEXT), `${QUOTA_TEXT}.`],
  [
    'a request that failed validation',
    () =>
      new RequestValidationError('askStream', [
        { field: 'content', message: 'content is too long (at most 4000 characters)' },
      ]),
    'content is too long (at most 4000 characters).',
  ],
  [
    'an unreachable service',
    () =>
      new NetworkError('askStream', 'askStream: could not reach the chatbot service (ECONNREFUSED)', 'ECONNREFUSED'),
    'could not reach the chatbot service.',
  ],
  [
    'a timeout',
    () => new TimeoutError('askStream', 30_000),
    'the chatbot service stopped answering (no new text for 30 s).',
  ],
  [
    'an idle stream',
    () =>
      new InterruptedStreamError('askStream', 'Some', 'idle-timeout', undefined, {
        cause: new TimeoutError('askStream', 20_000),
      }),
    'the chatbot service stopped answering (no new text for 20 s).',
  ],
  [
    'a lost connection',
    () => new InterruptedStreamError('askStream', 'Some', 'connection-lost'),
    'the connection to the chatbot service broke.',
  ],
  [
    'a stream that ended early',
    () => new InterruptedStreamError('askStream', 'Some', 'ended'),
    'the answer stream ended before it was complete.',
  ],
  ['a cancelled stream', () => new InterruptedStreamError('askStream', 'Some', 'aborted'), 'the answer was cancelled.'],
];

describe('interruption notice (in the words conversations hand the relay)', () => {
  it.each(cases)('describes %s', async (_what, make, reason) => {
    const surface = bed.surface();
    const { stream, running } = startRun(relay, surface, {
      retry: RETRY,
      explain: (e) => describeInterruption(e, 5000),
      answerKey: `err-${++n}`,
    });
    stream.push('Some');
    const err = make();
    stream.fail(err);
    const result = await running;
    expect(result.status).toBe('interrupted');
    expect(result.error).toBe(err);
    const last = surface.messages.get(result.messages[result.messages.length - 1]?.id ?? '');
    expect(last?.current.text).toBe('Some');
    expect(last?.current.notice).toBe(`⚠️ Answer interrupted: ${reason} Press Retry to ask again.`);
    expect(last?.current.buttons).toEqual([{ label: 'Retry', action: RETRY.action, value: RETRY.value }]);
  });
});
