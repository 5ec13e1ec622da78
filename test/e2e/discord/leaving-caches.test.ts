/**
 * A server that removes the bot leaves nothing of its members or channels in the bridge's process:
 * invited back, the bridge lists the handoff channel's viewers again (List Guild Members, for a
 * round-robin offer), where a roster kept in the process would have served for a minute more. The
 * roster is first shown to be cached (a second ticket within the minute lists nobody), so the
 * re-read is the leaving's doing.
 */
import { waitFor } from '../../../fakes/wait-for';
import { botMessagesIn, startDiscordE2E } from '../../support/discord-e2e';
import { askThenHandoff } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

describe('Discord: leaving takes the server’s cached members and channels with it', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startDiscordE2E({ env: { HANDOFF_ASSIGN: 'round-robin' }, logLines }));

  /** A ticket, offered round-robin to the agent: the roster is the handoff channel's viewers. */
  async function offeredTicket(question: string, reason: string): Promise<void> {
    const { ticket } = await askThenHandoff(e, question, reason);
    await waitFor(
      () => botMessagesIn(e.fake, ticket.id).find((m) => m.content.startsWith(`Offered to <@${e.agent.user.id}>`)),
      'the offer to the agent',
      10_000,
      e.fake.changes,
    );
  }

  test('removed from the server and invited back, the bridge lists the channel’s viewers again', async () => {
    await offeredTicket('Which homes are for rent in Denver?', 'please call me');
    const listed = e.fake.memberListCalls;
    expect(listed).toBeGreaterThan(0);
    // Cached: another ticket within the minute is offered from the same roster.
    await offeredTicket('Which homes are for sale in Austin?', 'a person please');
    expect(e.fake.memberListCalls).toBe(listed);

    e.fake.leaveGuild(e.fake.guildId);
    await waitFor(
      () => logLines.find((l) => l.includes(`tenant left: discord ${e.fake.guildId}:`)),
      'the server’s records deleted',
      20_000,
    );
    // Nothing of its members stays in the store either.
    expect(await e.app.store.keys(`t:discord:${e.fake.guildId}:`)).toEqual([]);

    e.fake.rejoinMainGuild();
    await offeredTicket('Which homes are for sale in Boston?', 'call me back');
    expect(e.fake.memberListCalls).toBeGreaterThan(listed);
  });
});
