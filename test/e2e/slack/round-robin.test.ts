/**
 * Slack, HANDOFF_ASSIGN=round-robin: the roster is the handoff channel's members
 * (conversations.members), minus bots and the bridge, in a stable order; none of the three agents
 * has said /handoff back or claimed before. One says /handoff away: the ticket is offered to the
 * first available, and after HANDOFF_OFFER_S (an injected clock, a sweep) to the next available.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { AGENT, askForHuman, HANDOFF_CHANNEL, startSlackE2E } from '../../support/slack-e2e';
import { useStarted } from '../../support/server-setup';
import { becomes, ephemeralTo } from '../../support/slack-flows';

const USERS = 'C0LEADS';
const ADA = 'U0USER1';
const BEA = 'U0AG2';
const CY = 'U0AG3';
const HELPER_BOT = 'U0HELPER';

describe('Slack: round-robin over the handoff channel members', () => {
  let offset = 0;
  const e = useStarted(async () => {
    const started = await startSlackE2E({
      env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' },
      fake: {
        users: {
          [ADA]: 'Ada Lovelace',
          [AGENT]: 'Agent Smith',
          [BEA]: 'Bea Agent',
          [CY]: 'Cy Agent',
          [HELPER_BOT]: 'Helper Bot',
        },
      },
      now: () => Date.now() + offset,
    });
    started.fake.bots.add(HELPER_BOT);
    started.fake.channelMembers[HANDOFF_CHANNEL] = [AGENT, HELPER_BOT, started.fake.botUserId, CY, BEA];
    return started;
  });

  const offersIn = (ticket: FakeMessage): string[] =>
    e.fake
      .replies(HANDOFF_CHANNEL, ticket.ts)
      .map((m) => /^Offered to <@(\w+)> \(round-robin\)/.exec(m.text)?.[1])
      .filter((id): id is string => id !== undefined);

  test('the away member is skipped, the next available is offered it, then the next after HANDOFF_OFFER_S', async () => {
    const from = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'away', { user: CY, channel: HANDOFF_CHANNEL });
    const away = await ephemeralTo(e.fake, CY, /^You are away/, from);
    expect(away.channel).toBe(HANDOFF_CHANNEL);

    const question = 'I am looking for a 3 bedroom house in Austin';
    const { ticket } = await askForHuman(e, ADA, USERS, question);
    // Members in id order: Bea, Cy (away), Agent Smith; the bridge and the helper bot are never offered one.
    const offers = () => offersIn(ticket).length > 0 && offersIn(ticket);
    expect(await waitFor(offers, 'the first offer')).toEqual([BEA]);
    const named = await becomes(
      () => e.fake.message(HANDOFF_CHANNEL, ticket.ts)?.text,
      /Offered to /,
      'the ticket naming the offered agent',
    );
    expect(named).toContain('Offered to Bea Agent');

    // Within the offer nothing moves.
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(offersIn(ticket)).toEqual([BEA]);
    // After HANDOFF_OFFER_S: the next available member (not Cy, who is away).
    offset += 121_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(await waitFor(() => offersIn(ticket).length === 2 && offersIn(ticket), 'the re-offer')).toEqual([
      BEA,
      AGENT,
    ]);
    // Each offered agent is also told privately, once, in the ticket thread (through the notice outbox).
    const told = await waitFor(() => {
      const privately = e.fake.ephemerals.filter((m) => /^A handoff ticket is offered to you/.test(m.text));
      return privately.length === 2 && privately;
    }, 'both private offers');
    expect(told.map((m) => [m.user, m.channel])).toEqual([
      [BEA, HANDOFF_CHANNEL],
      [AGENT, HANDOFF_CHANNEL],
    ]);
    expect(told[0]!.text).toMatch(/Ada Lovelace is waiting\. Press Claim on it within 2 min\. https?:\/\//);
  }, 60_000);
});
