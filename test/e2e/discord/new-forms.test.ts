/**
 * Discord's newer app surfaces, end to end through gateway dispatches against the fake Discord
 * (which checks every modal by Discord's rules): the commands registered for both installs with
 * their contexts; `/ask photos:True`, whose form's File Upload takes a photo to the chatbot as an
 * image question; and a person's own install of the app used in a server the bot was never added to,
 * answered through the interaction alone (ephemeral), nothing posted in the channel. The survey's
 * rating reaching the figures is in handoff-lead.test.ts (the survey, then /analytics).
 */
import type { FakeChannel } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { startDiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100ffff03000006000557bfabd40000000049454e44ae426082',
  'hex',
);

describe('Discord: installs, contexts and the newer modal components', () => {
  const e = useStarted(() => startDiscordE2E());
  const wait = <T>(probe: () => T | undefined | false, what: string, ms = 15_000): Promise<T> =>
    waitFor(probe, what, ms, e.fake.changes);

  test('the commands declare integration_types and contexts: /ask and /listings for both installs everywhere, admin and handoff commands server-only', () => {
    const global = e.fake.commands.get('global') ?? [];
    const byName = new Map(global.map((c) => [String(c.name), c]));
    for (const name of ['ask', 'listings']) {
      expect(byName.get(name)).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
    }
    expect(byName.get('handoff')).toMatchObject({ integration_types: [0], contexts: [1] });
    const guild = e.fake.commands.get(e.fake.guildId) ?? [];
    const guildNames = guild.map((c) => String(c.name));
    // Never twice under one name in the server: the user-installable ones are the global ones.
    expect(guildNames).not.toContain('ask');
    expect(guildNames).toEqual(expect.arrayContaining(['chatbot', 'handoff', 'analytics', 'listing']));
    for (const c of global.filter((x) => x.name !== 'ask' && x.name !== 'listings'))
      expect(c.integration_types).toEqual([0]);
  });

  test('/ask photos:True opens a form with a File Upload; the photo reaches the chatbot as an image question', async () => {
    const question = 'Is this kitchen recently renovated?';
    const rec = e.fake.slashCommand({
      name: 'ask',
      channelId: e.general.id,
      member: e.user,
      options: [
        { name: 'question', type: 3, value: question },
        { name: 'photos', type: 5, value: true },
      ],
    });
    const modal = await wait(() => e.fake.modalOf(rec), 'the ask form');
    expect(modal.inputs.map((i) => [i.custom_id, i.type])).toEqual([
      ['question', 4],
      ['photos', 19],
    ]);
    expect(modal.inputs[0]!.value).toBe(question);
    expect(modal.inputs[1]).toMatchObject({ label: 'Photos', min_values: 1, max_values: 10, file_types: ['image'] });
    const photo = e.fake.addFile('kitchen.png', PNG, 'image/png');
    const fetchesBefore = e.fake.fileFetches;
    e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: e.user,
      values: {},
      files: { photos: [photo] },
    });
    const asked = await wait(
      () =>
        e.serviceRequests.find(
          (r) =>
            r.url.includes('/chat/Chat/ClientAsk') &&
            (r.body as { content?: string } | undefined)?.content === question,
        ),
      'the question with its photo at the chatbot',
      20_000,
    );
    const body = asked.body as { chatAskType?: string; fileIds?: number[] };
    expect(body.chatAskType).toBe('Image');
    expect(body.fileIds).toHaveLength(1);
    expect(e.fake.fileFetches).toBe(fetchesBefore + 1);
    const uploads = e.serviceRequests.filter(
      (r) =>
        r.url.includes('GetPreUploadUrl') && (r.body as { fileName?: string } | undefined)?.fileName === 'kitchen.png',
    );
    expect(uploads).toHaveLength(1);
    // The question still opens its thread in the channel, rooted on the form's reply.
    const root = await wait(
      () => e.fake.channelMessages(e.general.id).find((m) => m.content.includes(question)),
      'the question’s root message',
    );
    await wait(() => e.fake.channels.has(root.id), 'the thread on the root');
  }, 60_000);

  describe('a person’s own install, in a server the bot was never added to', () => {
    let stranger: { id: string; general: FakeChannel };
    beforeAll(() => {
      stranger = e.fake.addStrangerServer();
    });

    test('/ask is answered ephemerally through the interaction; nothing is posted in the channel, no thread made', async () => {
      const callsBefore = e.fake.calls.length;
      const question = 'Which homes are for rent in Denver?';
      const rec = e.fake.slashCommand({
        name: 'ask',
        channelId: stranger.general.id,
        member: e.user,
        install: 'user',
        options: [{ name: 'question', type: 3, value: question }],
      });
      const answered = await wait(
        () => e.fake.responsesOf(rec).find((m) => /homes for rent in Denver/.test(m.content)),
        'the answer among the interaction’s responses',
        20_000,
      );
      expect(answered.ephemeral).toBe(true);
      const responses = e.fake.responsesOf(rec);
      expect(responses.length).toBeGreaterThanOrEqual(2);
      for (const m of responses) expect(m.ephemeral).toBe(true);
      // The question's root, then the answer: the invoker's own.
      expect(responses[0]!.content).toContain(question);
      // Nothing the channel's members could see; no bot route on the stranger's channel at all.
      expect(e.fake.channelMessages(stranger.general.id).filter((m) => !m.ephemeral)).toEqual([]);
      expect(e.fake.threadsOf(stranger.general.id)).toEqual([]);
      const botRoutes = e.fake.calls
        .slice(callsBefore)
        .filter((c) => c.path.includes(`/channels/${stranger.general.id}`));
      expect(botRoutes).toEqual([]);
      // Through the interaction only: its callback and its webhook.
      const answerCalls = e.fake.calls
        .slice(callsBefore)
        .filter((c) => c.path.startsWith('/webhooks/') || c.path.startsWith(`/interactions/${rec.id}/`));
      expect(answerCalls.length).toBeGreaterThan(0);
      expect(answerCalls.every((c) => c.status < 300)).toBe(true);
      // No "Talk to a human" where an agent's reply could never reach it.
      expect(responses.flatMap((m) => e.fake.buttons(m).map((b) => b.label))).not.toContain('Talk to a human');
    }, 60_000);

    test('/listings answers the invoker alone there', async () => {
      const rec = e.fake.slashCommand({
        name: 'listings',
        channelId: stranger.general.id,
        member: e.user,
        install: 'user',
        options: [],
      });
      const first = await wait(() => e.fake.responsesOf(rec)[0], 'the listings reply');
      expect(first.ephemeral).toBe(true);
      expect(e.fake.channelMessages(stranger.general.id).filter((m) => !m.ephemeral)).toEqual([]);
    }, 30_000);

    test('admin and handoff commands are not offered to a user install', () => {
      expect(() =>
        e.fake.slashCommand({ name: 'chatbot', channelId: stranger.general.id, member: e.user, install: 'user' }),
      ).toThrow(/not offered/);
      expect(() =>
        e.fake.slashCommand({ name: 'handoff', channelId: stranger.general.id, member: e.user, install: 'user' }),
      ).toThrow(/not offered/);
    });
  });
});
