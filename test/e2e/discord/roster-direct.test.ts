/**
 * Discord, HANDOFF_ASSIGN=round-robin: an agent's availability belongs to the server whose handoff
 * channel they are an agent of. Said in a direct message with the bot (no server's), `/handoff away`
 * counts in the server of the deployment's handoff channel: the queue there names her away and the
 * next ticket is offered past her.
 */
import { waitFor } from '../../../fakes/wait-for';
import { botMessagesIn, handoffIn, responseText, startDiscordE2E } from '../../support/discord-e2e';
import { askThenHandoff } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

describe('Discord: /handoff away in a direct message', () => {
  const e = useStarted(() => startDiscordE2E({ env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' } }));

  const said = (rec: ReturnType<typeof handoffIn>, what: string) =>
    waitFor(() => responseText(e, rec) || undefined, what, 10_000, e.fake.changes);

  test("counts in the handoff channel's server: shown away there, passed by for offers", async () => {
    // Ids grow with creation: agent-smith (from the harness), then Bea.
    const bea = e.fake.addMember('bea', [e.agentRole]);
    expect(await said(handoffIn(e, e.fake.openDm(bea).id, 'away', bea), '/handoff away in the DM')).toMatch(
      /^You are away/,
    );
    expect(await said(handoffIn(e, e.handoff.id, 'queue', e.agent), 'the queue')).toContain('Away: bea');

    const offers = (threadId: string): string[] =>
      botMessagesIn(e.fake, threadId)
        .map((m) => /^Offered to <@(\d+)> \(round-robin\)/.exec(m.content)?.[1])
        .filter((id): id is string => id !== undefined);
    // Two tickets: both to Agent Smith, none to Bea (the turn would be hers for the second).
    for (const [question, reason] of [
      ['Which homes are for rent in Denver?', 'please call me'],
      ['Which homes are for sale in Austin?', 'a person please'],
    ] as const) {
      const { ticket } = await askThenHandoff(e, question, reason);
      const first = await waitFor(
        () => offers(ticket.id).length > 0 && offers(ticket.id),
        'an offer',
        10_000,
        e.fake.changes,
      );
      expect(first).toEqual([e.agent.user.id]);
    }
  }, 60_000);
});
