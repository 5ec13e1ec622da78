import { createDiscordSurface } from '../../../src/surfaces/discord';
import { ask, botMessagesIn, startDiscordE2E, waitForAnswer, expectAcknowledged } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { silentLog } from '../../support/silent-log';
import { useStarted } from '../../support/server-setup';
import { answerIn } from '../../support/discord-flows';

describe('Discord: registration, /ask, threads and mentions', () => {
  const e = useStarted(() => startDiscordE2E());

  test('healthz answers 200 once the gateway is ready and the commands are registered', async () => {
    const res = await fetch(`${e.app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(e.fake.identifies).toBe(1);
    const puts = e.fake.callsTo(
      'PUT',
      new RegExp(`^/applications/${e.fake.applicationId}/guilds/${e.fake.guildId}/commands$`),
    );
    expect(puts).toHaveLength(1);
    const names = (e.fake.commands.get(e.fake.guildId) ?? []).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['listing', 'chatbot', 'handoff', 'analytics', 'history']));
    // Guild commands never show in DMs: /ask and /listings are global (for both installs, everywhere:
    // never twice in the server), the other conversation command global for the bot's DMs only.
    const global = (e.fake.commands.get('global') ?? []).map((c) => ({
      name: c.name,
      integration_types: c.integration_types,
      contexts: c.contexts,
    }));
    expect(global).toEqual([
      { name: 'ask', integration_types: [0, 1], contexts: [0, 1, 2] },
      { name: 'listings', integration_types: [0, 1], contexts: [0, 1, 2] },
      { name: 'handoff', integration_types: [0], contexts: [1] },
    ]);
    expect(names).not.toContain('ask');
  });

  test('the registered options mirror the grammar', () => {
    const cmds = [...(e.fake.commands.get(e.fake.guildId) ?? []), ...(e.fake.commands.get('global') ?? [])];
    type Opt = { name: string; type: number; required?: boolean; choices?: Array<{ value: string }>; options?: Opt[] };
    const byName = (n: string): Opt[] => (cmds.find((c) => c.name === n)?.options as Opt[] | undefined) ?? [];
    expect(byName('ask')).toEqual([
      expect.objectContaining({ name: 'question', type: 3, required: true }),
      expect.objectContaining({ name: 'photos', type: 5, required: false }),
    ]);
    const listings = byName('listings');
    expect(listings.map((o) => o.name)).toEqual(['city', 'type', 'mls', 'page']);
    expect(listings.find((o) => o.name === 'type')?.choices?.map((c) => c.value)).toEqual(['for_sale', 'for_rent']);
    expect(listings.find((o) => o.name === 'page')?.type).toBe(4);
    expect(byName('listing').map((o) => o.name)).toEqual(['show', 'create', 'update', 'delete']);
    const set = byName('chatbot').find((o) => o.name === 'set');
    const field = set?.options?.find((o) => o.name === 'field');
    expect(field?.choices?.length).toBe(25);
    expect(field?.choices?.map((c) => c.value)).toEqual(
      expect.arrayContaining(['Temperature', 'Name', 'SystemMessage', 'WelcomeMessage']),
    );
    expect(set?.options?.map((o) => o.name)).toEqual(['field', 'value']);
    expect(byName('handoff').map((o) => o.name)).toEqual(['reason', 'setting', 'value']);
    // `/handoff settings` on Discord: its setting names offered as choices.
    expect(
      byName('handoff')
        .find((o) => o.name === 'setting')
        ?.choices?.map((c) => c.value),
    ).toEqual(expect.arrayContaining(['HANDOFF_ASSIGN', 'HANDOFF_ON_NO_ANSWER', 'LINK_HOSTS']));
    expect(byName('chatbot').map((o) => o.name)).toEqual([
      'show',
      'set',
      'edit',
      'models',
      'list',
      'create',
      'connect',
      'disconnect',
      'hours',
    ]);
  });

  test('registration is a bulk overwrite: a second start sends the same commands and keeps their ids', async () => {
    const before = (e.fake.commands.get(e.fake.guildId) ?? []).map((c) => ({ name: c.name, id: c.id }));
    const second = createDiscordSurface({
      token: e.fake.token,
      applicationId: e.fake.applicationId,
      guildId: e.fake.guildId,
      apiUrl: e.fake.apiUrl,
      adminRoles: [],
      store: e.app.store,
      log: silentLog,
    });
    try {
      await second.start();
      const guildPuts = e.fake.callsTo('PUT', /\/guilds\/\d+\/commands$/);
      expect(guildPuts).toHaveLength(2);
      expect(guildPuts[1]!.body).toEqual(guildPuts[0]!.body);
      expect((e.fake.commands.get(e.fake.guildId) ?? []).map((c) => ({ name: c.name, id: c.id }))).toEqual(before);
      const dmPuts = e.fake.callsTo('PUT', new RegExp(`^/applications/${e.fake.applicationId}/commands$`));
      expect(dmPuts).toHaveLength(2);
      expect(dmPuts[1]!.body).toEqual(dmPuts[0]!.body);
    } finally {
      await second.stop();
    }
  });

  test('/ask answers within 3 s, opens a thread named after the question and streams the exact answer into it', async () => {
    const question = 'Which homes are for sale in Austin?';
    const { threadId, rec } = await ask(e, question);
    expectAcknowledged(e, rec, threadId);
    expect(e.fake.channels.get(threadId)?.name).toBe(question);
    const root = e.fake.messages.get(threadId)!;
    expect(root.content).toContain(`<@${e.user.user.id}>`);
    const { messages, answer } = await waitForAnswer(e, threadId, question);
    expect(messages.map((m) => m.content).join('')).toBe(answer);
    expect(messages[0]!.embeds).toEqual([]);
  });

  test('a later message in the thread continues the same session without a mention', async () => {
    const question = 'Show me homes for rent in Austin';
    const { threadId } = await ask(e, question);
    expect(await answerIn(e, threadId, question)).toContain('homes for rent in Austin');
    const follow = 'What about for sale in Austin?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow });
    expect(await answerIn(e, threadId, follow)).toContain('homes for sale in Austin');
    const sessions = e.service.context.db
      .prepare(`SELECT DISTINCT session_id AS s FROM messages WHERE role = 'user' AND content IN (?, ?)`)
      .all(question, follow) as Array<{ s: string }>;
    expect(sessions).toHaveLength(1);
  });

  test('a mention in a channel starts a thread on that message', async () => {
    const question = 'any homes for sale in Austin under 500000?';
    const msg = e.fake.userMessage({ channelId: e.general.id, member: e.user, content: question, mentionsBot: true });
    const thread = await waitFor(
      () => e.fake.channels.get(msg.id),
      'the thread on the mention',
      10_000,
      e.fake.changes,
    );
    expect(thread.parent_id).toBe(e.general.id);
    const { answer, messages } = await waitForAnswer(e, msg.id, question);
    expect(messages.map((m) => m.content).join('')).toBe(answer);
  });

  test('an attachment on a thread message is fetched from Discord and asked about', async () => {
    const question = 'Homes in Miami?';
    const { threadId } = await ask(e, question);
    expect(await answerIn(e, threadId, question)).toContain('homes in Miami');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const file = e.fake.addFile('house.png', png, 'image/png');
    const follow = 'What do you think of this house?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow, attachments: [file] });
    const fetches = await waitFor(
      () => e.fake.fileFetches > 0 && e.fake.fileFetches,
      'the attachment download',
      10_000,
      e.fake.changes,
    );
    expect(fetches).toBe(1);
    const asked = (): number =>
      (
        e.service.context.db
          .prepare(`SELECT COUNT(*) AS n FROM messages WHERE role = 'user' AND content LIKE ?`)
          .get(`%${follow}%`) as { n: number }
      ).n;
    const times = await waitFor(
      () => asked() > 0 && asked(),
      'the question with its attachment reaching the service',
      10_000,
      e.fake.changes,
    );
    expect(times).toBe(1);
  });

  test('messages from bots and webhooks are ignored', async () => {
    const { threadId } = await ask(e, 'homes in Austin please');
    expect(await answerIn(e, threadId, 'homes in Austin please')).toContain('homes in Austin');
    const before = botMessagesIn(e.fake, threadId).length;
    const otherBot = e.fake.addMember('other-bot', [], { bot: true });
    e.fake.userMessage({ channelId: threadId, member: otherBot, content: 'bot chatter in Austin' });
    e.fake.userMessage({ channelId: threadId, member: e.user, content: 'webhook chatter', webhookId: '123456789' });
    e.fake.userMessage({ channelId: e.general.id, member: otherBot, content: 'hi', mentionsBot: true });
    // A user message after them is answered; the ignored ones never reached the service.
    e.fake.userMessage({ channelId: threadId, member: e.user, content: 'and in Dallas?' });
    const { messages } = await waitForAnswer(e, threadId, 'and in Dallas?');
    expect(e.storedAnswers('bot chatter in Austin')).toEqual([]);
    expect(e.storedAnswers('webhook chatter')).toEqual([]);
    expect(e.storedAnswers('hi')).toEqual([]);
    // All the bot wrote in the thread since is that one answer (its text-free listing-button rows aside).
    const wrote = (ms: typeof messages) => ms.filter((m) => m.content !== '');
    expect(wrote(botMessagesIn(e.fake, threadId).slice(before))).toEqual(wrote(messages));
  });
});
