/**
 * A Discord server connects its own chatbot: `/chatbot connect` and its modal submit through gateway
 * dispatches. Only members with Manage Server (or DISCORD_ADMIN_ROLES) may; the keys are checked
 * live, shown back masked, kept out of every REST body, log line and stored value (the modal's values
 * are not kept between steps either); the server's questions then go to its chatbot.
 */
import { randomBytes } from 'node:crypto';
import type { FakeChannel, FakeDiscord, FakeMember, InteractionRecord } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { ask, type DiscordE2E, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

/** Discord's Manage Server permission bit, on top of a member's everyday permissions. */
const WITH_MANAGE_SERVER = String(2248473465835073n | 0x20n);

function chatbotThatAnswered(e: DiscordE2E, question: string): string | undefined {
  const row = e.service.context.db
    .prepare(
      `SELECT s.chatbot_id AS c FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE m.role = 'user' AND m.content = ? ORDER BY m.id DESC LIMIT 1`,
    )
    .get(question) as { c: string } | undefined;
  return row?.c;
}

describe('Discord e2e: each server connects its own chatbot', () => {
  const logLines: string[] = [];
  /** A second server (Y) beside the fake's own (X). */
  const y: { id?: string; general?: FakeChannel } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      logLines,
      omitEnv: ['DISCORD_GUILD_ID'],
      env: { STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      prepare: (fake: FakeDiscord) => Object.assign(y, fake.addGuild({ name: 'Office Y', inReady: true })),
    }),
  );
  let owner: FakeMember;
  let bot: { id: string; apiKey: string };
  let botB: { id: string; apiKey: string };
  const keys = () => ({ secretKey: e.service.credentials.secretKey, sessionKey: e.service.credentials.sessionKey });

  beforeAll(async () => {
    owner = e.fake.addMember('olga-owner');
    owner.permissions = WITH_MANAGE_SERVER;
    const made = await e.app.client.v1.createChatbot({ name: 'Server chatbot' });
    bot = { id: made.id, apiKey: made.apiKey ?? '' };
    const madeB = await e.app.client.v1.createChatbot({ name: 'Chatbot of Y' });
    botB = { id: madeB.id, apiKey: madeB.apiKey ?? '' };
  });

  const connectCommand = (member: FakeMember, channelId = e.general.id): InteractionRecord =>
    e.fake.slashCommand({ name: 'chatbot', subcommand: 'connect', channelId, member });

  /** `/chatbot connect` in `channelId`, its modal submitted with `values`. */
  async function submitConnect(channelId: string, values: Record<string, string>): Promise<InteractionRecord> {
    const rec = connectCommand(owner, channelId);
    const modal = await waitFor(() => e.fake.modalOf(rec), 'the connect modal', 10_000, e.fake.changes);
    return e.fake.submitModal({ customId: modal.custom_id, channelId, member: owner, values });
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

  test('wrong keys are refused naming the call that failed; nothing is kept', async () => {
    const rec = connectCommand(owner);
    const modal = await waitFor(() => e.fake.modalOf(rec), 'the connect modal', 10_000, e.fake.changes);
    expect(modal.inputs.map((i) => i.custom_id)).toEqual([
      'chatbotId',
      'secretKey',
      'sessionKey',
      'apiKey',
      'handoffChannel',
    ]);
    const submit = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: owner,
      values: { chatbotId: bot.id, secretKey: 'sk_wrong-secret-for-discord', sessionKey: keys().sessionKey },
    });
    expect(await textOf(submit, /GetSession/, 'the refusal naming GetSession')).toContain('secret key');
    expect(await e.app.store.keys('tenant:connection:')).toEqual([]);
    for (const key of await e.app.store.keys('discord:form:')) {
      expect(JSON.stringify(await e.app.store.get(key))).not.toContain(keys().sessionKey);
    }
  });

  test('X connects A and Y connects B: shown masked, each server’s questions go to its own chatbot; X’s channel is refused in Y', async () => {
    const rec = connectCommand(owner);
    const modal = await waitFor(() => e.fake.modalOf(rec), 'the connect modal', 10_000, e.fake.changes);
    const submit = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: owner,
      values: { chatbotId: bot.id, ...keys(), apiKey: bot.apiKey, handoffChannel: e.handoff.id },
    });
    const shown = await textOf(submit, /Connected/, 'the connection shown');
    expect(shown).toContain(`${bot.apiKey.slice(0, 3)}…${bot.apiKey.slice(-4)}`);
    expect(shown).toContain(`#${e.handoff.name}`);
    expect(shown).toContain('Office hours');

    const { threadId } = await ask(e, 'Townhouses in Dallas on Discord?');
    await waitForAnswer(e, threadId, 'Townhouses in Dallas on Discord?');
    expect(chatbotThatAnswered(e, 'Townhouses in Dallas on Discord?')).toBe(bot.id);

    // Server Y: X's handoff channel is not Y's to use; with its own chatbot B, Y is answered by B.
    const yGeneral = y.general as FakeChannel;
    const foreign = await submitConnect(yGeneral.id, { chatbotId: botB.id, ...keys(), handoffChannel: e.handoff.id });
    expect(await textOf(foreign, /cannot post/, 'X’s channel refused in Y')).toContain('handoff');
    const connectedY = await submitConnect(yGeneral.id, { chatbotId: botB.id, ...keys(), apiKey: botB.apiKey });
    await textOf(connectedY, /Connected/, 'Y connected');
    const inY = await ask(e, 'Townhouses in Dallas for Y?', e.user, yGeneral.id);
    await waitForAnswer(e, inY.threadId, 'Townhouses in Dallas for Y?');
    expect(chatbotThatAnswered(e, 'Townhouses in Dallas for Y?')).toBe(botB.id);

    const secrets = [keys().secretKey, keys().sessionKey, bot.apiKey, botB.apiKey];
    const bodies = JSON.stringify(e.fake.calls.map((c) => c.body));
    const stored: string[] = [];
    for (const key of await e.app.store.keys('')) stored.push(JSON.stringify(await e.app.store.get(key)));
    expect((await e.app.store.keys('tenant:connection:')).sort()).toEqual(
      [`tenant:connection:discord:${e.fake.guildId}`, `tenant:connection:discord:${y.id}`].sort(),
    );
    for (const secret of secrets) {
      expect(bodies).not.toContain(secret);
      expect(logLines.join('\n')).not.toContain(secret);
      expect(stored.join('\n')).not.toContain(secret);
    }
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
      () => logLines.some((l) => l.includes('its records are deleted') && l.includes(y.id!)),
      'Y’s records deleted',
      20_000,
    );
    expect(await e.app.store.get(`settings:applied:${botB.id}`)).toBeUndefined();
    expect(await e.app.store.get(`tenant:connection:discord:${y.id}`)).toBeUndefined();
    expect(await e.app.store.get(`settings:applied:${bot.id}`)).toEqual({ Temperature: 1 });
    expect(await e.app.store.get(`tenant:connection:discord:${e.fake.guildId}`)).toBeDefined();
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
