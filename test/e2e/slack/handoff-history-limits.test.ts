/**
 * Slack's limits for a distributed app (SLACK_DISTRIBUTION=distributed; the fake enforces them:
 * conversations.history and .replies once a minute per workspace, 15 messages): ten people in one
 * workspace press "Talk to a human" within a minute, and every thread's answer loses its button,
 * without a single history read refused. The bridge took the buttons off the messages it recorded
 * as it posted them (button-records.ts), so it read nothing back at all.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/wait-for';
import { HANDOFF_CHANNEL, startSlackE2E } from '../../support/slack-e2e';
import { useStarted } from '../../support/server-setup';
import { pressTalkToHuman } from '../../support/slack-flows';

const PEOPLE = Array.from({ length: 10 }, (_, i) => ({
  user: `U0H${String(i).padStart(2, '0')}`,
  channel: `C0H${String(i).padStart(2, '0')}`,
  question: `Any 2 bedroom condos for sale in Austin, question ${i + 1}?`,
}));

describe('Slack, distributed app: handoffs never read history back', () => {
  const e = useStarted(() =>
    startSlackE2E({ fake: { historyLimits: 'distributed' }, env: { SLACK_DISTRIBUTION: 'distributed' } }),
  );

  test('ten "Talk to a human" in a minute in one workspace: every thread loses the button, 0 refused calls', async () => {
    const pressed = await Promise.all(
      PEOPLE.map((p) => pressTalkToHuman(e.fake, e.driver, p.user, p.channel, p.question)),
    );
    const tickets = await waitFor(
      () => {
        const t = e.fake.channelMessages(HANDOFF_CHANNEL).filter((m) => button(m, 'Claim'));
        return t.length === PEOPLE.length && t;
      },
      'ten tickets',
      60_000,
    );
    expect(tickets).toHaveLength(10);
    // Every thread's answers: none still offers "Talk to a human".
    const offering = (): FakeMessage[] =>
      pressed.flatMap(({ root }) =>
        e.fake.replies(root.channel, root.ts).filter((m) => button(m, 'Talk to a human') !== undefined),
      );
    await waitFor(() => offering().length === 0, 'every thread without "Talk to a human"', 30_000);
    for (const { answer } of pressed) {
      const now = e.fake.message(answer.channel, answer.ts)!;
      expect(button(now, 'Talk to a human')).toBeUndefined();
      // The answer keeps its words: only the button went.
      expect(now.text).toBe(answer.text);
    }
    // No history read was needed, so none was refused (and nothing else either).
    const reads = e.fake.calls.filter((c) => /^conversations\.(history|replies)$/.test(c.method));
    expect(reads).toHaveLength(0);
    expect(e.fake.historyRefused).toBe(0);
    expect(e.fake.calls.filter((c) => c.status === 429)).toHaveLength(0);
  }, 120_000);
});

/**
 * The one history read left: a thread from before the bridge recorded its buttons (here every
 * thread, by the bridge's clock: it began recording ten minutes from now) is read back once within
 * the workspace's budget (one call a minute, 15 messages at most), never waited for: while that one
 * read hangs, each handoff's ticket is posted and its buttons are off (the records'), and the other
 * threads go without a read instead of being refused.
 */
describe('Slack, distributed app: a thread older than the records is read back once a minute at most', () => {
  const e = useStarted(() =>
    startSlackE2E({
      fake: { historyLimits: 'distributed' },
      env: { SLACK_DISTRIBUTION: 'distributed' },
      now: () => Date.now() + 10 * 60_000,
    }),
  );

  test('three handoffs in a minute: one conversations.replies (limit 15), none waited for, none refused', async () => {
    const slow = e.fake.hold('conversations.replies');
    const three = PEOPLE.slice(0, 3);
    const pressed = await Promise.all(
      three.map((p) => pressTalkToHuman(e.fake, e.driver, p.user, p.channel, p.question)),
    );
    // While the one read hangs, what people see goes on: three tickets, every button off.
    await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).filter((m) => button(m, 'Claim')).length === 3,
      'three tickets while the history read hangs',
      60_000,
    );
    await waitFor(
      () =>
        pressed.every(
          ({ answer }) => button(e.fake.message(answer.channel, answer.ts)!, 'Talk to a human') === undefined,
        ),
      'every button off while the history read hangs',
      30_000,
    );
    expect(slow.arrived()).toBe(1);
    slow.release();
    const reads = await waitFor(() => {
      const r = e.fake.calls.filter((c) => /^conversations\.(history|replies)$/.test(c.method));
      return r.length === 1 && r;
    }, 'the one read answered');
    expect(Number(reads[0]!.args.limit)).toBeLessThanOrEqual(15);
    expect(reads[0]!.response.ok).toBe(true);
    expect(e.fake.historyRefused).toBe(0);
    expect(e.fake.calls.filter((c) => c.status === 429)).toHaveLength(0);
  }, 120_000);
});
