/**
 * Whom a native stream is addressed to (chat.startStream's `recipient_user_id`), end to end through
 * signed requests: the asker of the thread, carried by the request and stored with the conversation,
 * never a channel's "last command user". Four people asking at once in one channel each get their
 * own thread streamed to them; a participant's question in a thread is streamed to its asker; a
 * press of "Ask about a viewing" on someone else's listing cards starts a conversation that is the
 * presser's, streamed to the presser.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { shown } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';

const ASKERS = ['U0ASK1', 'U0ASK2', 'U0ASK3', 'U0ASK4'] as const;
const QUESTIONS = [
  'Which homes are for sale in Austin?',
  'Which homes are for rent in Austin?',
  'Which homes are for sale in Seattle?',
  'Which homes are for rent in Seattle?',
];

interface CardEl {
  type: 'card';
  actions?: Array<{ action_id: string; value?: string; text: { text: string } }>;
}

function cardsOf(msg: FakeMessage): CardEl[] {
  const c = (msg.blocks as Array<{ type: string; elements?: CardEl[] }>).find((b) => b.type === 'carousel');
  return c?.elements ?? [];
}

describe('Slack e2e: native streams are addressed to the asker of the thread', () => {
  const e = useStarted(() =>
    startSlackE2E({
      fragmentDelayMs: 5,
      fake: {
        users: {
          U0ASK1: 'Ada Lovelace',
          U0ASK2: 'Grace Hopper',
          U0ASK3: 'Katherine Johnson',
          U0ASK4: 'Margaret Hamilton',
        },
      },
      // No handoff channel: "Ask about a viewing" is then refused as a handoff and its question is
      // answered by the bot (streamed), so the stream's address is there to check.
      env: { SLACK_HANDOFF_CHANNEL: '' },
    }),
  );

  /** The recipients of every chat.startStream in a thread (a long answer may rotate to more streams). */
  const recipientsIn = (channel: string, threadTs: string): unknown[] =>
    e.fake
      .callsOf('chat.startStream')
      .filter((c) => c.args.channel === channel && c.args.thread_ts === threadTs && c.response.ok === true)
      .map((c) => c.args.recipient_user_id);

  test('four people /ask in one channel at once: each thread is streamed to its own asker', async () => {
    const channel = 'C0FOURASK';
    await Promise.all(ASKERS.map((user, i) => e.driver.command('/ask', QUESTIONS[i]!, { user, channel })));
    for (const [i, user] of ASKERS.entries()) {
      const question = QUESTIONS[i]!;
      const root = await waitFor(() => rootFor(e.fake, channel, question), `the root of ${user}'s question`);
      // The root names who asked: the thread is theirs.
      expect(root.text).toContain(`<@${user}>`);
      await waitForAnswer(e, channel, root.ts, question, 40_000);
      const recipients = recipientsIn(channel, root.ts);
      expect({ user, recipients: recipients.length > 0 }).toEqual({ user, recipients: true });
      expect({ user, recipients }).toEqual({ user, recipients: recipients.map(() => user) });
      for (const c of e.fake.callsOf('chat.startStream').filter((x) => x.args.thread_ts === root.ts))
        expect(c.args.recipient_team_id).toBe(e.fake.team);
    }
  }, 90_000);

  test("a participant's question in someone's thread is answered in a stream addressed to the thread's asker", async () => {
    const channel = 'C0FOLLOWUP';
    const [ada, grace] = [ASKERS[0], ASKERS[1]];
    const question = QUESTIONS[0]!;
    await e.driver.command('/ask', question, { user: ada, channel });
    const root = await waitFor(() => rootFor(e.fake, channel, question), 'the root');
    const first = await waitForAnswer(e, channel, root.ts, question, 40_000);
    const follow = 'And which homes are for rent in Seattle?';
    await e.driver.event({
      type: 'message',
      channel,
      channel_type: 'channel',
      user: grace,
      text: follow,
      ts: `${Math.floor(Date.now() / 1000)}.900001`,
      thread_ts: root.ts,
    });
    await waitForAnswer(e, channel, root.ts, follow, 40_000, first.messages.length);
    const recipients = recipientsIn(channel, root.ts);
    expect(recipients.length).toBeGreaterThanOrEqual(2);
    // Every instance reads the asker from the conversation: the thread stays Ada's.
    expect(recipients).toEqual(recipients.map(() => ada));
  }, 90_000);

  test('B presses "Ask about a viewing" on A\'s listing cards: the conversation and its stream are B\'s', async () => {
    const channel = 'C0VIEWING';
    const [ada, grace] = [ASKERS[0], ASKERS[1]];
    await e.driver.command('/listings', 'city:Austin', { user: ada, channel });
    const list = await waitFor(
      () => e.fake.channelMessages(channel).find((m) => cardsOf(m).length > 0),
      "Ada's listing cards",
    );
    const viewing = cardsOf(list)[0]!.actions!.find((a) => a.text.text === 'Ask about a viewing')!;
    await e.driver.click(viewing, { channel, messageTs: list.ts }, { user: grace });
    const root = await waitFor(
      () => e.fake.channelMessages(channel).find((m) => shown(m.text).includes("> I'd like to schedule a viewing of")),
      "the viewing conversation's root",
    );
    // The presser acts and the conversation is hers: the root names Grace, not Ada who listed the cards.
    expect(root.text).toContain(`<@${grace}>`);
    expect(root.text).not.toContain(`<@${ada}>`);
    const question = shown(root.text).split('\n> ')[1]!;
    await waitForAnswer(e, channel, root.ts, question, 40_000);
    const recipients = recipientsIn(channel, root.ts);
    expect(recipients.length).toBeGreaterThan(0);
    expect(recipients).toEqual(recipients.map(() => grace));
    // Grace is told why no human was asked (no handoff channel here): the reply goes to the presser.
    const told = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === channel && m.user === grace),
      'the reply to the presser',
    );
    expect(told.user).toBe(grace);
    expect(e.fake.ephemerals.filter((m) => m.channel === channel && m.user === ada)).toEqual([]);
  }, 90_000);
});
