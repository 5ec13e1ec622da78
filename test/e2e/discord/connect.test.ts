/**
 * A Discord server connects its own chatbot: `/chatbot connect` and its modal submit through gateway
 * dispatches. Only members with Manage Server (or DISCORD_ADMIN_ROLES) may; the modal's handoff
 * channel is a channel select (Discord's Label around a channel select) whose pick the bot checks it
 * can post in, and which, left empty, keeps the channel already set; the keys are checked live,
 * shown back masked, kept out of every REST body, log line and stored value (the modal's values are
 * not kept between steps either); the server's questions then go to its chatbot.
 */
import { randomBytes } from 'node:crypto';
import type { FakeChannel, FakeDiscord, FakeMember, InteractionRecord } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import {
  type Bot,
  chatbotThatAnswered,
  expectNoSecretIn,
  makeChatbots,
  masked,
  serviceKeys,
  storedText,
} from '../../support/connect-e2e';
import { ask, botMessagesIn, handoffIn, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

/** Every tenant's connection record (each in its tenant's part of the store). */
const connectionKeysIn = async (s: { keys(p: string): Promise<string[]> }): Promise<string[]> =>
  (await s.keys('t:')).filter((k) => k.endsWith(':connection'));
/** Every form session kept between modals (in its tenant's part). */
const formKeysIn = async (s: { keys(p: string): Promise<string[]> }): Promise<string[]> =>
  (await s.keys('t:')).filter((k) => k.includes(':discord:form:'));

/** Discord's Manage Server permission bit, on top of a member's everyday permissions. */
const WITH_MANAGE_SERVER = String(2248473465835073n | 0x20n);
const SEND_MESSAGES = (1n << 11n).toString();

describe('Discord e2e: each server connects its own chatbot', () => {
  const logLines: string[] = [];
  /** A second server (Y) beside the fake's own (X). */
  const y: { id?: string; general?: FakeChannel } = {};
  /** X's channels: the desk it connects, one the bot may not post in, a voice channel. */
  const x: { desk?: FakeChannel; locked?: FakeChannel; voice?: FakeChannel } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      logLines,
      omitEnv: ['DISCORD_GUILD_ID'],
      env: { STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      prepare: (fake: FakeDiscord) => {
        Object.assign(y, fake.addGuild({ name: 'Office Y', inReady: true }));
        x.desk = fake.addChannel('desk-x');
        x.locked = fake.addChannel('announcements-locked');
        x.locked.type = 5;
        // @everyone (the bot has no other role) may not send there.
        fake.setOverwrites(x.locked.id, [{ id: fake.guildId, type: 0, allow: '0', deny: SEND_MESSAGES }]);
        x.voice = fake.addChannel('lounge');
        x.voice.type = 2;
      },
    }),
  );
  let owner: FakeMember;
  let bot: Bot;
  let botB: Bot;

  beforeAll(async () => {
    owner = e.fake.addMember('olga-owner');
    owner.permissions = WITH_MANAGE_SERVER;
    [bot, botB] = (await makeChatbots(e, 'Server chatbot', 'Chatbot of Y')) as [Bot, Bot];
  });

  const connectCommand = (member: FakeMember, channelId = e.general.id): InteractionRecord =>
    e.fake.slashCommand({ name: 'chatbot', subcommand: 'connect', channelId, member });

  /** `/chatbot connect` by the owner in `channelId`, and the modal it opens. */
  const openModal = (channelId = e.general.id) => {
    const rec = connectCommand(owner, channelId);
    return waitFor(() => e.fake.modalOf(rec), 'the connect modal', 10_000, e.fake.changes);
  };

  /** `/chatbot connect` in `channelId`, its modal submitted with `values` and the channels picked (or none). */
  async function submitConnect(
    channelId: string,
    values: Record<string, string>,
    picked: string[] = [],
  ): Promise<InteractionRecord> {
    const modal = await openModal(channelId);
    return e.fake.submitModal({
      customId: modal.custom_id,
      channelId,
      member: owner,
      values,
      channels: { handoffChannel: picked },
    });
  }

  const textOf = (rec: InteractionRecord, pattern: RegExp, what: string): Promise<string> =>
    waitFor(
      () => {
        const text = responseText(e, rec);
        return pattern.test(text) ? text : undefined;
      },
      what,
      10_000,
      e.fake.changes,
    );

  test('a member without Manage Server is refused and no modal opens', async () => {
    const rec = connectCommand(e.user);
    expect(await textOf(rec, /admins only/, 'the refusal')).toContain('/chatbot');
    expect(e.fake.modalOf(rec)).toBeUndefined();
  });

  test('the modal: four text inputs and a channel select of text and announcement channels, each in a Label', async () => {
    const modal = await openModal();
    const top = modal.payload.components as Array<{ type: number; label: string; component: Record<string, unknown> }>;
    // Discord's limit is 5 top-level components: one Label per field.
    expect(top.map((c) => c.type)).toEqual([18, 18, 18, 18, 18]);
    expect(top.map((c) => [c.component.type, c.component.custom_id])).toEqual([
      [4, 'chatbotId'],
      [4, 'secretKey'],
      [4, 'sessionKey'],
      [4, 'apiKey'],
      [8, 'handoffChannel'],
    ]);
    expect(top[4]).toMatchObject({
      label: 'Handoff channel',
      component: { type: 8, custom_id: 'handoffChannel', channel_types: [0, 5], required: false, max_values: 1 },
    });
    // Nothing connected yet: nothing to keep.
    expect(modal.inputs[4]?.placeholder).toBe('Pick a channel');
  });

  test('wrong keys are refused naming the call that failed; nothing is kept', async () => {
    const submit = await submitConnect(e.general.id, {
      chatbotId: bot.id,
      secretKey: 'sk_wrong-secret-for-discord',
      sessionKey: serviceKeys(e).sessionKey,
    });
    expect(await textOf(submit, /GetSession/, 'the refusal naming GetSession')).toContain('secret key');
    expect(await connectionKeysIn(e.app.store)).toEqual([]);
    for (const key of await formKeysIn(e.app.store)) {
      expect(JSON.stringify(await e.app.store.get(key))).not.toContain(serviceKeys(e).sessionKey);
    }
  });

  test('a channel the bot may not post in is refused, naming the channel and the fix; nothing is kept', async () => {
    const locked = x.locked as FakeChannel;
    const submit = await submitConnect(e.general.id, { chatbotId: bot.id, ...serviceKeys(e) }, [locked.id]);
    const refusal = await textOf(submit, /cannot post/, 'the refusal of the locked channel');
    expect(refusal).toContain(`#${locked.name}`);
    expect(refusal).toContain('Send Messages');
    expect(await connectionKeysIn(e.app.store)).toEqual([]);
    // The select offers no voice channel: Discord's client would not let the owner pick one.
    const modal = await openModal();
    expect(() =>
      e.fake.submitModal({
        customId: modal.custom_id,
        channelId: e.general.id,
        member: owner,
        values: { chatbotId: bot.id, ...serviceKeys(e) },
        channels: { handoffChannel: [(x.voice as FakeChannel).id] },
      }),
    ).toThrow(/channel types 0, 5/);
  });

  test('X connects A with its desk picked and Y connects B: shown masked, each server’s questions go to its own chatbot', async () => {
    const desk = x.desk as FakeChannel;
    const submit = await submitConnect(e.general.id, { chatbotId: bot.id, ...serviceKeys(e), apiKey: bot.apiKey }, [
      desk.id,
    ]);
    const shown = await textOf(submit, /Connected/, 'the connection shown');
    expect(shown).toContain(masked(bot.apiKey));
    expect(shown).toContain(`#${desk.name}`);
    expect(shown).toContain('Office hours');

    const { threadId } = await ask(e, 'Townhouses in Dallas on Discord?');
    await waitForAnswer(e, threadId, 'Townhouses in Dallas on Discord?');
    expect(chatbotThatAnswered(e, 'Townhouses in Dallas on Discord?')).toBe(bot.id);

    // Server Y, with its own chatbot B and no channel picked, is answered by B.
    const yGeneral = y.general as FakeChannel;
    const connectedY = await submitConnect(yGeneral.id, { chatbotId: botB.id, ...serviceKeys(e), apiKey: botB.apiKey });
    expect(await textOf(connectedY, /Connected/, 'Y connected')).toContain("the deployment's handoff channel");
    const inY = await ask(e, 'Townhouses in Dallas for Y?', e.user, yGeneral.id);
    await waitForAnswer(e, inY.threadId, 'Townhouses in Dallas for Y?');
    expect(chatbotThatAnswered(e, 'Townhouses in Dallas for Y?')).toBe(botB.id);

    expect((await connectionKeysIn(e.app.store)).sort()).toEqual(
      [`t:discord:${e.fake.guildId}:connection`, `t:discord:${y.id}:connection`].sort(),
    );
    expectNoSecretIn([...Object.values(serviceKeys(e)), bot.apiKey, botB.apiKey], {
      'REST bodies': JSON.stringify(e.fake.calls.map((c) => c.body)),
      log: logLines.join('\n'),
      store: await storedText(e),
    });
  });

  test('a ticket of X goes to the channel X picked', async () => {
    const desk = x.desk as FakeChannel;
    handoffIn(e, e.general.id, 'a person please, on Discord');
    const ticket = await waitFor(
      () => botMessagesIn(e.fake, desk.id).find((m) => JSON.stringify(m).includes('a person please, on Discord')),
      'the ticket in the desk X picked',
      10_000,
      e.fake.changes,
    );
    expect(ticket.channel_id).toBe(desk.id);
  });

  test('connecting again with the select left empty keeps the channel X picked', async () => {
    const desk = x.desk as FakeChannel;
    const modal = await openModal();
    expect(modal.inputs.find((i) => i.custom_id === 'handoffChannel')?.placeholder).toBe('Keep the current channel');
    const again = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: owner,
      values: { ...serviceKeys(e), apiKey: bot.apiKey },
    });
    const shown = await textOf(again, /Connected/, 'connected again');
    expect(shown).toContain(`#${desk.name}`);
    // The chatbot id was pre-filled and kept too.
    expect(shown).toContain(`Chatbot ${bot.id}`);
  });

  test('Y leaves: its connection and its own chatbot’s applied settings go with it; X’s chatbot’s stay', async () => {
    const yGeneral = y.general as FakeChannel;
    for (const channelId of [e.general.id, yGeneral.id]) {
      const rec = e.fake.slashCommand({
        name: 'chatbot',
        subcommand: 'set',
        channelId,
        member: owner,
        options: [
          { name: 'field', type: 3, value: 'Temperature' },
          { name: 'value', type: 3, value: '1' },
        ],
      });
      await textOf(rec, /Set Temperature/, 'the setting applied');
    }
    expect(await e.app.store.get(`settings:applied:${bot.id}`)).toEqual({ Temperature: 1 });
    expect(await e.app.store.get(`settings:applied:${botB.id}`)).toEqual({ Temperature: 1 });

    e.fake.leaveGuild(y.id!);
    await waitFor(
      () => logLines.some((l) => l.includes(`tenant left: discord ${y.id!}:`)),
      'Y’s records deleted',
      20_000,
    );
    expect(await e.app.store.get(`settings:applied:${botB.id}`)).toBeUndefined();
    expect(await e.app.store.get(`t:discord:${y.id}:connection`)).toBeUndefined();
    expect(await e.app.store.get(`settings:applied:${bot.id}`)).toEqual({ Temperature: 1 });
    expect(await e.app.store.get(`t:discord:${e.fake.guildId}:connection`)).toBeDefined();
  });

  test('disconnect: the server is answered by the deployment’s chatbot again', async () => {
    const rec = e.fake.slashCommand({
      name: 'chatbot',
      subcommand: 'disconnect',
      channelId: e.general.id,
      member: owner,
    });
    await textOf(rec, /Disconnected/, 'the disconnect reply');
    const { threadId } = await ask(e, 'Lofts in Dallas after disconnect?');
    await waitForAnswer(e, threadId, 'Lofts in Dallas after disconnect?');
    expect(chatbotThatAnswered(e, 'Lofts in Dallas after disconnect?')).toBe(e.service.chatbotId);
  });
});
