/**
 * Limits per person through the whole Slack bridge: the chatbot's RateLimitCount per RateLimitTime
 * (as its owner set them with /chatbot set) holds per user across all their conversations, answered
 * with the chatbot's RateLimitMessage while another user is answered; the bridge's own flood limit
 * (USER_RATE_LIMIT, default 30 a minute) for commands and button presses answers with an ephemeral
 * saying when to try again.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { buttons } from '../../../fakes/slack-blocks';
import { ADMIN, answerMessages, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const USERS = {
  U0USER1: 'Ada Lovelace',
  U0USER2: 'Grace Hopper',
  U0FLOOD: 'Flo Flood',
  [ADMIN]: 'Alan Admin',
  U0AGENT: 'Agent Smith',
};
const LIMIT_MESSAGE = 'Slow down please: 2 questions an hour per person. [rl-bridge]';

/** The text a Slack user reads of an answer's messages, in order. */
const answerText = (answer: { messages: FakeMessage[] }): string => answer.messages.map((m) => m.text).join('\n');

describe('Slack e2e: limits per person', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2, fake: { users: USERS } }));

  const shownIn = (channel: string): string[] => [
    ...e.fake.messages.filter((m) => m.channel === channel).map((m) => m.text),
    ...e.fake.ephemerals.filter((m) => m.channel === channel).map((m) => m.text),
  ];

  async function setting(name: string, value: string): Promise<void> {
    const channel = `C0SET${name.toUpperCase()}`;
    // The channel may hold an earlier set of the same name: wait for this one's reply.
    const replies = () => shownIn(channel).filter((t) => t.startsWith(`Set ${name} to`));
    const before = replies().length;
    await e.driver.command('/chatbot', `set ${name} ${value}`, { user: ADMIN, channel });
    const set = await waitFor(() => replies().length > before && replies().at(-1), `/chatbot set ${name}`);
    expect(set).toMatch(new RegExp(`^Set ${name} to .*${value.split(' ')[0]}`));
  }

  async function ask(user: string, channel: string, question: string): Promise<string> {
    const res = await e.driver.command('/ask', question, { user, channel });
    expect(res.status).toBe(200);
    return (await waitFor(() => rootFor(e.fake, channel, question), `the root of "${question}"`)).ts;
  }

  test('a user over RateLimitCount, across conversations, gets RateLimitMessage while another user is answered', async () => {
    await setting('RateLimitCount', '2');
    await setting('RateLimitTime', '3600');
    await setting('RateLimitMessage', LIMIT_MESSAGE);
    try {
      // Two questions in two conversations (two chat sessions: the service's own per-session count never trips).
      const q1 = 'Homes for sale in Austin? (limit 1)';
      const q2 = 'Condos for rent in Denver? (limit 2)';
      // Both within the limit: answered, each about its own question.
      const a1 = answerText(await waitForAnswer(e, 'C0LIM1', await ask('U0USER1', 'C0LIM1', q1), q1));
      expect(a1).toContain('homes for sale in Austin');
      const a2 = answerText(await waitForAnswer(e, 'C0LIM2', await ask('U0USER1', 'C0LIM2', q2), q2));
      expect(a2).toContain('condo for rent in Denver');

      // The third, in yet another conversation, is over the limit: the chatbot's words, no question asked.
      const q3 = 'Lofts in Miami? (over the limit)';
      const root3 = await ask('U0USER1', 'C0LIM3', q3);
      const other = 'Homes for sale in Seattle? (another user)';
      const otherRoot = await ask('U0USER2', 'C0LIMOTHER', other);
      const told = await waitFor(
        () => answerMessages(e.fake, 'C0LIM3', root3).find((m) => m.text === LIMIT_MESSAGE),
        'the RateLimitMessage',
      );
      expect(told.thread_ts).toBe(root3);
      // The other user is not held back by Ada's limit: Grace gets her Seattle answer.
      expect(answerText(await waitForAnswer(e, 'C0LIMOTHER', otherRoot, other))).toContain('homes for sale in Seattle');
      await e.app.bridge.conversations.idle();
      expect(e.storedAnswers(q3)).toHaveLength(0);

      // Continuing an earlier conversation is over the limit too: the count is the person's, not the thread's.
      const follow = 'And with a garden? (follow-up over the limit)';
      const root1 = rootFor(e.fake, 'C0LIM1', q1)!.ts;
      await e.driver.event({
        type: 'message',
        channel: 'C0LIM1',
        channel_type: 'channel',
        user: 'U0USER1',
        text: follow,
        ts: `${Math.floor(Date.now() / 1000)}.300001`,
        thread_ts: root1,
      });
      const limited = await waitFor(
        () => answerMessages(e.fake, 'C0LIM1', root1).find((m) => m.text.includes(LIMIT_MESSAGE.slice(0, 20))),
        'the RateLimitMessage in the first thread',
      );
      expect(limited.text).toBe(LIMIT_MESSAGE);
      await e.app.bridge.conversations.idle();
      expect(e.storedAnswers(follow)).toHaveLength(0);
    } finally {
      await setting('RateLimitCount', '0');
    }
  });

  test('the flood limit: the 31st command or button press in a minute gets an ephemeral saying when to try again', async () => {
    const q = 'Townhouses in Boston? (flood)';
    const root = await ask('U0FLOOD', 'C0FLOOD', q);
    // The first command of the minute is answered (Boston is outside the listings).
    expect(answerText(await waitForAnswer(e, 'C0FLOOD', root, q))).toContain('We have no listings in Boston');
    // 29 more commands: 30 in the minute, all answered with their usage.
    for (let i = 0; i < 29; i++) {
      const res = await e.driver.command('/ask', 'help', { user: 'U0FLOOD', channel: 'C0FLOODHELP' });
      expect(res.status).toBe(200);
    }
    const usages = await waitFor(() => {
      const shown = e.fake.ephemerals.filter((m) => m.channel === 'C0FLOODHELP');
      return shown.length === 29 && shown;
    }, '29 usage answers');
    expect(usages.filter((m) => /Usage: \/ask/.test(m.text))).toHaveLength(29);

    // The 31st, a button press on the user's own thread, is refused ephemerally with when to try again.
    const pressable = [e.fake.message('C0FLOOD', root)!, ...answerMessages(e.fake, 'C0FLOOD', root)].flatMap((m) =>
      buttons(m).map((b) => ({ b, ts: m.ts })),
    );
    expect(pressable.length).toBeGreaterThan(0);
    const { b, ts } = pressable[0]!;
    await e.driver.click(
      b,
      { channel: 'C0FLOOD', messageTs: ts, threadTs: ts === root ? undefined : root },
      { user: 'U0FLOOD' },
    );
    const refusal = await waitFor(
      () => e.fake.ephemerals.find((m) => m.user === 'U0FLOOD' && /too fast/.test(m.text)),
      'the flood refusal',
    );
    expect(refusal.text).toMatch(/at most 30 commands and button presses a minute/);
    expect(refusal.text).toMatch(/Try again in \d+ s \(at \d\d:\d\d:\d\d UTC\)/);
    // And a command too; another user is not affected.
    await e.driver.command('/ask', 'help', { user: 'U0FLOOD', channel: 'C0FLOOD32' });
    const tooFast = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0FLOOD32'), '32nd');
    expect(tooFast).toMatchObject({ user: 'U0FLOOD', text: expect.stringMatching(/too fast/) });
    await e.driver.command('/ask', 'help', { user: 'U0USER2', channel: 'C0FLOODOTHER' });
    const other = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === 'C0FLOODOTHER'),
      'usage for another user',
    );
    expect(other.text).toMatch(/Usage: \/ask/);
  });
});
