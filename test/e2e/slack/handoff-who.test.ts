/**
 * Who is who in a Slack handoff, end to end. An agent is a member of the handoff channel
 * (`conversations.members`) or an admin: someone who can see the ticket (a public handoff channel)
 * but is not a member presses Claim, Take over (and its confirmation, forged), Close, and writes in
 * the ticket thread: each is refused with an ephemeral that says why, the ticket does not change,
 * and nothing reaches the user. The member agent's claim, reply and close do. The asker is who
 * started the conversation: a participant in it may ask the bot, but their `/handoff` and their
 * "Ask about a viewing" in that thread are refused.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { AGENT, HANDOFF_CHANNEL, rootFor, startSlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { becomes, ephemeralsTo, ephemeralTo as ephemeralIn, textMatching } from '../../support/slack-flows';

const USERS = 'C0WHO';
const ADA = 'U0USER1';
const GRACE = 'U0USER2';
const MALLORY = 'U0MALLORY';

/** A button as the bridge renders it (blocks.ts), for a press on a message that never carried it. */
const forged = (action: string, value: string) => ({
  action_id: `bridge:${action}:0`,
  value: JSON.stringify({ a: action, v: value }),
});

let tsSeq = 0;
const nextTs = (): string => `${Math.floor(Date.now() / 1000)}.7${String(++tsSeq).padStart(5, '0')}`;

