import { botMessagesIn, responseText, startDiscordE2E, handoffIn } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { answerIn, botSays, handOffAfterAnswer, labelsWithout, textMatching } from '../../support/discord-flows';

describe('Discord: handoff round trip', () => {
  const e = useStarted(() => startDiscordE2E());

  test('ticket naming the user with Claim, claim once, relay both ways, cancel hands back to the bot', async () => {
    const { threadId, ticket, answer } = await handOffAfterAnswer(
      e,
      'Which homes are for rent in Denver?',
      'I want to negotiate',
    );
    expect(answer).toContain('homes for rent in Denver');
    expect(ticket.content).toMatch(new RegExp(`ada|<@${e.user.user.id}>`));
    expect(e.fake.buttons(ticket).map((b) => b.label)).toContain('Claim');
    const ticketThread = await waitFor(
      () => e.fake.channels.get(ticket.id),
      'the ticket thread',
      10_000,
      e.fake.changes,
    );

    const claimId = e.fake.buttons(ticket).find((b) => b.label === 'Claim')!.custom_id!;
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await labelsWithout(e, ticket, 'Claim', 'the claim on the ticket')).toContain('Close');
    expect(ticket.content).toContain('agent-smith');
    expect(await botSays(e, threadId, 'agent-smith', 'the user told who joined')).toBe(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

    // A second agent (who can view the handoff channel) is told, ephemerally, who holds it.
    const other = e.fake.addMember('agent-two', [e.agentRole]);
    const second = e.fake.clickButton({ message: ticket, customId: claimId, member: other });
    const told = await waitFor(
      () => e.fake.responsesOf(second).find((m) => m.content.includes('agent-smith')),
      'the second agent told',
      10_000,
      e.fake.changes,
    );
    expect(told.ephemeral).toBe(true);
    expect(ticket.content).toContain('agent-smith');

    // User -> agent.
    e.fake.userMessage({ channelId: threadId, member: e.user, content: 'Can you lower the price?' });
    expect(
      await botSays(e, ticketThread.id, 'Can you lower the price?', 'the user message relayed to the ticket thread'),
    ).toBe('*ada:* Can you lower the price?');
    expect(e.storedAnswers('Can you lower the price?')).toEqual([]);
    // Agent -> user.
    e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content: 'Yes, by five percent.' });
    const relayed = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes('Yes, by five percent.')),
      'the agent reply relayed',
      10_000,
      e.fake.changes,
    );
    expect(relayed.content).toContain('agent-smith');

    // Cancel: back to the bot.
    const cancel = handoffIn(e, threadId, 'cancel');
    expect(await textMatching(e, () => responseText(e, cancel), /cancel/i, 'the cancellation')).toContain(
      'Handoff cancelled: the bot answers in that thread again.',
    );
    const after = 'And homes for sale in Denver?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: after });
    expect(await answerIn(e, threadId, after)).toContain('homes for sale in Denver');
    // The bot answered it; the agent no longer gets the user's messages.
    expect(botMessagesIn(e.fake, ticketThread.id).some((m) => m.content.includes(after))).toBe(false);
  });
});
