/**
 * The Discord surface's isMember (who counts as a member of the handoff channel) against the fake
 * Discord, through a real discord.js client: the members are those who can view the channel. Here
 * GUILD_CREATE lists none of the guild's own roles and no admin role is configured (so nothing else
 * fetches the roles), and members arrive after the bot started (so none is in its cache): what the
 * cache lacks must be fetched, and what cannot be told is undefined, not false. And cannotPostIn,
 * the check `/chatbot connect` makes of the channel picked.
 */
import type { Place } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { createDiscordSurface, type DiscordRuntime } from '../../../src/surfaces/discord';
import { type FakeChannel, FakeDiscord, VIEW_CHANNEL } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { silentLog } from '../../support/silent-log';

describe('Discord isMember: who can view the channel', () => {
  let fake: FakeDiscord;
  let store: SqliteStore;
  let runtime: DiscordRuntime;
  let handoff: FakeChannel;
  let general: FakeChannel;
  let agentRole: string;
  let otherGuild: { id: string; general: FakeChannel };

  const place = (ch: FakeChannel | string): Place => ({
    surface: 'discord',
    workspace: fake.guildId,
    channel: typeof ch === 'string' ? ch : ch.id,
  });
  const isMember = (ch: FakeChannel | string, userId: string): Promise<boolean | undefined> =>
    runtime.surface.directory.isMember(place(ch), userId);

  beforeAll(async () => {
    fake = new FakeDiscord({ quirks: { guildRolesListed: false } });
    general = fake.addChannel('general');
    handoff = fake.addChannel('handoff');
    agentRole = fake.addRole('agents');
    const view = VIEW_CHANNEL.toString();
    fake.setOverwrites(handoff.id, [
      { id: fake.guildId, type: 0, allow: '0', deny: view },
      { id: agentRole, type: 0, allow: view, deny: '0' },
    ]);
    otherGuild = fake.addGuild({ name: 'Other office', inReady: true });
    await fake.start();
    store = new SqliteStore(':memory:');
    runtime = createDiscordSurface({
      token: fake.token,
      applicationId: fake.applicationId,
      guildId: fake.guildId,
      apiUrl: fake.apiUrl,
      adminRoles: [],
      store,
      log: silentLog,
    });
    await runtime.start();
  });

  afterAll(async () => {
    await runtime?.stop();
    await fake.close();
    await store.close();
  });

  test('a member with the role the overwrite allows is a member: member and roles fetched once', async () => {
    const agent = fake.addMember('late-agent', [agentRole]);
    expect(fake.callsTo('GET', /\/roles$/)).toHaveLength(0);
    expect(await isMember(handoff, agent.user.id)).toBe(true);
    expect(fake.callsTo('GET', new RegExp(`/members/${agent.user.id}$`))).toHaveLength(1);
    expect(fake.callsTo('GET', /\/roles$/)).toHaveLength(1);
    // Cached from then on.
    expect(await isMember(handoff, agent.user.id)).toBe(true);
    expect(fake.callsTo('GET', new RegExp(`/members/${agent.user.id}$`))).toHaveLength(1);
  });

  test('a member @everyone’s overwrite keeps out is not; in a channel without overwrites everyone is', async () => {
    const other = fake.addMember('outsider');
    expect(await isMember(handoff, other.user.id)).toBe(false);
    expect(await isMember(general, other.user.id)).toBe(true);
  });

  test('a member overwrite lets one member in (the bot learns it by CHANNEL_UPDATE)', async () => {
    const invited = fake.addMember('invited');
    expect(await isMember(handoff, invited.user.id)).toBe(false);
    const view = VIEW_CHANNEL.toString();
    fake.setOverwrites(handoff.id, [
      ...(handoff.permission_overwrites ?? []),
      { id: invited.user.id, type: 1, allow: view, deny: '0' },
    ]);
    // The update arrives over the gateway connection: asked again until the client has applied it.
    await waitFor(
      async () => (await isMember(handoff, invited.user.id)) === true,
      'the invited member seen as a member',
      10_000,
      fake.changes,
    );
  });

  test('an unknown user or channel cannot be told: undefined, never a throw', async () => {
    expect(await isMember(handoff, '123456789012345678')).toBeUndefined();
    expect(await isMember('223456789012345678', fake.addMember('someone').user.id)).toBeUndefined();
  });

  test("cannotPostIn: a channel the bot may not view is named with the fix; another server's is no channel here", async () => {
    const cannot = (ch: FakeChannel) => runtime.surface.directory.cannotPostIn(place(ch));
    expect(await cannot(general)).toBeUndefined();
    // @everyone (the bot's only role) may not view the handoff channel here.
    const hidden = await cannot(handoff);
    expect(hidden).toContain('#handoff');
    expect(hidden).toContain('View Channel and Send Messages');
    expect(await cannot(otherGuild.general)).toContain('this server has no such channel');
  });
});
