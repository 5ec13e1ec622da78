/**
 * A workspace without native streaming (chat.startStream answers unknown_method) learns it from the
 * first refusal: under N concurrent answers, one chat.startStream goes out and the others wait for
 * its outcome (single-flight per workspace), then every answer goes through chat.update.
 */
import { startSlackE2E, waitForAnswer, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const ANSWERS = 6;

describe('Slack e2e: native streaming refused with unknown_method under concurrent answers', () => {
  // Fragments 60 ms apart: each answer streams for a few seconds, so all of them are in flight at once.
  const e = useStarted(() => startSlackE2E({ fake: { streaming: 'unknown_method' }, fragmentDelayMs: 60 }));

  test('exactly one chat.startStream is refused, every answer is exact, and later answers do not ask again', async () => {
    // Slack answers the first start only once every answer has streamed: without single-flight
    // every answer's start would be waiting here at once.
    const gate = e.fake.hold('chat.startStream');
    const asks = Array.from({ length: ANSWERS }, (_, i) => ({
      channel: `C0UNKNOWN${i}`,
      question: `Homes for sale in Austin, all of them please (${i})`,
    }));
    await Promise.all(asks.map((a) => e.driver.command('/ask', a.question, { user: 'U0USER1', channel: a.channel })));
    await waitFor(
      () => asks.every((a) => e.storedAnswers(a.question).length > 0) && gate.arrived() > 0,
      'every answer streamed by the service and the first start at Slack',
      40_000,
    );
    const arrivedWhileHeld = gate.arrived();
    gate.release();
    for (const a of asks) {
      const root = await waitFor(() => rootFor(e.fake, a.channel, a.question), `the root in ${a.channel}`);
      const { messages } = await waitForAnswer(e, a.channel, root.ts, a.question, 40_000);
      expect(messages.length).toBeGreaterThan(0);
    }
    expect(arrivedWhileHeld).toBe(1);
    const starts = e.fake.callsOf('chat.startStream');
    expect(starts.map((c) => c.response.error)).toEqual(['unknown_method']);
    expect(e.fake.rateLimited).toBe(0);

    // A later answer does not ask again.
    const q = 'Homes for rent in Austin, after the refusal';
    await e.driver.command('/ask', q, { user: 'U0USER1', channel: 'C0UNKNOWNLATER' });
    const root = await waitFor(() => rootFor(e.fake, 'C0UNKNOWNLATER', q), 'the later root');
    await waitForAnswer(e, 'C0UNKNOWNLATER', root.ts, q, 40_000);
    expect(e.fake.callsOf('chat.startStream')).toHaveLength(1);
  });
});
