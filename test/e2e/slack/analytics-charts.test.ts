/**
 * /analytics on Slack as a table and a trend chart: the figures go as a data_table (replacing the
 * progress line) and the period's trend per day (conversations, handoffs, votes) as Slack's
 * data_visualization block, whose data equals the service's per-day overview and the workspace's own
 * tickets and votes; no PNG where Slack draws the chart. A workspace that refuses the newer blocks
 * (invalid_blocks) gets today's layout (the figures as text, the PNG), learnt once: the next
 * /analytics does not try them again.
 */
import { FeedbackStore } from '../../../src/state/feedback-store';
import { tenantFor, tenantStore } from '../../../src/state/tenant-store';
import type { SlackCall } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { chartSpecOf, pngInBody } from '../../support/png-chart';
import { useStarted } from '../../support/server-setup';
import { ADMIN, askForHuman, startSlackE2E, type SlackE2E } from '../../support/slack-e2e';

const DAY_MS = 86_400_000;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The last seven days (today included), as /analytics takes them. */
function week(): { from: string; to: string; days: string[] } {
  const today = Date.parse(`${isoDay(Date.now())}T00:00:00.000Z`);
  const days = Array.from({ length: 7 }, (_, i) => isoDay(today - (6 - i) * DAY_MS));
  return { from: days[0]!, to: days[6]!, days };
}

type Block = { type?: string; [k: string]: unknown };
const blocksOf = (c: SlackCall): Block[] => (Array.isArray(c.args.blocks) ? (c.args.blocks as Block[]) : []);
const withBlock = (c: SlackCall, type: string): boolean => blocksOf(c).some((b) => b.type === type);

/** A vote cast on a past day, as a press would have stored it then (the clock of that day). */
async function voteAt(e: SlackE2E, user: string, vote: 'positive' | 'negative', at: number): Promise<void> {
  const votes = new FeedbackStore(tenantStore(e.app.store, tenantFor('slack', e.fake.team)));
  await votes.vote(`answer-${user}-${at}`, user, vote, 'slack', at);
}

describe('Slack e2e: /analytics as a table and a trend chart', () => {
  const e = useStarted(() => startSlackE2E());

  test('the figures as a data_table, the trend per day as a data_visualization block (no PNG)', async () => {
    await askForHuman(e, 'U0USER1', 'C0TRENDASK', 'What homes are for sale in Austin with a pool?');
    const { from, to, days } = week();
    await voteAt(e, 'U0USER1', 'positive', Date.parse(`${days[4]}T10:00:00.000Z`));
    await voteAt(e, 'U0USER2', 'negative', Date.now());

    await e.driver.command('/analytics', `${from} ${to}`, { user: ADMIN, channel: 'C0TREND' });
    const chartCall = await waitFor(
      () =>
        e.fake
          .callsOf('chat.postMessage')
          .find((c) => c.args.channel === 'C0TREND' && c.status === 200 && withBlock(c, 'data_visualization')),
      'the chart message',
    );
    const chart = blocksOf(chartCall).find((b) => b.type === 'data_visualization') as {
      title: string;
      chart: {
        type: string;
        series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
        axis_config: { categories: string[] };
      };
    };
    expect(chart.chart.type).toBe('line');
    expect(chart.chart.axis_config.categories).toEqual(days.map((d) => d.slice(5)));
    const series = (name: string) => chart.chart.series.find((s) => s.name === name)!.data.map((p) => p.value);

    // The service's own figure for each day, asked as the bridge asks it.
    const perDay = await Promise.all(
      days.map(async (d) => {
        const o = await e.app.client.v1.analyticsOverview({
          startDate: `${d}T00:00:00Z`,
          endDate: `${d}T23:59:59Z`,
          chatbotId: e.service.chatbotId,
        });
        return o.metrics.totalConversations;
      }),
    );
    expect(series('Conversations')).toEqual(perDay);
    expect(perDay[6]).toBeGreaterThanOrEqual(1);
    expect(series('Handoffs')).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(series('Positive votes')).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(series('Negative votes')).toEqual([0, 0, 0, 0, 0, 0, 1]);

    // The progress line became the table of figures: the service's total among them.
    const tableCall = await waitFor(
      () =>
        e.fake
          .callsOf('chat.update')
          .find((c) => c.args.channel === 'C0TREND' && c.status === 200 && withBlock(c, 'data_table')),
      'the table of figures',
    );
    const table = blocksOf(tableCall).find((b) => b.type === 'data_table') as {
      caption: string;
      rows: Array<Array<{ text: string }>>;
    };
    expect(table.caption).toContain(`${from} to ${to}`);
    const rows = table.rows.map((r) => r.map((c) => c.text));
    expect(rows[0]).toEqual(['Figure', 'Value']);
    const total = perDay.reduce((a, b) => a + b, 0);
    expect(rows).toContainEqual(['Conversations', String(total)]);
    expect(rows.find((r) => r[0] === 'Handoffs')?.[1]).toMatch(/^1 opened/);
    // The text stays the message's plain text (notifications), not shown again beside the table.
    expect(String(tableCall.args.text)).toContain('Conversations: ');
    expect(blocksOf(tableCall).some((b) => b.type === 'section')).toBe(false);

    // Another command run to its end: by then a PNG of the first would have been uploaded.
    await e.driver.command('/analytics', `${to}`, { user: ADMIN, channel: 'C0TREND2' });
    await waitFor(
      () =>
        e.fake
          .callsOf('chat.postMessage')
          .find((c) => c.args.channel === 'C0TREND2' && withBlock(c, 'data_visualization')),
      'the second chart',
    );
    expect([...e.fake.uploads.values()].filter((u) => u.channel === 'C0TREND')).toEqual([]);
    expect(e.fake.calls.filter((c) => c.response.error === 'invalid_blocks')).toEqual([]);
  }, 60_000);
});

