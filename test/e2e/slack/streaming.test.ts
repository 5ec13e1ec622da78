/** Native streaming (chat.startStream/appendStream/stopStream) when offered, chat.update when refused. */
import { startSlackE2E, waitForAnswer, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { wordGroups } from '../../../src/local-service/answerer/format';
import { useStarted } from '../../support/server-setup';
import { firstLineOf } from '../../support/slack-flows';

const LONG = 'Tell me about all listings, the long answer';

describe('Slack e2e: streaming', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 8 }));

  test('native streaming is used in the thread when the workspace offers it', async () => {
    await e.driver.command('/ask', LONG, { user: 'U0USER1', channel: 'C0NATIVE' });
    const root = await waitFor(() => rootFor(e.fake, 'C0NATIVE', LONG), 'the root');
    const { messages } = await waitForAnswer(e, 'C0NATIVE', root.ts, LONG, 40_000);
    const summary = e.fake.calls.map((c) => `${c.method}:${c.status}:${String(c.response.error ?? 'ok')}`);
    const started = e.fake
      .callsOf('chat.startStream')
      .filter((c) => c.args.thread_ts === root.ts && c.response.ok === true);
    expect({ started: started.length > 0, summary }).toMatchObject({ started: true });
    expect(e.fake.callsOf('chat.stopStream').length).toBeGreaterThan(0);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(3000);
    expect(e.fake.rateLimited).toBe(0);
  });

  test('when chat.startStream answers feature_not_enabled the answer goes through chat.update, and later answers skip streaming', async () => {
    e.fake.setStreaming('feature_not_enabled');
    const q = 'Every listing please, long answer for the fallback';
    await e.driver.command('/ask', q, { user: 'U0USER1', channel: 'C0FALLBACK' });
    const root = await waitFor(() => rootFor(e.fake, 'C0FALLBACK', q), 'the root');
    const { messages } = await waitForAnswer(e, 'C0FALLBACK', root.ts, q, 40_000);
    expect(
      e.fake
        .callsOf('chat.startStream')
        .some((c) => c.args.thread_ts === root.ts && c.response.error === 'feature_not_enabled'),
    ).toBe(true);
    const updates = e.fake.callsOf('chat.update').filter((c) => c.args.channel === 'C0FALLBACK');
    expect(updates.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(3000);
    const refused = e.fake.callsOf('chat.startStream').length;
    const q2 = 'Homes for sale in Austin, after the fallback';
    await e.driver.command('/ask', q2, { user: 'U0USER1', channel: 'C0FALLBACK2' });
    const root2 = await waitFor(() => rootFor(e.fake, 'C0FALLBACK2', q2), 'the second root');
    const second = await waitForAnswer(e, 'C0FALLBACK2', root2.ts, q2);
    expect(firstLineOf(second.messages)).toMatch(/^I found \d+ homes for sale in Austin:$/);
    expect(e.fake.callsOf('chat.startStream').length).toBe(refused);
    expect(e.fake.rateLimited).toBe(0);
  });
});

/**
 * A lone answer on the chat.update path visibly streams: the budget is all there, so the relay
 * spends it on interims (the gateway's plan), not one edit per 1.2 s. Counted from the fake's
 * record of every text the message showed; the stream's length comes from the service's fragments.
 */
describe('Slack e2e: a lone answer streams visibly through chat.update', () => {
  const FRAGMENT_MS = 180;
  const QUESTION = 'Which homes are for rent in Austin?';
  const e = useStarted(() =>
    startSlackE2E({ fake: { streaming: 'feature_not_enabled' }, fragmentDelayMs: FRAGMENT_MS }),
  );

  test('at least 3 distinct partial texts before the final, every one a prefix of it', async () => {
    await e.driver.command('/ask', QUESTION, { user: 'U0USER1', channel: 'C0LONE' });
    const root = await waitFor(() => rootFor(e.fake, 'C0LONE', QUESTION), 'the root');
    const { answer, messages } = await waitForAnswer(e, 'C0LONE', root.ts, QUESTION, 40_000);
    // The setup streams for about 3 s (the service's fragments times their delay).
    const fragments = wordGroups(answer).length;
    expect(fragments * FRAGMENT_MS).toBeGreaterThanOrEqual(2_500);
    expect(messages).toHaveLength(1);
    const history = messages[0]!.history;
    const partials = new Set(history.filter((t) => t !== '' && t !== answer));
    expect(partials.size).toBeGreaterThanOrEqual(3);
    for (const t of history) expect(answer.startsWith(t)).toBe(true);
    expect(e.fake.rateLimited).toBe(0);
  });
});
