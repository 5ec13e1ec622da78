/**
 * A Discord user's ticket in a Slack handoff channel with HANDOFF_ASSIGN=round-robin shows the same
 * states as a Slack user's: offered to the first available member of the Slack handoff channel
 * (conversations.members, the away one skipped), re-offered to the next after HANDOFF_OFFER_S, and
 * claimable by anyone there.
 */
import { FakeSlack } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { ask, type DiscordE2E, handoffIn, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';

const SECRET = 'cross-surface-rr-signing-secret';
const SLACK_HANDOFF = 'C0XHANDOFF';
const [BEA, CY, DEE] = ['U0AG2', 'U0AG3', 'U0AG4'];

describe('Discord user, Slack handoff channel, round-robin', () => {
  let slack: FakeSlack;
  let e: DiscordE2E;
  let driver: SlackDriver;
  let offset = 0;

  beforeAll(async () => {
    slack = await new FakeSlack({ users: { [BEA]: 'Bea Agent', [CY]: 'Cy Agent', [DEE]: 'Dee Agent' } }).start();
    slack.channelMembers[SLACK_HANDOFF] = [DEE, slack.botUserId, CY, BEA];
    e = await startDiscordE2E({
      omitEnv: ['DISCORD_HANDOFF_CHANNEL'],
      env: {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
        SLACK_HANDOFF_CHANNEL: SLACK_HANDOFF,
        HANDOFF_ASSIGN: 'round-robin',
        HANDOFF_OFFER_S: '120',
      },
      now: () => Date.now() + offset,
    });
    driver = new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team);
  });
  afterAll(async () => {
    await e?.close();
    await slack?.close();
  });

  const offers = (ticketTs: string): string[] =>
    slack
      .replies(SLACK_HANDOFF, ticketTs)
      .map((m) => /^Offered to <@(\w+)> \(round-robin\)/.exec(m.text)?.[1])
      .filter((id): id is string => id !== undefined);
  /** The offers once there are `n`. */
  const offersOnce = (ticketTs: string, n: number, what: string): Promise<string[]> =>
    waitFor(() => (offers(ticketTs).length === n ? offers(ticketTs) : undefined), what);
  /** The Slack ticket's text once it matches `re`. */
  const ticketOnce = (ticketTs: string, re: RegExp, what: string): Promise<string> =>
    waitFor(() => {
      const text = slack.message(SLACK_HANDOFF, ticketTs)?.text;
      return text !== undefined && re.test(text) ? text : undefined;
    }, what);

  test('offered to the next available Slack member, re-offered after HANDOFF_OFFER_S, claimed by another', async () => {
    const from = slack.ephemerals.length;
    await driver.command('/handoff', 'away', { user: CY, channel: SLACK_HANDOFF });
    const away = await waitFor(
      () => slack.ephemerals.slice(from).find((m) => m.user === CY && /^You are away/.test(m.text)),
      'away',
    );
    expect(away.channel).toBe(SLACK_HANDOFF);

    const question = 'Which homes are for rent in Seattle?';
    const { threadId } = await ask(e, question);
    await waitForAnswer(e, threadId, question);
    handoffIn(e, threadId, 'I want a viewing');
    const ticket = await waitFor(
      () => slack.channelMessages(SLACK_HANDOFF).find((m) => button(m, 'Claim')),
      'the ticket in the Slack handoff channel',
    );
    expect(ticket.text).toContain('ada (Discord user)');
    expect(await offersOnce(ticket.ts, 1, 'the first offer')).toEqual([BEA]);
    expect(await ticketOnce(ticket.ts, /Offered to/, 'the ticket naming Bea')).toContain(
      'Offered to Bea Agent (round-robin)',
    );

    offset += 121_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(await offersOnce(ticket.ts, 2, 'the re-offer')).toEqual([BEA, DEE]);

    // Anyone in the channel may still claim: Cy, though away.
    await driver.click(
      button(slack.message(SLACK_HANDOFF, ticket.ts)!, 'Claim')!,
      { channel: SLACK_HANDOFF, messageTs: ticket.ts },
      { user: CY },
    );
    const claimed = await ticketOnce(ticket.ts, /^Claimed/, 'the claim on the ticket');
    expect(claimed).toMatch(/^Claimed by Cy Agent at \d\d:\d\d UTC/);
    expect(claimed).not.toMatch(/Offered to/);
  }, 60_000);
});