describe('Slack e2e: /analytics where the workspace refuses the newer blocks', () => {
  const e = useStarted(() => startSlackE2E({ fake: { newBlocks: 'refuse' } }));

  test("invalid_blocks: today's layout (figures as text, the PNG), learnt once for the workspace", async () => {
    const { from, to } = week();
    const newBlockCalls = () =>
      e.fake.calls.filter((c) => withBlock(c, 'data_table') || withBlock(c, 'data_visualization'));
    const refused = () => e.fake.calls.filter((c) => c.response.error === 'invalid_blocks');

    await e.driver.command('/analytics', `${from} ${to}`, { user: ADMIN, channel: 'C0OLDFIG' });
    const upload = await waitFor(
      () => [...e.fake.uploads.values()].find((u) => u.channel === 'C0OLDFIG' && u.data.length > 0),
      'the PNG chart',
    );
    const spec = chartSpecOf(pngInBody(upload.data))!;
    expect(spec.trend?.series.map((s) => s.name)).toEqual([
      'Conversations',
      'Handoffs',
      'Positive votes',
      'Negative votes',
    ]);
    expect(spec.trend?.categories).toHaveLength(7);
    const figures = await waitFor(
      () => e.fake.channelMessages('C0OLDFIG').find((m) => m.text.includes('Conversations: ')),
      'the figures as text',
    );
    expect(JSON.stringify(figures.blocks)).not.toContain('data_table');
    expect(JSON.stringify(figures.blocks)).toContain('Conversations: ');
    expect(refused()).toHaveLength(1);
    expect(newBlockCalls()).toHaveLength(1);

    // The second /analytics: neither block is tried again.
    await e.driver.command('/analytics', `${from} ${to}`, { user: ADMIN, channel: 'C0OLDFIG2' });
    await waitFor(
      () => [...e.fake.uploads.values()].find((u) => u.channel === 'C0OLDFIG2' && u.data.length > 0),
      'the second PNG',
    );
    expect(refused()).toHaveLength(1);
    expect(newBlockCalls()).toHaveLength(1);
  }, 60_000);
});