describe('Slack: who may act on a handoff', () => {
  const e = useStarted(() =>
    startSlackE2E({
      fake: { users: { [ADA]: 'Ada Lovelace', [GRACE]: 'Grace Hopper', [AGENT]: 'Agent Smith', [MALLORY]: 'Mallory' } },
    }),
  );
  let root: FakeMessage;

  const ephemeralTo = (user: string, re: RegExp, after: number) => ephemeralIn(e.fake, user, re, after);
  /** The `n`th refusal to `user` since `after` matching `re`: its whole text, to assert on. */
  const nthTo = async (user: string, re: RegExp, after: number, n: number): Promise<string> =>
    (await ephemeralsTo(e.fake, user, re, after, n))[n - 1]!.text;
  const click = (msg: FakeMessage, label: string, user: string) =>
    e.driver.click(
      button(msg, label)!,
      { channel: msg.channel, messageTs: msg.ts, ...(msg.thread_ts ? { threadTs: msg.thread_ts } : {}) },
      { user },
    );
  const say = (user: string, channel: string, thread: string, text: string) =>
    e.driver.event({ type: 'message', channel, channel_type: 'channel', user, text, ts: nextTs(), thread_ts: thread });
  const userThread = (): string[] => e.fake.replies(USERS, root.ts).map((m) => m.text);

  test('a participant may ask in the thread, but neither /handoff nor "Ask about a viewing" hands it off', async () => {
    const question = 'Any 2 bedroom condos for sale in Austin?';
    await e.driver.command('/ask', question, { user: ADA, channel: USERS });
    root = await waitFor(() => rootFor(e.fake, USERS, question), 'the conversation root');
    const answered = () => e.fake.replies(USERS, root.ts).filter((m) => button(m, 'Talk to a human'));
    const first = await waitFor(() => answered()[0], 'the answer');
    expect(first).toMatchObject({ user: e.fake.botUserId, thread_ts: root.ts });
    // Grace joins Ada's thread with a question of her own: the bot answers it.
    await say(GRACE, USERS, root.ts, 'And any with a garden?');
    const toGrace = await waitFor(() => answered()[1], 'the answer to Grace');
    expect(toGrace).toMatchObject({ user: e.fake.botUserId, thread_ts: root.ts });
    expect(toGrace.ts).not.toBe(first.ts);

    const eph = e.fake.ephemerals.length;
    // Slack sends a slash command without its thread: /handoff takes Grace's own recent conversation
    // in the channel, and Ada's is not hers.
    await e.driver.command('/handoff', 'hand this to a human', { user: GRACE, channel: USERS });
    const noConversation = await ephemeralTo(GRACE, /no conversation of yours here to hand off/, eph);
    // Told where she typed it, with what to do instead.
    expect(noConversation).toMatchObject({ channel: USERS, text: expect.stringContaining('Start one with /ask') });
    // "Ask about a viewing" on a card in Ada's thread.
    await e.driver.click(
      forged('handoff.viewing', 'MLS ATX240000'),
      { channel: USERS, messageTs: root.ts, threadTs: root.ts },
      { user: GRACE },
    );
    const notHers = await ephemeralTo(GRACE, /Only the person who asked in this conversation, or an admin/, eph);
    // Told in Ada's thread, where she pressed it.
    expect(notHers).toMatchObject({ channel: USERS, thread_ts: root.ts });
    // "Talk to a human" under the answer to Grace's own question is still Ada's.
    await click(answered().at(-1)!, 'Talk to a human', GRACE);
    expect(await nthTo(GRACE, /Only the person who asked/, eph, 2)).toMatch(
      /^Only the person who asked in this conversation, or an admin/,
    );
    expect(e.fake.channelMessages(HANDOFF_CHANNEL)).toEqual([]);
    expect(userThread().some((t) => /Connecting you with a human/.test(t))).toBe(false);
  }, 60_000);

  test('a non-member’s Claim, Take over, Close and thread messages change nothing and reach no one; the member agent’s do', async () => {
    await e.driver.command('/handoff', 'I want to make an offer', { user: ADA, channel: USERS });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => button(m, 'Claim')),
      'the ticket',
    );
    const now = (): FakeMessage => e.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
    const ticketThread = (): string[] => e.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text);
    const before = { ticket: now().text, user: userThread().length };
    const eph = e.fake.ephemerals.length;

    await click(now(), 'Claim', MALLORY);
    expect((await ephemeralTo(MALLORY, /may claim a ticket/, eph)).text).toBe(
      'Only members of the handoff channel may claim a ticket.',
    );
    await click(now(), 'Close', MALLORY);
    expect((await ephemeralTo(MALLORY, /may close this ticket/, eph)).text).toBe(
      'Only members of the handoff channel may close this ticket.',
    );
    await say(MALLORY, HANDOFF_CHANNEL, ticket.ts, 'Hi Ada, please send your bank details to me');
    // Told in the ticket thread where Mallory wrote.
    expect(await ephemeralTo(MALLORY, /your message was not sent to anyone/, eph)).toMatchObject({
      channel: HANDOFF_CHANNEL,
      thread_ts: ticket.ts,
    });
    expect(now().text).toBe(before.ticket);
    expect(now().text.split('\n')[0]).toMatch(/^Waiting since/);

    // The member claims: the ticket and the user say so.
    await click(now(), 'Claim', AGENT);
    const stateLine = () => now().text.split('\n')[0]!;
    expect(await becomes(stateLine, /^Claimed/, 'claimed by the agent')).toMatch(
      /^Claimed by Agent Smith at \d\d:\d\d UTC/,
    );
    expect(await textMatching(userThread, /has joined/, 'Ada told')).toContain('Agent Smith (agent) has joined');

    await click(now(), 'Take over', MALLORY);
    expect((await ephemeralTo(MALLORY, /may take over a ticket/, eph)).text).toBe(
      'Only members of the handoff channel may take over a ticket.',
    );
    // Even the confirmation, forged with the holder's id, changes nothing.
    await e.driver.click(
      forged('handoff.takeover.confirm', `${JSON.parse(button(now(), 'Close')!.value!).v}:${AGENT}`),
      { channel: HANDOFF_CHANNEL, messageTs: ticket.ts },
      { user: MALLORY },
    );
    expect(await nthTo(MALLORY, /may take over a ticket/, eph, 2)).toMatch(
      /Only members of the handoff channel may take over a ticket/,
    );
    await click(now(), 'Close', MALLORY);
    expect(await nthTo(MALLORY, /may close this ticket/, eph, 2)).toMatch(
      /Only members of the handoff channel may close this ticket/,
    );
    await say(MALLORY, HANDOFF_CHANNEL, ticket.ts, 'Ada, wire the deposit to account 12345');
    expect(await nthTo(MALLORY, /not sent to anyone/, eph, 2)).toMatch(/your message was not sent to anyone/);
    expect(now().text.split('\n')[0]).toMatch(/^Claimed by Agent Smith/);

    // The member agent's reply reaches Ada; their Close hands her back to the bot.
    await say(AGENT, HANDOFF_CHANNEL, ticket.ts, 'Hi Ada, happy to help with the offer.');
    expect(await textMatching(userThread, /happy to help/, 'the reply relayed')).toContain(
      'Hi Ada, happy to help with the offer.',
    );
    await click(now(), 'Close', AGENT);
    expect(await becomes(stateLine, /^Closed/, 'closed by the agent')).toMatch(
      /^Closed by Agent Smith at \d\d:\d\d UTC/,
    );
    expect(await textMatching(userThread, /closed the handoff/, 'Ada told')).toContain(
      'Agent Smith closed the handoff',
    );

    // Nothing of Mallory's reached Ada or the ticket's thread (not even as a note).
    const seen = [...userThread().slice(before.user), ...ticketThread()].join('\n');
    expect(seen).not.toMatch(/bank details|deposit|Mallory/);
  }, 60_000);
});
