/**
 * A Slack ticket nobody claims, end to end: three reminders naming the wait, then `Timed out` on the
 * ticket with its buttons gone, the user told (their Cancel button gone), and the ticket counted as
 * timed out in /analytics (text and chart). Short intervals: HANDOFF_REMIND_S and
 * HANDOFF_CLAIM_TIMEOUT_S of 1 s put the time-out about four seconds after the request.
 */
import { startRestartableSlackE2E } from '../../support/handoff-e2e';
import { chartSpecOf, panelOf, pngInBody } from '../../support/png-chart';
import { button, buttons } from '../../../fakes/slack-blocks';
import { ADMIN, HANDOFF_CHANNEL, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const USERS = 'C0WAITS';
const GRACE = 'U0USER2';

describe('Slack: a ticket nobody claims', () => {
  const e = useStarted(() => startRestartableSlackE2E({ HANDOFF_REMIND_S: '1', HANDOFF_CLAIM_TIMEOUT_S: '1' }));

  test('three reminders, then Timed out on the ticket, the user told, counted in the figures', async () => {
    const question = 'Any townhouses for sale in Boise?';
    await e.driver.command('/ask', question, { user: GRACE, channel: USERS });
    const root = await waitFor(() => rootFor(e.fake, USERS, question), 'the conversation');
    await waitFor(() => e.fake.replies(USERS, root.ts).find((m) => button(m, 'Talk to a human')), 'its answer');
    await e.driver.command('/handoff', 'nobody will take this', { user: GRACE, channel: USERS });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => m.text.includes('nobody will take this')),
      'the ticket',
    );
    const now = () => e.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
    expect(now().text.split('\n')[0]).toMatch(/^Waiting since \d\d:\d\d UTC/);
    await waitFor(
      () => /^Timed out at \d\d:\d\d UTC: nobody claimed it in \d+ s/.test(now().text.split('\n')[0]!),
      'the timed-out state line',
      20_000,
    );
    expect(buttons(now())).toEqual([]);
    const thread = e.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text);
    const reminders = thread.filter((t) => t.startsWith('Reminder'));
    expect(reminders.map((t) => /^Reminder \((\d) of 3\): Grace Hopper has been waiting \d+ s/.exec(t)?.[1])).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(thread.find((t) => /Nobody claimed this ticket in \d+ s: it timed out/.test(t))).toBeDefined();
    await waitFor(
      () => e.fake.replies(USERS, root.ts).find((m) => /no agent could pick up your request in time/.test(m.text)),
      'the user told',
    );
    await waitFor(() => !e.fake.replies(USERS, root.ts).some((m) => button(m, 'Cancel')), 'the Cancel button gone');

    await e.driver.command('/analytics', '', { user: ADMIN, channel: 'C0FIGURES' });
    const shown = await waitFor(
      () => e.fake.channelMessages('C0FIGURES').find((m) => m.text.includes('Handoffs:')),
      'the analytics text',
    );
    expect(shown.text).toContain('Handoffs: 1 opened, 0 claimed, 0 closed, 0 cancelled, 1 timed out');
    expect(shown.text).toContain('Time to claim: p50 n/a, p90 n/a');
    expect(shown.text).toContain('Satisfaction: n/a average of 0 ratings');
    const upload = await waitFor(
      () => [...e.fake.uploads.values()].find((u) => u.channel === 'C0FIGURES' && u.data.length > 0),
      'the chart',
    );
    expect(panelOf(chartSpecOf(pngInBody(upload.data))!, 'Handoffs').values).toEqual([1, 0, 0, 0, 1]);
  }, 60_000);
});
