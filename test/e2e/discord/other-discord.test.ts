/**
 * The bot against a Discord that behaves a little differently from our fake's defaults, as another
 * faithful implementation may: GUILD_CREATE without the guild's custom roles (members still carry
 * their role ids), no thread on an interaction's reply, or no thread on any message at all.
 */
import { type FakeDiscord, INTENTS } from '../../../fakes/fake-discord';
import { responseText, startDiscordE2E, waitForAnswer, expectAcknowledged } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { answerIn } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

const STRING = 3;

/** The thread (a channel) the bot started in `parent` named after `name`. */
function threadNamed(fake: FakeDiscord, parent: string, name: string): string | undefined {
  return [...fake.channels.values()].find(
    (c) => (c.type === 11 || c.type === 12) && c.parent_id === parent && c.name === name,
  )?.id;
}

describe('Discord with no roles in GUILD_CREATE and no thread on interaction replies', () => {
  const e = useStarted(() =>
    startDiscordE2E({ fake: { quirks: { guildRolesListed: false, threadOnMessage: 'not-interaction-replies' } } }),
  );

  test('IDENTIFY asks exactly the intents Guilds, GuildMessages, MessageContent and DirectMessages', () => {
    expect(e.fake.lastIntents).toBe(
      INTENTS.guilds | INTENTS.guildMessages | INTENTS.messageContent | INTENTS.directMessages,
    );
  });

  test('admins are the members holding a DISCORD_ADMIN_ROLES role even when the guild cache does not list it', async () => {
    const show = e.fake.slashCommand({ name: 'chatbot', subcommand: 'show', channelId: e.general.id, member: e.admin });
    const shown = await waitFor(
      () => e.fake.responsesOf(show).find((m) => m.content !== '' || m.embeds.length > 0),
      'the admin’s /chatbot show',
      10_000,
      e.fake.changes,
    );
    expect(shown.content).toMatch(/^Chatbot: /);
    expect(responseText(e, show).toLowerCase()).not.toContain('admin');
    const refused = e.fake.slashCommand({
      name: 'chatbot',
      subcommand: 'show',
      channelId: e.general.id,
      member: e.user,
    });
    const msg = await waitFor(
      () => e.fake.responsesOf(refused).find((m) => m.content !== ''),
      'the refusal',
      10_000,
      e.fake.changes,
    );
    expect(msg.ephemeral).toBe(true);
    expect(msg.content.toLowerCase()).toContain('admin');
  });

  test('an agent (the handoff channel lets the agents role view it) gets /handoff queue from #general; others are refused', async () => {
    const queue = (member: typeof e.user) =>
      e.fake.slashCommand({
        name: 'handoff',
        channelId: e.general.id,
        member,
        options: [{ name: 'reason', type: STRING, value: 'queue' }],
      });
    const asAgent = queue(e.agent);
    const asUser = queue(e.user);
    const told = (rec: typeof asAgent) =>
      waitFor(
        () => /Handoff queue|for members of/.test(responseText(e, rec)) && responseText(e, rec),
        'the answer to /handoff queue',
        10_000,
        e.fake.changes,
      );
    expect(await told(asAgent)).toMatch(/Handoff queue/);
    expect(await told(asUser)).toMatch(/for members of the handoff channel and admins/);
  });

  test('/ask still gets a thread (on a root message of its own) with the exact answer', async () => {
    const question = 'Which homes are for sale in Austin today?';
    const rec = e.fake.slashCommand({
      name: 'ask',
      channelId: e.general.id,
      member: e.user,
      options: [{ name: 'question', type: STRING, value: question }],
    });
    const threadId = await waitFor(
      () => threadNamed(e.fake, e.general.id, question),
      'the thread of /ask',
      10_000,
      e.fake.changes,
    );
    expectAcknowledged(e, rec, threadId);
    const root = e.fake.channelMessages(e.general.id).find((m) => m.id === threadId) ?? e.fake.messages.get(threadId);
    expect(root?.content).toContain(`<@${e.user.user.id}>`);
    const { answer, messages } = await waitForAnswer(e, threadId, question);
    expect(messages.map((m) => m.content).join('')).toBe(answer);
    const follow = 'And for rent in Austin?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow });
    // The follow-up is answered in the same thread, as a follow-up: the Austin homes for rent.
    expect(await answerIn(e, threadId, follow)).toContain('homes for rent in Austin');
  });
});

describe('Discord refusing threads on messages', () => {
  const e = useStarted(() => startDiscordE2E({ fake: { quirks: { threadOnMessage: 'none' } } }));

  test('a mention starts a thread of its own in the channel, answered exactly; /ask too', async () => {
    const question = 'homes for sale in Austin under 600000?';
    e.fake.userMessage({ channelId: e.general.id, member: e.user, content: question, mentionsBot: true });
    const threadId = await waitFor(
      () => threadNamed(e.fake, e.general.id, question),
      'the thread of the mention',
      10_000,
      e.fake.changes,
    );
    const { answer, messages } = await waitForAnswer(e, threadId, question);
    expect(messages.map((m) => m.content).join('')).toBe(answer);

    const asked = 'Show me homes for rent in Austin';
    e.fake.slashCommand({
      name: 'ask',
      channelId: e.general.id,
      member: e.user,
      options: [{ name: 'question', type: STRING, value: asked }],
    });
    const askThread = await waitFor(
      () => threadNamed(e.fake, e.general.id, asked),
      'the thread of /ask',
      10_000,
      e.fake.changes,
    );
    const { answer: askAnswer, messages: askMessages } = await waitForAnswer(e, askThread, asked);
    expect(askMessages.map((m) => m.content).join('')).toBe(askAnswer);
    expect(askAnswer).toContain('homes for rent in Austin');
  });
});
