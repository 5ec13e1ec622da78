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

  test('offered to the next available Slack member, re-offered after HANDOFF_OFFER_S, claimed by another', async () => {
    const from = slack.ephemerals.length;
    await driver.command('/handoff', 'away', { user: CY, channel: SLACK_HANDOFF });
    await waitFor(
      () => slack.ephemerals.slice(from).find((m) => m.user === CY && /^You are away/.test(m.text)),
      'away',
    );

    const question = 'Which homes are for rent in Seattle?';
    const { threadId } = await ask(e, question);
    await waitForAnswer(e, threadId, question);
    handoffIn(e, threadId, 'I want a viewing');
    const ticket = await waitFor(
      () => slack.channelMessages(SLACK_HANDOFF).find((m) => button(m, 'Claim')),
      'the ticket in the Slack handoff channel',
    );
    expect(ticket.text).toContain('ada (Discord user)');
    await waitFor(() => (offers(ticket.ts).length === 1 ? true : undefined), 'the first offer');
    expect(offers(ticket.ts)).toEqual([BEA]);
    await waitFor(
      () =>
        slack.message(SLACK_HANDOFF, ticket.ts)!.text.includes('Offered to Bea Agent (round-robin)') ? true : undefined,
      'the ticket naming Bea',
    );

    offset += 121_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    await waitFor(() => (offers(ticket.ts).length === 2 ? true : undefined), 'the re-offer');
    expect(offers(ticket.ts)).toEqual([BEA, DEE]);

    // Anyone in the channel may still claim: Cy, though away.
    await driver.click(
      button(slack.message(SLACK_HANDOFF, ticket.ts)!, 'Claim')!,
      { channel: SLACK_HANDOFF, messageTs: ticket.ts },
      { user: CY },
    );
    await waitFor(
      () => (/^Claimed by Cy Agent/.test(slack.message(SLACK_HANDOFF, ticket.ts)!.text) ? true : undefined),
      'the claim on the ticket',
    );
    expect(slack.message(SLACK_HANDOFF, ticket.ts)!.text).not.toMatch(/Offered to/);
  }, 60_000);
});
