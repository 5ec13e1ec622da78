/**
 * A server where the bot may not start threads (its Create Public Threads permission denied on the
 * channel): Discord refuses the mention's thread with 403 Missing Permissions, and the bot answers in
 * the channel instead, as replies to the user's message (`message_reference`), saying why in one line
 * that names the permission, once per channel a day by the bridge's clock. The mark is in the store:
 * a restart keeps it; a day on, the line is said again.
 */
import { CREATE_PUBLIC_THREADS } from '../../../fakes/fake-discord-permissions';
import type { FakeDiscord, FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { type DiscordE2E, discordShown, sameAnswer, startDiscordE2E } from '../../support/discord-e2e';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Noon, UTC: the test's mentions fall on one day of the bridge's clock, whenever it runs. */
const NOON = Date.UTC(2026, 10, 20, 12, 0, 0);

/** The fake server's #general denies everyone Create Public Threads. */
function denyThreads(fake: FakeDiscord): void {
  const general = [...fake.channels.values()].find((c) => c.name === 'general')!;
  fake.setOverwrites(general.id, [{ id: fake.guildId, type: 0, allow: '0', deny: CREATE_PUBLIC_THREADS.toString() }]);
}

/** The bot's messages in #general. */
function botMessagesOf(e: DiscordE2E): FakeMessage[] {
  return e.fake.channelMessages(e.general.id).filter((m) => m.author.id === e.fake.botUser.id);
}

/** Waits for the answer to `question` as the bot's replies to message `to` (the why-line aside). */
async function answerAsRepliesTo(e: DiscordE2E, to: string, question: string): Promise<FakeMessage[]> {
  const answer = await waitFor(
    () => {
      const stored = e.storedAnswers(question).at(-1);
      const replies = botMessagesOf(e).filter(
        (m) => m.message_reference?.message_id === to && !m.content.includes('Create Public Threads'),
      );
      return stored !== undefined && sameAnswer(replies, stored) ? replies : undefined;
    },
    `the answer to "${question}" as replies to ${to}`,
    20_000,
    e.fake.changes,
  );
  await e.app.bridge.conversations.idle();
  return answer;
}

describe('Discord: a channel where the bot may not start threads', () => {
  const started = Date.now();
  let offset = 0;
  const now = () => NOON + (Date.now() - started) + offset;
  const e = useStarted(() =>
    startDiscordE2E({
      now,
      prepare: denyThreads,
    }),
  );

  const botMessages = (): FakeMessage[] => botMessagesOf(e);
  const whyLines = (): FakeMessage[] => botMessages().filter((m) => m.content.includes('Create Public Threads'));

  /** A mention in the channel; resolves with the bot's reply messages carrying the answer. */
  async function mention(question: string): Promise<{ asked: FakeMessage; answer: FakeMessage[] }> {
    const asked = e.fake.userMessage({
      channelId: e.general.id,
      member: e.user,
      content: question,
      mentionsBot: true,
    });
    return { asked, answer: await answerAsRepliesTo(e, asked.id, question) };
  }

  test('answers as replies to the mention, says why once a day, a restart keeps the mark', async () => {
    const first = await mention('Lofts in Boston?');
    // Discord was asked for the thread and refused it; no thread was made.
    const refused = e.fake.calls.filter((c) => c.method === 'POST' && /\/threads$/.test(c.path));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((c) => c.status === 403)).toBe(true);
    expect(e.fake.threadsOf(e.general.id)).toHaveLength(0);
    expect(first.answer[0]!.message_reference).toEqual(
      expect.objectContaining({ message_id: first.asked.id, channel_id: e.general.id }),
    );
    // One line, naming the permission, as a reply to the user's message.
    expect(whyLines()).toHaveLength(1);
    const why = whyLines()[0]!;
    expect(why.content.split('\n')).toHaveLength(1);
    expect(why.message_reference?.message_id).toBe(first.asked.id);

    // The same day: answered, and no second why-line.
    const second = await mention('Condos in Denver?');
    expect(second.answer[0]!.message_reference?.message_id).toBe(second.asked.id);
    expect(whyLines()).toHaveLength(1);

    // A restart keeps the mark (it is in the store, not in the process).
    await e.restart();
    await waitFor(() => e.app.surfaces.every((s) => s.isReady()) || undefined, 'the restarted bridge ready');
    await mention('Houses in Austin?');
    expect(whyLines()).toHaveLength(1);

    // A day on by the bridge's clock, the line is said again, once.
    offset += DAY_MS;
    const later = await mention('Flats in Seattle?');
    expect(whyLines()).toHaveLength(2);
    expect(whyLines()[1]!.message_reference?.message_id).toBe(later.asked.id);

    // A handoff from a conversation answered in the channel: a ticket, its Talk to a human gone, the others kept.
    const offersHuman = (m: FakeMessage): boolean => e.fake.buttons(m).some((b) => b.label === 'Talk to a human');
    const offering = later.answer.filter(offersHuman).at(-1)!;
    expect(second.answer.some(offersHuman)).toBe(true);
    const tickets = e.fake.channelMessages(e.handoff.id).length;
    e.fake.clickButtonLabelled(offering, 'Talk to a human', e.user);
    await waitFor(() => e.fake.channelMessages(e.handoff.id)[tickets], 'the ticket', 15_000, e.fake.changes);
    await waitFor(() => !offersHuman(offering) || undefined, 'its Talk to a human gone', 15_000, e.fake.changes);
    expect(second.answer.some(offersHuman)).toBe(true);
  });
});

describe('Discord: /ask in a channel where the bot may not start threads', () => {
  const e = useStarted(() =>
    startDiscordE2E({
      now: () => NOON,
      prepare: denyThreads,
    }),
  );

  const botMessages = (): FakeMessage[] => botMessagesOf(e);

  test("answers as replies to the command's reply, with the why-line once, no error", async () => {
    const question = 'Townhouses in Portland?';
    e.fake.slashCommand({
      name: 'ask',
      channelId: e.general.id,
      member: e.user,
      options: [{ name: 'question', type: 3, value: question }],
    });
    // The command's reply shows the question: the conversation's root.
    const root = await waitFor(
      () => botMessages().find((m) => discordShown(m.content).includes(`> ${question}`)),
      'the /ask root',
      10_000,
      e.fake.changes,
    );
    const answer = await answerAsRepliesTo(e, root.id, question);
    expect(answer.length).toBeGreaterThan(0);
    expect(e.fake.threadsOf(e.general.id)).toHaveLength(0);
    const why = botMessages().filter((m) => m.content.includes('Create Public Threads'));
    expect(why).toHaveLength(1);
    expect(why[0]!.message_reference?.message_id).toBe(root.id);
    // Nothing else in the channel (no error line): the root, the why-line and the answer.
    expect(botMessages()).toHaveLength(2 + answer.length);
  });
});
