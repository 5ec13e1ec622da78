/**
 * A Slack ticket nobody claims, end to end: three reminders naming the wait, then `Timed out` on the
 * ticket with its buttons gone, the user told (their Cancel button gone), and the ticket counted as
 * timed out in /analytics (text and chart). The default intervals (a reminder every 5 min, the user
 * told after 10 min) on an injected clock: the test moves it on and calls the sweep.
 */
import { startRestartableSlackE2E } from '../../support/handoff-e2e';
import { analyticsShown } from '../../support/slack-flows';
import { button, buttons } from '../../../fakes/slack-blocks';
import { ADMIN, HANDOFF_CHANNEL, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const USERS = 'C0WAITS';
const GRACE = 'U0USER2';
const REMIND_MS = 300_000;

describe('Slack: a ticket nobody claims', () => {
  let offset = 0;
  const e = useStarted(() => startRestartableSlackE2E({}, {}, () => Date.now() + offset));

  test('three reminders, then Timed out on the ticket, the user told, counted in the figures', async () => {
    const question = 'Any townhouses for sale in Boise?';
    await e.driver.command('/ask', question, { user: GRACE, channel: USERS });
    const root = await waitFor(() => rootFor(e.fake, USERS, question), 'the conversation');
    const answer = await waitFor(
      () => e.fake.replies(USERS, root.ts).find((m) => button(m, 'Talk to a human')),
      'its answer',
    );
    expect(answer.user).toBe(e.fake.botUserId);
    await e.driver.command('/handoff', 'nobody will take this', { user: GRACE, channel: USERS });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => m.text.includes('nobody will take this')),
      'the ticket',
    );
    const now = () => e.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
    const thread = () => e.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text);
    const reminders = () => thread().filter((t) => t.startsWith('Reminder'));
    expect(now().text.split('\n')[0]).toMatch(/^Waiting since \d\d:\d\d UTC/);

    // Before the first interval the sweep owes nothing.
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(reminders()).toEqual([]);
    // One reminder per interval, each naming the wait so far; the user is told after the claim timeout (10 min).
    for (const n of [1, 2, 3]) {
      offset += REMIND_MS;
      await e.app.bridge.handoffs.sweepUnclaimed();
      const sent = await waitFor(() => reminders().length === n && reminders(), `reminder ${n}`);
      expect(sent[n - 1]).toMatch(
        new RegExp(`^Reminder \\(${n} of 3\\): Grace Hopper has been waiting ${n * 5} min for an agent`),
      );
    }
    expect(now().text.split('\n')[0]).toMatch(/^Waiting since \d\d:\d\d UTC \(15 min so far\)/);

    // One more interval after the third reminder: timed out.
    offset += REMIND_MS;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const state = await waitFor(() => {
      const line = now().text.split('\n')[0]!;
      return line.startsWith('Timed out') && line;
    }, 'the timed-out state line');
    expect(state).toMatch(/^Timed out at \d\d:\d\d UTC: nobody claimed it in 20 min/);
    expect(buttons(now())).toEqual([]);
    expect(reminders()).toHaveLength(3);
    expect(thread().find((t) => t.startsWith('Nobody claimed'))).toMatch(
      /^Nobody claimed this ticket in 20 min: it timed out/,
    );
    const told = await waitFor(
      () => e.fake.replies(USERS, root.ts).find((m) => /no agent could pick up your request in time/.test(m.text)),
      'the user told',
    );
    expect(told.text).toMatch(/^Sorry, no agent could pick up your request in time\. I'm back/);
    const userThread = await waitFor(() => {
      const msgs = e.fake.replies(USERS, root.ts);
      return !msgs.some((m) => button(m, 'Cancel')) && msgs;
    }, 'the Cancel button gone');
    expect(userThread.flatMap((m) => buttons(m).map((b) => b.text.text))).not.toContain('Cancel');

    await e.driver.command('/analytics', '', { user: ADMIN, channel: 'C0FIGURES' });
    const shown = await waitFor(
      () => e.fake.channelMessages('C0FIGURES').find((m) => m.text.includes('Handoffs:')),
      'the analytics text',
    );
    expect(shown.text).toContain('Handoffs: 1 opened, 0 claimed, 0 closed, 0 cancelled, 1 timed out');
    expect(shown.text).toContain('Time to claim: p50 n/a, p90 n/a');
    expect(shown.text).toContain('Satisfaction: n/a average of 0 ratings');
    const figures = await analyticsShown(e.fake, 'C0FIGURES');
    expect(figures.rows).toContainEqual(['Handoffs', '1 opened, 0 claimed, 0 closed, 0 cancelled, 1 timed out']);
    const handoffs = figures.chart.chart.series.find((x) => x.name === 'Handoffs')!;
    expect(handoffs.data.reduce((n, p) => n + p.value, 0)).toBe(1);
  }, 60_000);
});
