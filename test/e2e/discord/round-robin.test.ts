/**
 * Discord, HANDOFF_ASSIGN=round-robin: the roster is everyone who can view the handoff channel (the
 * guild's members, listed with the Server Members Intent, with the channel's overwrites applied),
 * bots and the bridge left out, in user-id order; none of them has claimed or said /handoff back
 * before. One says /handoff away: a new ticket is offered to the first available, then after
 * HANDOFF_OFFER_S (an injected clock, a sweep) to the next available. A member who cannot view the
 * channel, the away agent and a bot with the agents' role are never offered one. Without the intent
 * (List Guild Members refused), the log says so once and turns fall back to agents who spoke up.
 */
import { waitFor } from '../../../fakes/wait-for';
import { botMessagesIn, handoffIn, responseText, startDiscordE2E } from '../../support/discord-e2e';
import { askThenHandoff } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

describe('Discord: round-robin over who can view the handoff channel', () => {
  let offset = 0;
  const logLines: string[] = [];
  const e = useStarted(() =>
    startDiscordE2E({
      env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' },
      now: () => Date.now() + offset,
      logLines,
    }),
  );

  test('the away member, a non-viewer and a bot are skipped; the next available gets it after HANDOFF_OFFER_S', async () => {
    // Ids grow with creation: agent-smith (from the harness), then Bea, then Cy.
    const bea = e.fake.addMember('bea', [e.agentRole]);
    const cy = e.fake.addMember('cy', [e.agentRole]);
    const nosy = e.fake.addMember('nosy', []);
    const helper = e.fake.addMember('helper-bot', [e.agentRole], { bot: true });

    const away = handoffIn(e, e.handoff.id, 'away', bea);
    const said = await waitFor(() => responseText(e, away) || undefined, '/handoff away', 10_000, e.fake.changes);
    expect(said).toMatch(/^You are away/);

    const { ticket } = await askThenHandoff(e, 'Which homes are for rent in Denver?', 'please call me');
    const offers = (): string[] =>
      botMessagesIn(e.fake, ticket.id)
        .map((m) => /^Offered to <@(\d+)> \(round-robin\)/.exec(m.content)?.[1])
        .filter((id): id is string => id !== undefined);

    // Agent Smith first (Bea is away), then Cy: never Bea, the non-viewer, the bot or the bridge.
    const first = await waitFor(() => offers().length === 1 && offers(), 'the first offer', 10_000, e.fake.changes);
    expect(first).toEqual([e.agent.user.id]);
    const named = await waitFor(
      () => ticket.content.includes('Offered to') && ticket.content,
      'the ticket naming the agent',
      10_000,
      e.fake.changes,
    );
    expect(named).toContain('Offered to agent-smith (round-robin)');
    // Each offered agent is also told, once, in a reply that mentions only them (Discord has no
    // ephemeral message outside an interaction). Awaited before the offer passes on: a word still
    // owed once the offer has moved on is dropped.
    const toldTo = (): string[] =>
      botMessagesIn(e.fake, ticket.id)
        .map((m) => /^<@(\d+)> A handoff ticket is offered to you/.exec(m.content)?.[1])
        .filter((id): id is string => id !== undefined);
    const toldFirst = await waitFor(
      () => toldTo().length === 1 && toldTo(),
      'Agent Smith told',
      10_000,
      e.fake.changes,
    );
    expect(toldFirst).toEqual([e.agent.user.id]);

    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(offers()).toEqual([e.agent.user.id]);
    offset += 121_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const second = await waitFor(() => offers().length === 2 && offers(), 'the re-offer', 10_000, e.fake.changes);
    expect(second).toEqual([e.agent.user.id, cy.user.id]);
    for (const never of [bea, nosy, helper, { user: e.fake.botUser }]) expect(offers()).not.toContain(never.user.id);
    const told = await waitFor(() => toldTo().length === 2 && toldTo(), 'Cy told', 10_000, e.fake.changes);
    expect(told).toEqual([e.agent.user.id, cy.user.id]);
    // The guild's members were listed once for both offers (cached for a minute).
    expect(e.fake.memberListCalls).toBe(1);
    expect(logLines.join('\n')).not.toContain('cannot list who can view the handoff channel');
  }, 60_000);
});

describe('Discord: round-robin without the Server Members Intent', () => {
  const logLines: string[] = [];
  const e = useStarted(() =>
    startDiscordE2E({
      fake: { membersIntent: false },
      env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' },
      logLines,
    }),
  );

  test('the log says once why, and turns go to the agents who said /handoff back', async () => {
    const cy = e.fake.addMember('cy', [e.agentRole]);
    const back = handoffIn(e, e.handoff.id, 'back', cy);
    const said = await waitFor(() => responseText(e, back) || undefined, '/handoff back', 10_000, e.fake.changes);
    expect(said).toMatch(/^You are back/);

    for (const question of ['Which homes are for rent in Denver?', 'Any condos for sale in Miami?'])
      await askThenHandoff(e, question, `about ${question}`);
    const offered = await waitFor(
      () => {
        const texts = e.fake.channelMessages(e.handoff.id).map((m) => m.content);
        const named = texts.filter((t) => t.includes('Offered to cy (round-robin)'));
        return named.length === 2 && named;
      },
      'both tickets offered to Cy',
      15_000,
      e.fake.changes,
    );
    expect(offered).toHaveLength(2);
    // The refusal is kept a minute: both offers and a sweep over both tickets asked Discord once.
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(e.fake.memberListCalls).toBe(1);
    const refused = logLines.filter((l) => l.includes('cannot list who can view the handoff channel'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('Server Members Intent');
  }, 60_000);
});
