/** Every command through the whole app; listings paging; the listing modal's inline errors; handoff. */
import { startSlackE2E, waitForAnswer, rootFor, ADMIN, HANDOFF_CHANNEL } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { button } from '../../../fakes/slack-blocks';
import { useStarted } from '../../support/server-setup';
import { ephemeralTo, firstLineOf } from '../../support/slack-flows';

describe('Slack e2e: commands', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2 }));

  /** Everything the bot showed in a channel (messages and ephemerals), after `since` calls. */
  const shownIn = (channel: string): string[] => [
    ...e.fake.messages.filter((m) => m.channel === channel).map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`),
    ...e.fake.ephemerals.filter((m) => m.channel === channel).map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`),
  ];

  test.each([
    ['/ask', 'help'],
    ['/listings', 'help'],
    ['/listing', 'help'],
    ['/chatbot', 'help'],
    ['/handoff', 'help'],
    ['/analytics', 'help'],
    ['/history', 'help'],
  ])('%s %s answers with its usage, acked within 3 s', async (command, text) => {
    const channel = `C0HELP${command.slice(1).toUpperCase()}`;
    const res = await e.driver.command(command, text, { user: ADMIN, channel });
    expect(res.status).toBe(200);
    expect(e.driver.lateAcks).toEqual([]);
    const shown = await waitFor(() => shownIn(channel)[0], `the usage of ${command}`);
    expect(shown).toContain(command);
  });

  test('admin commands are refused for others', async () => {
    await e.driver.command('/chatbot', 'show', { user: 'U0USER1', channel: 'C0REFUSE' });
    const shown = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0REFUSE'), 'the refusal');
    expect(shown.user).toBe('U0USER1');
    expect(shown.text.toLowerCase()).toMatch(/admin/);
  });

  test.each([
    ['/chatbot', 'show', 'C0CHATBOT', /^Chatbot: /],
    ['/chatbot', 'models', 'C0MODELS', /^Models \(set one with \/chatbot set Model (<|&lt;)name or key(>|&gt;)\):\n\S/],
    ['/history', 'U0USER1', 'C0HISTORY', /^(Conversations of|No conversations found for) /],
    // The progress message, edited in place into the figures, then the chart.
    ['/analytics', '', 'C0ANALYTICS', /^Chart: .*, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d/],
  ])('%s %s answers admins', async (command, text, channel, expected) => {
    await e.driver.command(command, text, { user: ADMIN, channel });
    const answer = await waitFor(() => shownIn(channel).find((t) => expected.test(t)), `${command} ${text}`);
    expect(answer).toMatch(expected);
    expect(shownIn(channel).join('\n')).not.toMatch(/something went wrong/i);
  });

  test('/listings shows cards; Next edits the same message', async () => {
    await e.driver.command('/listings', '', { user: 'U0USER1', channel: 'C0LISTINGS' });
    const msg = await waitFor(
      () => e.fake.channelMessages('C0LISTINGS').find((m) => button(m, /Next/)),
      'the listings page',
    );
    expect(msg.text).toMatch(/page 1 of/);
    expect(JSON.stringify(msg.blocks)).toContain('"image"');
    const page1 = msg.text;
    const next = button(msg, /Next/)!;
    const res = await e.driver.click(next, { channel: 'C0LISTINGS', messageTs: msg.ts });
    expect(res.status).toBe(200);
    const paged = await waitFor(() => {
      const now = e.fake.message('C0LISTINGS', msg.ts)!;
      return now.text !== page1 && now;
    }, 'page 2 in the same message');
    expect(paged.text).toMatch(/page 2 of/);
    expect(e.fake.channelMessages('C0LISTINGS')).toHaveLength(1);
    expect(button(e.fake.message('C0LISTINGS', msg.ts)!, /Prev/)).toBeDefined();
  });

  test('/listing create opens a modal; invalid values come back inline (response_action errors)', async () => {
    await e.driver.command('/listing', 'create', { user: ADMIN, channel: 'C0CREATE' });
    const view = await waitFor(() => e.fake.views.find((v) => String(v.callback_id).includes('listing')), 'the modal');
    const inputs = (
      view.blocks as Array<{ type: string; block_id?: string; optional?: boolean; element?: { type: string } }>
    ).filter((b) => b.type === 'input');
    expect(inputs.length).toBeGreaterThan(5);
    expect(inputs.some((b) => b.optional === false)).toBe(true);
    expect(inputs.some((b) => b.element?.type === 'static_select')).toBe(true);
    const numeric = inputs.find((b) => b.element?.type === 'number_input')!;
    const values: Record<string, string> = { [numeric.block_id!]: 'not a number' };
    const res = await e.driver.submitView(view, values, { user: ADMIN });
    expect(res.status).toBe(200);
    const body = res.json as { response_action?: string; errors?: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(Object.keys(body.errors ?? {}).length).toBeGreaterThan(0);
    for (const id of Object.keys(body.errors ?? {})) expect(inputs.map((b) => b.block_id)).toContain(id);
  });

  test('handoff round trip: ticket mentions the user with Claim; messages relay both ways word for word', async () => {
    const question = 'Homes for rent in Denver?';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0USERS' });
    const root = await waitFor(() => rootFor(e.fake, 'C0USERS', question), 'the root');
    const { messages } = await waitForAnswer(e, 'C0USERS', root.ts, question);
    const talk = button(messages.at(-1)!, 'Talk to a human')!;
    expect(talk).toBeDefined();
    await e.driver.click(
      talk,
      { channel: 'C0USERS', messageTs: messages.at(-1)!.ts, threadTs: root.ts },
      { user: 'U0USER1' },
    );
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => button(m, 'Claim')),
      'the ticket',
    );
    expect(ticket.text).toContain('<@U0USER1>');
    await e.driver.click(
      button(ticket, 'Claim')!,
      { channel: HANDOFF_CHANNEL, messageTs: ticket.ts },
      { user: 'U0AGENT' },
    );
    const claimed = await waitFor(() => {
      const now = e.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
      return !button(now, 'Claim') && now;
    }, 'the claim to show on the ticket');
    expect(claimed.text).toMatch(/^Claimed by Agent Smith at \d\d:\d\d UTC/);

    const userText = 'I would like to *visit* the Denver one — tomorrow at 10?';
    await e.driver.event({
      type: 'message',
      channel: 'C0USERS',
      channel_type: 'channel',
      user: 'U0USER1',
      text: userText,
      ts: `${Math.floor(Date.now() / 1000)}.100001`,
      thread_ts: root.ts,
    });
    const relayed = await waitFor(
      () => e.fake.replies(HANDOFF_CHANNEL, ticket.ts).find((m) => m.text.includes('visit')),
      'the user message in the ticket thread',
    );
    expect(relayed.text).toContain(userText);

    const agentText = 'Sure! 10am works — see you at the door.';
    await e.driver.event({
      type: 'message',
      channel: HANDOFF_CHANNEL,
      channel_type: 'channel',
      user: 'U0AGENT',
      text: agentText,
      ts: `${Math.floor(Date.now() / 1000)}.100002`,
      thread_ts: ticket.ts,
    });
    const reply = await waitFor(
      () => e.fake.replies('C0USERS', root.ts).find((m) => m.text.includes('10am')),
      'the agent reply in the user thread',
    ).catch((err: unknown) => {
      throw new Error(
        `${String(err)} eph=${JSON.stringify(e.fake.ephemerals.slice(-3))} user=${JSON.stringify(e.fake.replies('C0USERS', root.ts).map((m) => m.text))} ticket=${JSON.stringify(e.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text))}`,
      );
    });
    expect(reply.text).toContain(agentText);
    // The bot does not answer the user's message itself while a human holds the thread.
    expect(e.storedAnswers(userText)).toHaveLength(0);
    expect(e.fake.rateLimited).toBe(0);
  });

  test('/handoff typed in the channel hands off the user’s most recent conversation there', async () => {
    const question = 'Condos in Miami for sale?';
    await e.driver.command('/ask', question, { user: 'U0USER2', channel: 'C0HANDOFFCMD' });
    const root = await waitFor(() => rootFor(e.fake, 'C0HANDOFFCMD', question), 'the root');
    const { messages } = await waitForAnswer(e, 'C0HANDOFFCMD', root.ts, question);
    expect(firstLineOf(messages)).toMatch(/^I found \d+ condos? for sale in Miami:$/);
    const before = e.fake.channelMessages(HANDOFF_CHANNEL).length;
    const shownBefore = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'I need a person', { user: 'U0USER2', channel: 'C0HANDOFFCMD' });
    const ticket = await waitFor(
      () =>
        e.fake
          .channelMessages(HANDOFF_CHANNEL)
          .slice(before)
          .find((m) => m.text.includes('<@U0USER2>')),
      'the ticket',
    );
    expect(button(ticket, 'Claim')).toBeDefined();
    // The user is told, privately, that an agent will join their thread.
    const told = await ephemeralTo(e.fake, 'U0USER2', /human agent/, shownBefore);
    expect(told.text).toBe('A human agent has been asked to join your conversation thread.');
  });
});
