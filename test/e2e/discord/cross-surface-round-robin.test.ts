/**
 * A Discord user's ticket in a Slack handoff channel with HANDOFF_ASSIGN=round-robin shows the same
 * states as a Slack user's: offered to the first available member of the Slack handoff channel
 * (conversations.members, the away one skipped), re-offered to the next after HANDOFF_OFFER_S, and
 * claimable by anyone there.
 */
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { discordTicketOnSlack, SLACK_HANDOFF, startDiscordToSlack } from '../../support/cross-surface';
import { useStarted } from '../../support/server-setup';

const [BEA, CY, DEE] = ['U0AG2', 'U0AG3', 'U0AG4'];

describe('Discord user, Slack handoff channel, round-robin', () => {
  let offset = 0;
  const x = useStarted(() =>
    startDiscordToSlack({
      users: { [BEA]: 'Bea Agent', [CY]: 'Cy Agent', [DEE]: 'Dee Agent' },
      members: [DEE, 'UBOT', CY, BEA],
      env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' },
      now: () => Date.now() + offset,
    }),
  );

  const offers = (ticketTs: string): string[] =>
    x.slack
      .replies(SLACK_HANDOFF, ticketTs)
      .map((m) => /^Offered to <@(\w+)> \(round-robin\)/.exec(m.text)?.[1])
      .filter((id): id is string => id !== undefined);

  test('offered to the next available Slack member, re-offered after HANDOFF_OFFER_S, claimed by another', async () => {
    const from = x.slack.ephemerals.length;
    await x.driver.command('/handoff', 'away', { user: CY, channel: SLACK_HANDOFF });
    const away = await waitFor(() => x.slack.ephemerals.slice(from).find((m) => m.user === CY), 'away');
    expect(away.text).toMatch(/^You are away/);

    const { ticket } = await discordTicketOnSlack(x, 'Which homes are for rent in Seattle?', 'I want a viewing');
    expect(ticket.text).toContain('ada (Discord user)');
    const shown = () => x.slack.message(SLACK_HANDOFF, ticket.ts)!;
    expect(await waitFor(() => offers(ticket.ts).length === 1 && offers(ticket.ts), 'the first offer')).toEqual([BEA]);
    const naming = await waitFor(() => shown().text.includes('Offered to') && shown(), 'the ticket naming Bea');
    expect(naming.text).toContain('Offered to Bea Agent (round-robin)');

    offset += 121_000;
    await x.e.app.bridge.handoffs.sweepUnclaimed();
    expect(await waitFor(() => offers(ticket.ts).length === 2 && offers(ticket.ts), 'the re-offer')).toEqual([
      BEA,
      DEE,
    ]);

    // Anyone in the channel may still claim: Cy, though away.
    await x.driver.click(button(shown(), 'Claim')!, { channel: SLACK_HANDOFF, messageTs: ticket.ts }, { user: CY });
    const claimed = await waitFor(() => /^Claimed by/.test(shown().text) && shown(), 'the claim on the ticket');
    expect(claimed.text).toMatch(/^Claimed by Cy Agent/);
    expect(claimed.text).not.toMatch(/Offered to/);
  }, 60_000);
});
