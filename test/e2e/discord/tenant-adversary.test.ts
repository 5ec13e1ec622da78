/**
 * Discord servers as tenants. One bot in two servers, no DISCORD_GUILD_ID: the server of the
 * deployment's handoff channel (A) is the operator's office; server B connected nothing, so the
 * deployment's shared chatbot answers it. B's admin (an admin role there) tries every command that
 * changes the chatbot, replays A's listing buttons in B, reads A's conversation by id and the
 * figures: refused in one line, the chatbot service sees no write call (nor the read of A's
 * conversation), and nothing of A's is shown. A keeps every right it had.
 */
import type { FakeChannel, FakeMember } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { ask, responseText, startDiscordE2E, waitForAnswer, type DiscordE2E } from '../../support/discord-e2e';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { answerIn } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

const REFUSAL =
  "This workspace uses the deployment's shared chatbot; connect your own with /chatbot connect to change its settings and listings.";
const SHARED_NOTE =
  "This workspace uses the deployment's shared chatbot, so service-wide figures are shown only once it connects its own with /chatbot connect.";
const STRING = 3;
const MANAGE_GUILD = 1n << 5n;
/** What changes the chatbot service's state: settings, listings, chatbots. */
const WRITE = /^(POST|PUT|PATCH|DELETE) \/(chat\/Chatbot\/(Edit|RealEstate(Create|Update|Delete))|v1\/chatbots)/;

type Option = { name: string; type: number; value: string };

