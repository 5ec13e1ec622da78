/**
 * /analytics on Discord: the figures as a table (a code block of "Figure: value" rows under the
 * caption) and the period's trend per day (conversations, handoffs, votes) in the PNG attached,
 * whose embedded spec carries the same counts as the figures and the workspace's own votes.
 */
import { FeedbackStore } from '../../../src/state/feedback-store';
import { tenantFor, tenantStore } from '../../../src/state/tenant-store';
import { analyticsOf, ask, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

const DAY_MS = 86_400_000;

describe('Discord e2e: /analytics as a table and a trend chart', () => {
  const e = useStarted(() => startDiscordE2E());

  test('the figures in a code block, the per-day trend in the PNG attached', async () => {
    const question = 'Which homes are for rent in Denver?';
    const { threadId } = await ask(e, question);
    await waitForAnswer(e, threadId, question);
    const votes = new FeedbackStore(tenantStore(e.app.store, tenantFor('discord', e.fake.guildId)));
    await votes.vote('answer-a', 'U-A', 'positive', 'discord', Date.now() - 2 * DAY_MS);
    await votes.vote('answer-b', 'U-B', 'negative', 'discord', Date.now());

    const { text, spec } = await analyticsOf(e);
    // A table in text: the caption, then the rows in a code block.
    expect(text).toMatch(/^Analytics for .+\n```\n/);
    expect(text).toMatch(/\nConversations: \d+/);
    expect(text).toMatch(/\nSatisfaction: [^\n]*\n```/);
    const trend = spec.trend!;
    expect(trend.categories).toHaveLength(30);
    expect(trend.series.map((s) => s.name)).toEqual(['Conversations', 'Handoffs', 'Positive votes', 'Negative votes']);
    const sum = (name: string) => trend.series.find((s) => s.name === name)!.values.reduce((a, b) => a + b, 0);
    expect(String(sum('Conversations'))).toBe(/\nConversations: (\d+)/.exec(text)![1]);
    expect(sum('Conversations')).toBeGreaterThanOrEqual(1);
    const down = trend.series.find((s) => s.name === 'Negative votes')!.values;
    const up = trend.series.find((s) => s.name === 'Positive votes')!.values;
    expect(down.at(-1)).toBe(1);
    expect(up.at(-3)).toBe(1);
    expect(sum('Positive votes') + sum('Negative votes')).toBe(2);
  }, 60_000);
});
