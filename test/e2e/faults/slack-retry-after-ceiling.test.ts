/**
 * A platform's Retry-After is honoured up to 60 s. Slack answering 429 with `Retry-After: 3600` is
 * not waited for: the call fails as a 429 that its caller handles (the user is told, the bridge
 * goes on answering), and the log says so once, however many calls meet it.
 */
import { rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

describe('Slack e2e faults: Retry-After past the 60 s ceiling', () => {
  // The test reads the log for the ceiling line.
  const logLines: string[] = [];
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2, logLines }));

  test('a 429 with Retry-After: 3600 fails the call at once, the user is told, and the next question is answered', async () => {
    const from = e.fake.calls.length;
    e.fake.force429('chat.postMessage', 2, 3600);
    const questions = ['Homes in Austin? (an hour to wait 1)', 'Homes in Austin? (an hour to wait 2)'];
    for (const q of questions) {
      const res = await e.driver.command('/ask', q, { user: 'U0USER1', channel: 'C0HOUR' });
      expect(res.status).toBe(200);
    }
    // Each /ask's thread could not be opened: the user hears why, well within the hour.
    const told = await waitFor(() => {
      const shown = e.fake.ephemerals.filter((m) => m.channel === 'C0HOUR' && /rate limited/i.test(m.text));
      return shown.length === 2 ? shown : undefined;
    }, 'two ephemerals saying the post was rate limited');
    for (const m of told) expect(m.user).toBe('U0USER1');
    // Both refused posts went out once each: nothing was retried behind the 429.
    const posts = e.fake.calls.slice(from).filter((c) => c.method === 'chat.postMessage' && c.status === 429);
    expect(posts).toHaveLength(2);
    const ceilingLines = logLines.filter((l) => l.includes('past the 60 s ceiling'));
    expect(ceilingLines).toHaveLength(1);
    expect(JSON.parse(ceilingLines[0]!)).toMatchObject({ retryAfterMs: 3_600_000, ceilingMs: 60_000 });

    // The bridge is not stuck behind the hour: the next question is answered.
    const q = 'Homes in Austin? (after the refusal)';
    await e.driver.command('/ask', q, { user: 'U0USER1', channel: 'C0HOUR' });
    const root = await waitFor(() => rootFor(e.fake, 'C0HOUR', q), 'the root of the next question');
    const { messages } = await waitForAnswer(e, 'C0HOUR', root.ts, q);
    expect(messages.map((m) => m.text).join('\n')).toContain('homes in Austin');
    // It went through without meeting another 429: only the two forced ones were refused.
    expect(e.fake.calls.slice(from).filter((c) => c.status === 429)).toHaveLength(2);
  });
});
