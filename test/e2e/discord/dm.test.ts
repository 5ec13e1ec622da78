/**
 * Direct messages to the bot: a DM is a conversation answered in the DM (streamed like any answer),
 * later DMs continue its chat session until the user starts a new one (the "New conversation"
 * button, or /ask in the DM), and a handoff from a DM relays both ways between the DM and the
 * ticket thread in the handoff channel.
 */
import { botMessagesIn, handoffIn, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';
import { answerIn, botSays, textMatching } from '../../support/discord-flows';
import type { FakeChannel, FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';

const TYPING = '\u258d';

describe('Discord: direct messages', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 5 }));
  let dm: FakeChannel;
  beforeAll(() => {
    dm = e.fake.openDm(e.user);
  });

  /** The chat session each question was asked in (the service's own record). */
  function sessionOf(question: string): string {
    const rows = e.service.context.db
      .prepare(`SELECT DISTINCT session_id AS s FROM messages WHERE role = 'user' AND content = ?`)
      .all(question) as Array<{ s: string }>;
    expect(rows).toHaveLength(1);
    return rows[0]!.s;
  }

  async function dmAnswer(question: string): Promise<FakeMessage[]> {
    e.fake.directMessage({ member: e.user, content: question });
    const { answer, messages } = await waitForAnswer(e, dm.id, question);
    expect(messages.map((m) => m.content).join('')).toBe(answer);
    // Whatever core posts after an answer (a no-answer note) lands before the next question.
    await e.app.bridge.conversations.idle();
    return messages;
  }

  /** The answer's last message once it carries these buttons (they come with its final edit). */
  function withButtons(answer: FakeMessage[], labels: string[]): Promise<FakeMessage> {
    const last = answer[answer.length - 1]!;
    return waitFor(
      () => labels.every((l) => e.fake.buttons(last).some((b) => b.label === l)) && last,
      `the buttons ${labels.join(', ')}`,
      10_000,
      e.fake.changes,
    );
  }

  test('a DM is answered in the DM, streamed; a follow-up continues the session; New conversation and /ask start new ones', async () => {
    const first = 'Which homes are for sale in Austin?';
    const answer = await dmAnswer(first);
    // Streamed like any answer: a placeholder with the typing mark first, then edits to the exact text.
    expect(answer[0]!.history[0]).toContain(TYPING);
    expect(answer[0]!.history.length).toBeGreaterThan(1);
    expect(e.fake.threadsOf(dm.id)).toEqual([]);
    expect(e.fake.channelMessages(e.general.id)).toEqual([]);
    const last = await withButtons(answer, ['Talk to a human', 'New conversation']);

    const follow = 'What about homes for rent in Austin?';
    await dmAnswer(follow);
    expect(sessionOf(follow)).toBe(sessionOf(first));

    // "New conversation": the next DM starts a fresh chat session.
    const press = e.fake.clickButtonLabelled(last, 'New conversation', e.user);
    expect(
      await textMatching(e, () => responseText(e, press), /new conversation/i, 'the new conversation acknowledged'),
    ).toMatch(/new conversation/i);
    const fresh = 'Show me homes for rent in Denver';
    await dmAnswer(fresh);
    expect(sessionOf(fresh)).not.toBe(sessionOf(first));
    const freshFollow = 'And homes for sale in Denver?';
    await dmAnswer(freshFollow);
    expect(sessionOf(freshFollow)).toBe(sessionOf(fresh));

    // /ask in the DM (registered for the bot's DMs): a new conversation rooted on the command's reply.
    const asked = 'Homes for sale in Miami?';
    const rec = e.fake.slashCommand({
      name: 'ask',
      channelId: dm.id,
      member: e.user,
      options: [{ name: 'question', type: 3, value: asked }],
    });
    const root = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.content.includes(`> ${asked}`)),
      'the /ask root in the DM',
      10_000,
      e.fake.changes,
    );
    expect(root.ephemeral).toBe(false);
    expect(await answerIn(e, dm.id, asked)).toContain('homes for sale in Miami');
    await e.app.bridge.conversations.idle();
    expect(sessionOf(asked)).not.toBe(sessionOf(fresh));
    const askedFollow = 'And homes for rent in Miami?';
    await dmAnswer(askedFollow);
    expect(sessionOf(askedFollow)).toBe(sessionOf(asked));
    expect(e.fake.threadsOf(dm.id)).toEqual([]);
  }, 90_000);

  test('a handoff from a DM: a ticket in the handoff channel, relayed both ways, /handoff cancel in the DM hands back', async () => {
    const question = 'Which homes are for rent in Austin?';
    const answer = await withButtons(await dmAnswer(question), ['Talk to a human']);
    e.fake.clickButtonLabelled(answer, 'Talk to a human', e.user);
    const ticket = await waitFor(
      () =>
        e.fake
          .channelMessages(e.handoff.id)
          .find((m) => e.fake.buttons(m).some((b) => b.label === 'Claim') && m.content.includes('Talk to a human')),
      'the ticket',
      10_000,
      e.fake.changes,
    );
    expect(ticket.content).toMatch(new RegExp(`ada|<@${e.user.user.id}>`));
    const ticketThread = await waitFor(
      () => e.fake.channels.get(ticket.id),
      'the ticket thread',
      10_000,
      e.fake.changes,
    );
    const notice = await waitFor(
      () => botMessagesIn(e.fake, dm.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel')),
      'the handoff notice in the DM',
      10_000,
      e.fake.changes,
    );
    expect(notice.content).toMatch(/agent/i);

    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await botSays(e, dm.id, 'agent-smith', 'the user told who joined')).toBe(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

    // User (DM) -> agent (ticket thread): relayed, not asked to the chatbot.
    e.fake.directMessage({ member: e.user, content: 'Can you lower the rent?' });
    expect(await botSays(e, ticketThread.id, 'Can you lower the rent?', 'the DM relayed to the ticket thread')).toBe(
      '*ada:* Can you lower the rent?',
    );
    expect(e.storedAnswers('Can you lower the rent?')).toEqual([]);
    // Agent -> user, in the DM.
    e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content: 'Yes, by fifty a month.' });
    const relayed = await waitFor(
      () => botMessagesIn(e.fake, dm.id).find((m) => m.content.includes('Yes, by fifty a month.')),
      'the agent reply relayed to the DM',
      10_000,
      e.fake.changes,
    );
    expect(relayed.content).toContain('agent-smith');

    // /handoff cancel in the DM: the bot answers the same conversation again.
    const cancel = handoffIn(e, dm.id, 'cancel');
    expect(await textMatching(e, () => responseText(e, cancel), /cancel/i, 'the cancellation')).toContain(
      'Handoff cancelled: the bot answers in that thread again.',
    );
    const after = 'And homes for sale in Austin?';
    await dmAnswer(after);
    expect(sessionOf(after)).toBe(sessionOf(question));

    // Another person's DM is their own conversation, in their own DM channel.
    const theirs = 'Homes for sale in Seattle?';
    e.fake.directMessage({ member: e.admin, content: theirs });
    const adminDm = e.fake.openDm(e.admin);
    expect(await answerIn(e, adminDm.id, theirs)).toContain('homes for sale in Seattle');
    expect(sessionOf(theirs)).not.toBe(sessionOf(question));
    expect(botMessagesIn(e.fake, dm.id).some((m) => m.content.includes('Seattle'))).toBe(false);
  }, 90_000);
});
