/** Native streaming (chat.startStream/appendStream/stopStream) when offered, chat.update when refused. */
import { startSlackE2E, waitForAnswer, rootFor, type SlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../support/slack-requests';

const LONG = 'Tell me about all listings, the long answer';

describe('Slack e2e: streaming', () => {
  let e: SlackE2E;
  beforeAll(async () => {
    e = await startSlackE2E({ fragmentDelayMs: 8 });
  });
  afterAll(async () => {
    await e?.close();
  });

  test('native streaming is used in the thread when the workspace offers it', async () => {
    await e.driver.command('/ask', LONG, { user: 'U0USER1', channel: 'C0NATIVE' });
    const root = await waitFor(() => rootFor(e.fake, 'C0NATIVE', LONG), 'the root');
    const { messages } = await waitForAnswer(e, 'C0NATIVE', root.ts, LONG, 40_000);
    const summary = e.fake.calls.map((c) => `${c.method}:${c.status}:${String(c.response.error ?? 'ok')}`);
    const started = e.fake.callsOf('chat.startStream').filter((c) => c.args.thread_ts === root.ts && c.response.ok === true);
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
    expect(e.fake.callsOf('chat.startStream').some((c) => c.args.thread_ts === root.ts && c.response.error === 'feature_not_enabled')).toBe(true);
    const updates = e.fake.callsOf('chat.update').filter((c) => c.args.channel === 'C0FALLBACK');
    expect(updates.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(3000);
    const refused = e.fake.callsOf('chat.startStream').length;
    const q2 = 'Homes for sale in Austin, after the fallback';
    await e.driver.command('/ask', q2, { user: 'U0USER1', channel: 'C0FALLBACK2' });
    const root2 = await waitFor(() => rootFor(e.fake, 'C0FALLBACK2', q2), 'the second root');
    await waitForAnswer(e, 'C0FALLBACK2', root2.ts, q2);
    expect(e.fake.callsOf('chat.startStream').length).toBe(refused);
    expect(e.fake.rateLimited).toBe(0);
  });
});
