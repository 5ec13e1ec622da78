/**
 * Random and malformed gateway dispatches (INTERACTION_CREATE, MESSAGE_CREATE and a few others, with
 * wrong types, missing fields, null bodies, random nesting) sent to the bridge over the fake
 * Discord gateway: the process never crashes, keeps its gateway session, and a normal /ask (and a
 * DM) afterwards is answered exactly.
 */
import { snowflake } from '../../../fakes/fake-discord';
import { ask, startDiscordE2E } from '../../support/discord-e2e';
import { answerIn } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';
import { CrashWatch } from '../../support/crash-watch';
import { Gen, prng } from './payloads';

const COUNT = 300;

describe('Discord e2e faults: malformed gateway dispatches', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 2 }));
  const watch = new CrashWatch();
  beforeAll(() => watch.start());
  afterAll(() => watch.stop());

  /** Valid dispatches of the kinds the bridge acts on; mutations of them are "nearly valid". */
  function templates(): Array<{ t: string; d: Record<string, unknown> }> {
    const member = {
      roles: [],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      permissions: '0',
      user: { id: e.user.user.id, username: 'ada', discriminator: '0', global_name: null, avatar: null },
    };
    const base = {
      application_id: e.fake.applicationId,
      guild_id: e.fake.guildId,
      channel_id: e.general.id,
      channel: { id: e.general.id, type: 0, guild_id: e.fake.guildId, name: 'general' },
      member,
      version: 1,
      app_permissions: '2248473465835073',
      locale: 'en-US',
      entitlements: [],
    };
    return [
      {
        t: 'INTERACTION_CREATE',
        d: {
          ...base,
          id: snowflake(),
          token: `itoken-${snowflake()}`,
          type: 2,
          data: { id: snowflake(), name: 'listings', type: 1, options: [{ name: 'city', type: 3, value: 'Austin' }] },
        },
      },
      {
        t: 'INTERACTION_CREATE',
        d: {
          ...base,
          id: snowflake(),
          token: `itoken-${snowflake()}`,
          type: 3,
          data: { custom_id: 'bridge|answer.retry|nope', component_type: 2 },
          message: {
            id: snowflake(),
            channel_id: e.general.id,
            content: 'x',
            author: { id: e.fake.botUser.id, username: 'bot' },
            components: [],
            embeds: [],
            attachments: [],
            timestamp: new Date().toISOString(),
          },
        },
      },
      {
        t: 'INTERACTION_CREATE',
        d: {
          ...base,
          id: snowflake(),
          token: `itoken-${snowflake()}`,
          type: 5,
          data: {
            custom_id: 'bridge-form|listing.create|x',
            components: [{ type: 1, components: [{ type: 4, custom_id: 'City', value: 'Austin' }] }],
          },
        },
      },
      {
        t: 'MESSAGE_CREATE',
        d: {
          id: snowflake(),
          channel_id: e.general.id,
          guild_id: e.fake.guildId,
          author: member.user,
          member: { roles: [] },
          content: 'hello there',
          mentions: [],
          attachments: [],
          embeds: [],
          timestamp: new Date().toISOString(),
          type: 0,
        },
      },
    ];
  }

  function dm(): { id: string } {
    return e.fake.openDm(e.user);
  }

  /** A DM as Discord sends it: no guild_id, no member, the channel's type. */
  function dmMessage(): Record<string, unknown> {
    const author = { id: e.user.user.id, username: 'ada', discriminator: '0', global_name: null, avatar: null };
    return {
      id: snowflake(),
      channel_id: dm().id,
      channel_type: 1,
      author,
      content: 'hello in a DM',
      mentions: [],
      attachments: [],
      embeds: [],
      timestamp: new Date().toISOString(),
      type: 0,
    };
  }

  test(`${COUNT} malformed dispatches: no crash, the gateway session stays, a normal /ask is answered`, async () => {
    const g = new Gen(prng(11));
    const tpl = templates();
    const fixed: Array<[string, unknown]> = [
      ['INTERACTION_CREATE', null],
      ['INTERACTION_CREATE', {}],
      ['INTERACTION_CREATE', []],
      ['INTERACTION_CREATE', 'x'],
      ['INTERACTION_CREATE', { id: 1, type: '2', token: null, application_id: {} }],
      ['INTERACTION_CREATE', { ...tpl[0]!.d, data: null }],
      ['INTERACTION_CREATE', { ...tpl[0]!.d, member: null }],
      ['INTERACTION_CREATE', { ...tpl[0]!.d, member: { user: null } }],
      [
        'INTERACTION_CREATE',
        { ...tpl[0]!.d, data: { name: 'ask', options: [{ name: 'question', type: 3, value: { nested: [1, 2] } }] } },
      ],
      ['INTERACTION_CREATE', { ...tpl[0]!.d, data: { name: 'listings', options: 'city=Austin' } }],
      ['INTERACTION_CREATE', { ...tpl[0]!.d, type: 99 }],
      ['INTERACTION_CREATE', { ...tpl[1]!.d, data: { custom_id: 42 } }],
      ['INTERACTION_CREATE', { ...tpl[1]!.d, message: null }],
      ['INTERACTION_CREATE', { ...tpl[2]!.d, data: { custom_id: 'bridge-form|x', components: null } }],
      ['MESSAGE_CREATE', null],
      ['MESSAGE_CREATE', {}],
      ['MESSAGE_CREATE', { ...tpl[3]!.d, author: null }],
      ['MESSAGE_CREATE', { ...tpl[3]!.d, content: { text: 'x' } }],
      ['MESSAGE_CREATE', { ...tpl[3]!.d, attachments: 'none', mentions: null }],
      ['MESSAGE_CREATE', { ...tpl[3]!.d, channel_id: null }],
      ['MESSAGE_CREATE', { ...tpl[3]!.d, content: 'y'.repeat(200_000) }],
      // Direct messages (no guild_id, no member): broken ones must not start or break a DM conversation.
      ['MESSAGE_CREATE', { ...dmMessage(), author: null }],
      ['MESSAGE_CREATE', { ...dmMessage(), channel_type: 'dm' }],
      ['MESSAGE_CREATE', { ...dmMessage(), channel_id: null }],
      ['MESSAGE_CREATE', { ...dmMessage(), content: ['not', 'text'] }],
      [
        'INTERACTION_CREATE',
        { ...tpl[0]!.d, guild_id: undefined, member: undefined, user: null, channel: { id: dm().id, type: 1 } },
      ],
      ['MESSAGE_UPDATE', null],
      ['MESSAGE_DELETE', { id: null }],
      ['THREAD_CREATE', { id: snowflake(), type: 'thread' }],
      ['CHANNEL_CREATE', null],
      ['GUILD_MEMBER_UPDATE', null],
      ['TYPING_START', 'typing'],
      ['UNKNOWN_EVENT', { a: 1 }],
    ];
    let sent = 0;
    for (const [t, d] of fixed) {
      e.fake.dispatch(t, d);
      sent++;
    }
    while (sent < COUNT) {
      const r = g.rand();
      if (r < 0.6) {
        const one = g.pick(tpl);
        const d = g.mutate({ ...one.d, id: snowflake() });
        e.fake.dispatch(one.t, d);
      } else {
        e.fake.dispatch(
          g.pick(['INTERACTION_CREATE', 'MESSAGE_CREATE', 'MESSAGE_UPDATE', 'THREAD_CREATE', 'GUILD_CREATE']),
          g.value(4),
        );
      }
      sent++;
    }

    // Dispatches arrive in order on one connection: once this /ask is answered, all of the above were handled.
    const q = 'Homes for sale in Austin, after the bad packets?';
    const { threadId } = await ask(e, q);
    expect(await answerIn(e, threadId, q)).toContain('homes for sale in Austin');
    // And a DM is still a conversation.
    const dmQuestion = 'Homes for rent in Austin, asked in a DM after the bad packets?';
    e.fake.directMessage({ member: e.user, content: dmQuestion });
    expect(await answerIn(e, dm().id, dmQuestion)).toContain('homes for rent in Austin');
    expect(e.fake.connectedBots).toBeGreaterThanOrEqual(1);
    expect(e.fake.identifies).toBe(1);
    const health = await fetch(`${e.app.url}/healthz`);
    expect(health.status).toBe(200);
    await e.app.bridge.conversations.idle();
    expect(watch.crashes).toEqual([]);
  }, 120_000);
});
