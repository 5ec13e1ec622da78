/**
 * Button updates (listing pages) are chat.update calls the relay does not make: they spend the same
 * workspace budget as the answers' edits, so a burst of clicks while answers stream gets no 429.
 */
import { answerMessages, startSlackE2E, waitForAnswer, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { editedTo, firstLineOf } from '../../support/slack-flows';
import { useStarted } from '../../support/server-setup';
import { button } from '../../../fakes/slack-blocks';

describe('Slack e2e: button updates share the chat.update budget', () => {
  // chat.update relaying, so answers and clicks draw on the one Tier 3 budget.
  const e = useStarted(() => startSlackE2E({ fake: { streaming: 'feature_not_enabled' }, fragmentDelayMs: 10 }));

  test('60 listings Next clicks during 5 streaming answers: every page and answer shown, no 429', async () => {
    const channels = ['C0PACE0', 'C0PACE1', 'C0PACE2'];
    await Promise.all(channels.map((channel) => e.driver.command('/listings', '', { user: 'U0USER1', channel })));
    const pages = await Promise.all(
      channels.map((channel) =>
        waitFor(
          () => e.fake.channelMessages(channel).find((m) => button(m, /Next/)),
          `the listings page in ${channel}`,
        ),
      ),
    );
    const asks = Array.from({ length: 5 }, (_, i) => ({
      question: `Pacing question ${i + 1}: homes in Austin please`,
      channel: `C0PACEASK${i}`,
    }));
    await Promise.all(asks.map((a) => e.driver.command('/ask', a.question, { user: 'U0USER2', channel: a.channel })));
    const clicks = Array.from({ length: 60 }, (_, i) => {
      const msg = pages[i % pages.length]!;
      return e.driver.click(button(msg, /Next/)!, { channel: msg.channel, messageTs: msg.ts }, { user: 'U0USER1' });
    });
    const acks = await Promise.all(clicks);
    for (const ack of acks) expect(ack.status).toBe(200);

    for (const msg of pages) {
      expect((await editedTo(e.fake, msg.channel, msg.ts, /page 2/, 30_000)).text).toMatch(/page 2 of \d+/);
    }
    await Promise.all(
      asks.map(async (a) => {
        const root = await waitFor(() => rootFor(e.fake, a.channel, a.question), `root of ${a.question}`, 30_000);
        const { messages } = await waitForAnswer(e, a.channel, root.ts, a.question, 60_000);
        // Shown whole, once, in its own thread, whatever the clicks did to the budget.
        expect(firstLineOf(messages)).toMatch(/^I found \d+ homes in Austin:$/);
        expect(answerMessages(e.fake, a.channel, root.ts)).toEqual(messages);
      }),
    );
    expect(
      e.fake.callsOf('chat.update').filter((c) => channels.includes(String(c.args.channel))).length,
    ).toBeGreaterThan(0);
    expect(e.fake.ephemerals.filter((m) => /went wrong/i.test(m.text))).toEqual([]);
    expect(e.fake.rateLimited).toBe(0);
    expect(e.fake.calls.filter((c) => c.status === 429)).toHaveLength(0);
  }, 120_000);
});
