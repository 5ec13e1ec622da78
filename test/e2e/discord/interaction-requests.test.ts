/**
 * Each Discord interaction's request carries the interaction itself (no per-call context): three
 * people run /ask in one channel at once, and each thread is rooted on the reply to that person's
 * own command, naming them, and answered there.
 */
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { discordShown, expectAcknowledged, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';

const QUESTIONS = [
  'Which homes are for sale in Austin?',
  'Which homes are for rent in Austin?',
  'Which homes are for sale in Seattle?',
];

describe('Discord: a command is answered through its own interaction', () => {
  const e = useStarted(() => startDiscordE2E());

  test('three people /ask in one channel at once: each thread roots on the reply to its own command', async () => {
    const members = [e.user, e.fake.addMember('bob', []), e.fake.addMember('cy', [])];
    const recs = members.map((member, i) =>
      e.fake.slashCommand({
        name: 'ask',
        channelId: e.general.id,
        member,
        options: [{ name: 'question', type: 3, value: QUESTIONS[i]! }],
      }),
    );
    for (const [i, rec] of recs.entries()) {
      const question = QUESTIONS[i]!;
      const root = await waitFor(
        () =>
          e.fake
            .channelMessages(e.general.id)
            .find((m) => discordShown(m.content).includes(`> ${question}`) && e.fake.channels.has(m.id)),
        `the thread of ${members[i]!.user.username}'s question`,
        10_000,
        e.fake.changes,
      );
      // The root is this command's own reply, and names who ran it.
      expect({ who: members[i]!.user.id, root: rec.originalMessageId }).toEqual({
        who: members[i]!.user.id,
        root: root.id,
      });
      expect(root.content).toContain(`<@${members[i]!.user.id}>`);
      expectAcknowledged(e, rec, root.id);
      const { messages, answer } = await waitForAnswer(e, root.id, question);
      expect(messages.map((m) => m.content).join('')).toBe(answer);
    }
  }, 60_000);
});