describe('Discord: a server on the shared chatbot cannot touch the operator’s chatbot or another server', () => {
  const other: { id?: string; general?: FakeChannel; admin?: FakeMember } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      prepare: (fake) => {
        const guild = fake.addGuild({ name: 'Stranger', inReady: true });
        other.id = guild.id;
        other.general = guild.general;
        // B's admin: Manage Server, as Discord computes it for B's interactions.
        other.admin = fake.addMember('b-owner');
        other.admin.permissions = String(BigInt('2248473465835073') | MANAGE_GUILD);
      },
    }),
  );
  let listingId = '';
  let convA = '';

  const calls = (from: number): string[] => e.serviceRequests.slice(from).map((r) => `${r.method} ${r.url}`);
  const writes = (from: number): string[] => calls(from).filter((c) => WRITE.test(c));

  /** `/name sub options` by `member` in `channel`: its reply once one came. */
  async function run(
    channel: FakeChannel,
    member: DiscordE2E['admin'],
    name: string,
    sub: string | undefined,
    options: Option[] = [],
  ): Promise<string> {
    const rec = e.fake.slashCommand({
      name,
      channelId: channel.id,
      member,
      ...(sub ? { subcommand: sub } : {}),
      options,
    });
    return waitFor(
      () =>
        e.fake.responsesOf(rec).some((m) => m.content || m.embeds.length || m.components.length)
          ? responseText(e, rec)
          : undefined,
      `/${name} ${sub ?? ''} in ${channel.id}`,
      15_000,
      e.fake.changes,
    );
  }

  beforeAll(async () => {
    const row = e.service.context.db
      .prepare('SELECT id FROM listings WHERE chatbot_id = ? ORDER BY id LIMIT 1')
      .get(e.service.chatbotId) as { id: number };
    listingId = String(row.id);
    const { threadId } = await ask(e, 'Which homes are for sale in Austin, operator?');
    await answerIn(e, threadId, 'Which homes are for sale in Austin, operator?');
    const conv = e.service.context.db
      .prepare(`SELECT session_id AS s FROM messages WHERE role = 'user' AND content = ? ORDER BY id DESC LIMIT 1`)
      .get('Which homes are for sale in Austin, operator?') as { s: number };
    convA = String(conv.s);
  });

  const refused: Array<[string, string, Array<[string, string]>]> = [
    [
      'chatbot',
      'set',
      [
        ['field', 'EmailForDailyLeads'],
        ['value', 'thief@elsewhere.example'],
      ],
    ],
    [
      'chatbot',
      'set',
      [
        ['field', 'TalkToHumanEmail'],
        ['value', 'thief@elsewhere.example'],
      ],
    ],
    ['chatbot', 'edit', []],
    ['chatbot', 'create', [['name', 'Stolen']]],
    ['chatbot', 'list', []],
    ['listing', 'create', [['fields', 'SaleType:for_sale City:Nowhere ParkingSpots:1']]],
    ['listing', 'create', []],
    [
      'listing',
      'update',
      [
        ['id', '<id>'],
        ['fields', 'Status:Sold'],
      ],
    ],
    ['listing', 'update', [['id', '<id>']]],
    ['listing', 'delete', [['id', '<id>']]],
  ];

  test.each(refused)(
    'B’s admin: /%s %s %j is refused in one line, nothing reaches the service',
    async (name, sub, opts) => {
      const from = e.serviceRequests.length;
      const options = opts.map(([n, v]) => ({ name: n, type: STRING, value: v.replace('<id>', listingId) }));
      const text = await run(other.general!, other.admin!, name, sub, options);
      expect(text.trim()).toBe(REFUSAL);
      expect(writes(from)).toEqual([]);
      expect(calls(from).filter((c) => c.includes('/v1/chatbots'))).toEqual([]);
    },
  );

  test('B’s admin presses A’s listing buttons (Delete, Edit) in B: refused, nothing written', async () => {
    const del = e.fake.slashCommand({
      name: 'listing',
      channelId: e.general.id,
      member: e.admin,
      subcommand: 'delete',
      options: [{ name: 'id', type: STRING, value: listingId }],
    });
    const prompt = await waitFor(
      () => e.fake.responsesOf(del).find((m) => e.fake.buttons(m).some((b) => b.label === 'Delete')),
      'A’s delete prompt',
      15_000,
      e.fake.changes,
    );
    const show = e.fake.slashCommand({
      name: 'listing',
      channelId: e.general.id,
      member: e.admin,
      subcommand: 'show',
      options: [{ name: 'id', type: STRING, value: listingId }],
    });
    const card = await waitFor(
      () => e.fake.responsesOf(show).find((m) => e.fake.buttons(m).some((b) => b.label === 'Edit')),
      'A’s listing card with Edit',
      15_000,
      e.fake.changes,
    );
    // A message of B's own channel carries the replayed ids.
    const carrier = await waitFor(
      () =>
        e.fake.channelMessages(other.general!.id)[0] ??
        e.fake.channelMessages(other.general!.id, { includeEphemeral: true })[0],
      'a message in B',
      15_000,
      e.fake.changes,
    ).catch(() => undefined);
    for (const [message, label] of [
      [prompt, 'Delete'],
      [card, 'Edit'],
    ] as const) {
      const customId = e.fake.buttons(message).find((b) => b.label === label)!.custom_id!;
      const from = e.serviceRequests.length;
      const rec = e.fake.clickButton({
        message: { ...(carrier ?? message), channel_id: other.general!.id },
        customId,
        member: other.admin!,
      });
      await waitFor(() => responseText(e, rec).includes(REFUSAL), `the refusal of ${label}`, 15_000, e.fake.changes);
      expect(writes(from)).toEqual([]);
    }
    expect(e.service.context.db.prepare('SELECT id FROM listings WHERE id = ?').get(Number(listingId))).toBeDefined();
  });

  test('B’s admin: A’s conversation by id is not found (the service is not asked), /analytics counts B’s own', async () => {
    const from = e.serviceRequests.length;
    const text = await run(other.general!, other.admin!, 'history', undefined, [
      { name: 'id', type: STRING, value: `conversation:${convA}` },
    ]);
    expect(text.trim()).toBe(`No conversation has id ${convA}. List a user's with /history user:<id>.`);
    expect(calls(from).filter((c) => c.includes(`/v1/conversations/${convA}`))).toEqual([]);

    const figures = e.fake.slashCommand({ name: 'analytics', channelId: other.general!.id, member: other.admin! });
    await waitFor(() => /Handoffs:/.test(responseText(e, figures)), 'B’s figures', 30_000, e.fake.changes);
    const shown = responseText(e, figures);
    expect(shown).toContain(SHARED_NOTE);
    expect(shown).toContain('Conversations: 0 (opened in this workspace)');
    expect(calls(from).filter((c) => c.includes('/v1/analytics'))).toEqual([]);
    expect(writes(from)).toEqual([]);
  });

  test('the operator’s server keeps every right: set, list, and its own conversation by id', async () => {
    const from = e.serviceRequests.length;
    expect(
      await run(e.general, e.admin, 'chatbot', 'set', [
        { name: 'field', type: STRING, value: 'Temperature' },
        { name: 'value', type: STRING, value: '1' },
      ]),
    ).toContain('Set Temperature to 1');
    expect(writes(from)).toEqual([expect.stringMatching(/Chatbot\/Edit/)]);
    expect(await run(e.general, e.admin, 'chatbot', 'list')).toContain('Chatbots:');
    expect(
      await run(e.general, e.admin, 'history', undefined, [
        { name: 'id', type: STRING, value: `conversation:${convA}` },
      ]),
    ).toContain('Which homes are for sale in Austin, operator?');
  });

  test('two DM users are two tenants: each one’s conversation in its own part of the store, none in the other’s', async () => {
    const second = e.fake.addMember('grace');
    const dms = [
      { member: e.user, question: 'Any lofts in Boston, from my DM?' },
      { member: second, question: 'Any ranches in Texas, from my DM?' },
    ];
    for (const dm of dms) {
      const channel = e.fake.openDm(dm.member);
      e.fake.directMessage({ member: dm.member, content: dm.question });
      await waitForAnswer(e, channel.id, dm.question);
    }
    await e.app.bridge.conversations.idle();
    const [first, other] = dms.map(async (dm) => {
      const prefix = tenantPrefix(tenantFor('discord', `@me:${e.fake.openDm(dm.member).id}`));
      const keys = await e.app.store.keys(prefix);
      const values = await Promise.all(keys.map(async (k) => JSON.stringify(await e.app.store.get(k))));
      return values.join('\n');
    });
    const [mine, theirs] = [await first!, await other!];
    expect(mine).toContain('Any lofts in Boston');
    expect(mine).not.toContain('Any ranches in Texas');
    expect(theirs).toContain('Any ranches in Texas');
    expect(theirs).not.toContain('Any lofts in Boston');
    // No tenant holds every DM any more.
    expect(await e.app.store.keys(tenantPrefix(tenantFor('discord', '@me')))).toEqual([]);
  });

  test('B’s admin submits A’s settings form (its panel and its modal) in B: not found there, nothing written', async () => {
    const edit = e.fake.slashCommand({ name: 'chatbot', channelId: e.general.id, member: e.admin, subcommand: 'edit' });
    const panel = await waitFor(
      () => e.fake.responsesOf(edit).find((m) => e.fake.buttons(m).some((b) => b.custom_id?.startsWith('fs|'))),
      'A’s settings panel',
      15_000,
      e.fake.changes,
    );
    const group = e.fake.buttons(panel).find((b) => b.custom_id?.startsWith('fg|'))!;
    const opened = e.fake.clickButton({ message: panel, customId: group.custom_id!, member: e.admin });
    const modal = await waitFor(() => e.fake.modalOf(opened), 'A’s modal', 15_000, e.fake.changes);
    const submit = e.fake.buttons(panel).find((b) => b.custom_id?.startsWith('fs|'))!.custom_id!;
    const from = e.serviceRequests.length;
    // The modal's own custom id, submitted in B's channel by B's admin.
    const replayed = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: other.general!.id,
      member: other.admin!,
      values: Object.fromEntries(
        modal.inputs.filter((i) => i.type === 4).map((i) => [i.custom_id, 'thief@elsewhere.example']),
      ),
    });
    await waitFor(() => /expired/.test(responseText(e, replayed)), 'the modal refused', 15_000, e.fake.changes);
    // The panel's Submit pressed from a message of B's.
    const pressed = e.fake.clickButton({
      message: { ...panel, channel_id: other.general!.id },
      customId: submit,
      member: other.admin!,
    });
    await waitFor(() => /expired/.test(responseText(e, pressed)), 'the submit refused', 15_000, e.fake.changes);
    expect(writes(from)).toEqual([]);
    // Nothing of the form was written in B's part of the store.
    expect(await e.app.store.keys(`${tenantPrefix(tenantFor('discord', other.id!))}discord:form:`)).toEqual([]);
  });
});
