/**
 * The other way round from cross-surface-handoff: a Slack user handed to the Discord handoff channel.
 * One app with both surfaces, only DISCORD_HANDOFF_CHANNEL configured. The ticket (state line, Slack
 * permalink, channel name, lead), the claim, the agent's replies and notes live on Discord; the user,
 * their rating and the buttons that no longer apply stay on Slack. The app restarts between the claim
 * and the first reply and between the close and the rating. The clock is injected: the reminder comes
 * when the test moves it HANDOFF_REMIND_S (5 min) on and runs the sweep.
 */
import { startDiscordE2E } from '../../support/discord-e2e';
import { FakeSlack, type FakeMessage as SlackMessage } from '../../../fakes/fake-slack';
import type { FakeMessage } from '../../../fakes/fake-discord';
import { button } from '../../../fakes/slack-blocks';
import { rootFor } from '../../support/slack-e2e';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { botSays, firstLine, reminderLine, sweepAfter, textMatching } from '../../support/discord-flows';

const SECRET = 'cross-surface-back-signing-secret';
const USERS = 'C0XLEADS';
const ADA = 'U0XUSER';

describe('Slack user, Discord handoff channel', () => {
  let offset = 0;
  const x = useStarted(async () => {
    const slack = await new FakeSlack({ users: { [ADA]: 'Ada Lovelace' } }).start();
    slack.channelNames[USERS] = 'house-hunting';
    const e = await startDiscordE2E({
      env: {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
        HANDOFF_REMIND_S: '300',
      },
      now: () => Date.now() + offset,
    });
    return {
      e,
      slack,
      async close() {
        await e.close();
        await slack.close();
      },
    };
  });

  test('the Discord ticket reads well for a Slack user; claim, restart, note, relay, close, restart, and the Slack rating on the Discord ticket', async () => {
    const { e, slack } = x;
    let driver = new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team);
    const question = 'I want a 4 bedroom house in Boston, budget up to $900,000';
    await driver.command('/ask', question, { user: ADA, channel: USERS });
    const root = await waitFor(() => rootFor(slack, USERS, question), 'the Slack conversation');
    const answered = await waitFor(
      () => slack.replies(USERS, root.ts).find((m) => button(m, 'Talk to a human')),
      'the answer with Talk to a human',
    );
    const userThread = (): SlackMessage[] => slack.replies(USERS, root.ts);
    let seq = 0;
    const userSays = (text: string) =>
      driver.event({
        type: 'message',
        channel: USERS,
        channel_type: 'channel',
        user: ADA,
        text,
        ts: `${Math.floor(Date.now() / 1000)}.7${String(++seq).padStart(5, '0')}`,
        thread_ts: root.ts,
      });
    await userSays('Mail me at ada.b@example.com or call 617-555-0142. I liked MLS BOS240017 and 12 Beacon St.');
    const offers = await waitFor(() => {
      const withButton = userThread().filter((m) => button(m, 'Talk to a human'));
      return withButton.length >= 2 ? withButton : undefined;
    }, 'the answer to the follow-up');
    expect(offers[0]!.ts).toBe(answered.ts);

    await driver.click(
      button(answered, 'Talk to a human')!,
      { channel: USERS, messageTs: answered.ts, threadTs: root.ts },
      { user: ADA },
    );
    const ticket: FakeMessage = await waitFor(
      () => e.fake.channelMessages(e.handoff.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Claim')),
      'the ticket in the Discord handoff channel',
      15_000,
      e.fake.changes,
    );
    const stateLine = (): string => firstLine(ticket);
    const stateOnce = (re: RegExp, what: string): Promise<string> => textMatching(e, stateLine, re, what);
    /** The Slack user's thread once a message there contains `text`: that message's text. */
    const slackSays = async (text: string, what: string): Promise<string> =>
      (await waitFor(() => userThread().find((m) => m.text.includes(text)), what)).text;
    expect(stateLine()).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(ticket.content).toContain('Ada Lovelace');
    expect(ticket.content).toContain('#house-hunting');
    expect(ticket.content).toContain('on Slack');
    expect(ticket.content).toContain(`https://fake.slack.test/archives/${USERS}/p${root.ts.replace('.', '')}`);
    expect(ticket.content).not.toContain(slack.team);
    for (const fact of [
      'ada.b@example.com',
      '617-555-0142',
      'City: Boston',
      'Budget: $900,000',
      'Bedrooms: 4',
      'MLS BOS240017',
      '12 Beacon St',
    ]) {
      expect(ticket.content).toContain(fact);
    }
    const withCancel = await waitFor(
      () =>
        userThread().some((m) => button(m, 'Talk to a human'))
          ? undefined
          : userThread().filter((m) => button(m, 'Cancel')),
      'Talk to a human gone on Slack',
    );
    expect(withCancel).toHaveLength(1);

    await sweepAfter(
      e,
      (ms) => {
        offset += ms;
      },
      300_000,
    );
    expect(await botSays(e, ticket.id, 'Reminder', 'a reminder in the Discord ticket thread')).toBe(
      reminderLine(1, 'Ada Lovelace', '5 min'),
    );

    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await stateOnce(/^Claimed/, 'the claimed state line')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC, 5 min after the request/,
    );
    expect(await slackSays('has joined', 'the Slack user told who joined')).toContain(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

    // A restart between the claim and the first reply (a new app, a new port for Slack's requests).
    await e.restart();
    driver = new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team);
    e.fake.userMessage({ channelId: ticket.id, member: e.agent, content: 'NOTE: cash buyer, call back today' });
    e.fake.userMessage({ channelId: ticket.id, member: e.agent, content: 'Hello Ada, 12 Beacon St is open Sunday.' });
    expect(await slackSays('Hello Ada, 12 Beacon St is open Sunday.', 'the agent reply on Slack')).toMatch(
      /agent-smith.*Hello Ada, 12 Beacon St is open Sunday\./s,
    );
    expect(await botSays(e, ticket.id, 'Internal note', 'the note marked on Discord')).toBe(
      'Internal note from agent-smith: kept for the team, not sent to Ada Lovelace.',
    );
    expect(userThread().some((m) => m.text.includes('cash buyer'))).toBe(false);
    await userSays('Sunday at 2 is fine');
    expect(
      await botSays(e, ticket.id, 'Sunday at 2 is fine', 'the Slack user’s message in the Discord ticket thread'),
    ).toMatch(/Ada Lovelace.*Sunday at 2 is fine/s);

    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    expect(await stateOnce(/^Closed/, 'closed')).toMatch(/^Closed by agent-smith at \d\d:\d\d UTC/);
    expect(e.fake.buttons(ticket)).toEqual([]);
    const prompt = await waitFor(() => userThread().find((m) => button(m, '5')), 'the rating prompt on Slack');
    const promptNow = await waitFor(
      () => (userThread().some((m) => button(m, 'Cancel')) ? undefined : userThread().filter((m) => button(m, '5'))),
      'the Cancel button gone on Slack',
    );
    expect(promptNow.map((m) => m.ts)).toEqual([prompt.ts]);
    // A restart between the close and the rating.
    await e.restart();
    driver = new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team);
    await driver.click(
      button(prompt, '4')!,
      { channel: USERS, messageTs: prompt.ts, threadTs: root.ts },
      { user: ADA },
    );
    expect(await stateOnce(/rated/, 'the Slack rating on the Discord ticket')).toMatch(
      /^Closed by agent-smith .*rated 4\/5/,
    );
    expect(ticket.content).toContain('Satisfaction: 4/5');
    const thanked = await waitFor(() => {
      const m = slack.message(USERS, prompt.ts);
      return m && !button(m, '1') ? m : undefined;
    }, 'the thanks in place of the rating buttons on Slack');
    expect(thanked.text).toContain('You rated the help 4/5');
    // Nothing doubled across the restarts.
    expect(userThread().filter((m) => m.text.includes('Hello Ada, 12 Beacon St is open Sunday.'))).toHaveLength(1);
    expect(userThread().filter((m) => m.text.includes('agent-smith (agent) has joined'))).toHaveLength(1);
    expect(userThread().filter((m) => /How would you rate|You rated the help/.test(m.text))).toHaveLength(1);
    expect(e.fake.channelMessages(e.handoff.id)).toHaveLength(1);
  }, 90_000);
});
