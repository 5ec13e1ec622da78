/** 20 answers at once share Slack's budgets: every answer exact, no 429 from the fake. */
import { answerMessages, startSlackE2E, waitForAnswer, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { firstLineOf } from '../../support/slack-flows';

describe('Slack e2e: 20 concurrent answers', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 10 }));

  test('all answered exactly, no 429', async () => {
    const cities = ['Austin', 'Denver', 'Miami', 'Seattle'];
    const asks = Array.from({ length: 20 }, (_, i) => ({
      city: cities[i % cities.length]!,
      question: `Question ${i + 1}: homes in ${cities[i % cities.length]} please`,
      channel: `C0CONC${i % 4}`,
      user: i % 2 === 0 ? 'U0USER1' : 'U0USER2',
    }));
    const acks = await Promise.all(
      asks.map((a) => e.driver.command('/ask', a.question, { user: a.user, channel: a.channel })),
    );
    for (const ack of acks) expect(ack.status).toBe(200);
    expect(e.driver.lateAcks).toEqual([]);
    await Promise.all(
      asks.map(async (a) => {
        const root = await waitFor(() => rootFor(e.fake, a.channel, a.question), `root of ${a.question}`, 45_000);
        const { messages } = await waitForAnswer(e, a.channel, root.ts, a.question, 60_000);
        // Each thread holds its own question's answer, once, and nothing of the 19 others.
        expect(firstLineOf(messages)).toMatch(new RegExp(`^I found \\d+ homes in ${a.city}\\b`));
        expect(answerMessages(e.fake, a.channel, root.ts)).toEqual(messages);
      }),
    );
    expect(e.fake.rateLimited).toBe(0);
    expect(e.fake.calls.filter((c) => c.status === 429)).toHaveLength(0);
  }, 120_000);
});
