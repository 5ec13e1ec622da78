/**
 * A Discord user handed to a Slack handoff channel: one app (startApp) with both surfaces, only
 * SLACK_HANDOFF_CHANNEL configured. The ticket, the claim and the agent's replies live on Slack
 * (driven by signed requests to /slack/events), the user stays on Discord.
 */
import { botMessagesIn } from '../../support/discord-e2e';
import { answerIn, botSays } from '../../support/discord-flows';
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { discordTicketOnSlack, SLACK_HANDOFF, startDiscordToSlack } from '../../support/cross-surface';
import { useStarted } from '../../support/server-setup';

describe('Discord user, Slack handoff channel', () => {
  // Agent Smith and U0OTHER are members of the Slack handoff channel (agents: conversations.members).
  const x = useStarted(() =>
    startDiscordToSlack({ users: { U0AGENT: 'Agent Smith' }, members: ['U0AGENT', 'U0OTHER'] }),
  );

  test('ticket on Slack names the Discord user with Claim; claim, relay both ways word for word, Close hands back', async () => {
    const { e, slack, driver } = x;
    const question = 'Which homes are for rent in Seattle?';
    const { threadId, ticket } = await discordTicketOnSlack(x, question, 'I want a viewing');
    /** The Slack ticket once `ok` holds for it. */
    const slackTicketOnce = (ok: (m: typeof ticket) => boolean, what: string) =>
      waitFor(() => {
        const m = slack.message(SLACK_HANDOFF, ticket.ts);
        return m && ok(m) ? m : undefined;
      }, what);
    expect(ticket.text).toContain('ada');
    expect(ticket.text).toContain('I want a viewing');
    expect(ticket.text).toContain(question);
    // Readable across surfaces: the state line first, the Discord user by name, a Discord message link, the channel's name.
    expect(ticket.text.split('\n')[0]).toMatch(/^Waiting since /);
    expect(ticket.text).toContain('ada (Discord user)');
    expect(ticket.text).toContain(`https://discord.com/channels/${e.fake.guildId}/${e.general.id}/${threadId}`);
    expect(ticket.text).toContain('#general');
    expect(ticket.text).toContain('City: Seattle');
    // Nothing went to a Discord handoff channel: there is none.
    expect(e.fake.channelMessages(e.handoff.id)).toEqual([]);

    await driver.click(button(ticket, 'Claim')!, { channel: SLACK_HANDOFF, messageTs: ticket.ts }, { user: 'U0AGENT' });
    const claimedTicket = await slackTicketOnce((m) => !button(m, 'Claim'), 'the claim shown on the ticket');
    expect(claimedTicket.text.split('\n')[0]).toMatch(/^Claimed by Agent Smith at \d\d:\d\d UTC/);
    expect(await botSays(e, threadId, 'Agent Smith', 'the Discord user told who joined')).toBe(
      'Agent Smith (agent) has joined the conversation and will answer you here.',
    );

    // Agent (Slack ticket thread) -> user (Discord thread), with the agent's name.
    const agentText = 'Happy to help: Saturday at 11 works, see you there.';
    const agentTs = `${Math.floor(Date.now() / 1000)}.200001`;
    const res = await driver.event({
      type: 'message',
      channel: SLACK_HANDOFF,
      channel_type: 'channel',
      user: 'U0AGENT',
      text: agentText,
      ts: agentTs,
      thread_ts: ticket.ts,
    });
    expect(res.status).toBe(200);
    const relayed = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes(agentText)),
      'the agent reply in the Discord thread',
      10_000,
      e.fake.changes,
    );
    expect(relayed.content).toContain('Agent Smith');

    // User (Discord thread) -> agent (Slack ticket thread), word for word; the bot does not answer it.
    const userTexts = ['Great, can I bring my *partner* — and our dog?', 'Also: is parking included (2 cars)?'];
    for (const text of userTexts) {
      e.fake.userMessage({ channelId: threadId, member: e.user, content: text });
      const inSlack = await waitFor(
        () => slack.replies(SLACK_HANDOFF, ticket.ts).find((m) => m.text.includes(text)),
        `"${text}" in the Slack ticket thread`,
      );
      expect(inSlack.text).toBe(`*ada:* ${text}`);
    }
    const inTicket = slack.replies(SLACK_HANDOFF, ticket.ts).map((m) => m.text);
    const firstAt = inTicket.findIndex((t) => t.includes(userTexts[0]!));
    const secondAt = inTicket.findIndex((t) => t.includes(userTexts[1]!));
    expect(firstAt).toBeLessThan(secondAt);
    expect(inTicket[firstAt]).toContain('ada');
    for (const text of userTexts) expect(e.storedAnswers(text)).toEqual([]);

    // Another Slack member's message in the ticket thread is an internal note: kept on Slack, marked.
    const noteTs = `${Math.floor(Date.now() / 1000)}.200009`;
    await driver.event({
      type: 'message',
      channel: SLACK_HANDOFF,
      channel_type: 'channel',
      user: 'U0OTHER',
      text: 'Her budget is firm',
      ts: noteTs,
      thread_ts: ticket.ts,
    });
    const note = await waitFor(
      () => slack.replies(SLACK_HANDOFF, ticket.ts).find((m) => m.text.startsWith('Internal note from')),
      'the note marked on Slack',
    );
    expect(note.text).toMatch(/^Internal note from \S+: kept for the team, not sent to ada\./);
    expect(botMessagesIn(e.fake, threadId).some((m) => m.content.includes('Her budget is firm'))).toBe(false);

    // Close by the agent: the ticket says so and the bot answers the Discord thread again.
    const claimed = slack.message(SLACK_HANDOFF, ticket.ts)!;
    await driver.click(
      button(claimed, 'Close')!,
      { channel: SLACK_HANDOFF, messageTs: ticket.ts },
      { user: 'U0AGENT' },
    );
    const closedTicket = await slackTicketOnce((m) => !button(m, 'Close'), 'the ticket closed');
    expect(closedTicket.text.split('\n')[0]).toMatch(/^Closed by Agent Smith at \d\d:\d\d UTC/);
    expect(await botSays(e, threadId, /closed/i, 'the Discord user told the bot is back')).toMatch(
      /Agent Smith closed/,
    );
    // The Discord user rates the help in the survey; the Slack ticket shows the score.
    const prompt = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Rate the help')),
      'the survey prompt',
      15_000,
      e.fake.changes,
    );
    const opened = e.fake.clickButtonLabelled(prompt, 'Rate the help', e.user);
    const survey = await waitFor(() => e.fake.modalOf(opened), 'the survey', 15_000, e.fake.changes);
    e.fake.submitModal({
      customId: survey.custom_id,
      channelId: threadId,
      member: e.user,
      message: prompt,
      values: {},
      radios: { rating: '4' },
    });
    const rated = await slackTicketOnce((m) => /rated/.test(m.text), 'the rating on the Slack ticket');
    expect(rated.text).toMatch(/^Closed by Agent Smith .*rated 4\/5/);
    const after = 'And homes for sale in Seattle?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: after });
    expect(await answerIn(e, threadId, after)).toContain('homes for sale in Seattle');
    expect(slack.replies(SLACK_HANDOFF, ticket.ts).some((m) => m.text.includes(after))).toBe(false);
    expect(slack.rateLimited).toBe(0);
    expect(e.fake.rateLimitHits).toBe(0);
  }, 60_000);
});
