/**
 * Many servers: one bot in several guilds. Commands are global unless DISCORD_GUILD_ID names a
 * development server; joining a server posts a setup note to its system channel (where the bot may
 * write); leaving one deletes its records and keeps every other server's; an outage deletes nothing.
 */
import { SEND_MESSAGES, type FakeChannel, type FakeDiscord } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import type { StateStore } from '../../../src/state/store';
import { ask, botMessagesIn, startDiscordE2E, waitForAnswer, type DiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';
import { handOffAfterAnswer, labelsWithout, ticketThreadOf } from '../../support/discord-flows';

interface Server {
  id: string;
  general: FakeChannel;
}

/** Whether a log line says `msg` about `guild`. */
function logged(lines: string[], msg: string, guild: string): boolean {
  return lines.some((line) => {
    const j = JSON.parse(line) as { msg?: string; guild?: string };
    return j.msg === msg && j.guild === guild;
  });
}

/** Every stored record (key and value) that names one of `ids`. */
async function recordsNaming(store: StateStore, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const key of await store.keys('')) {
    const text = `${key} ${JSON.stringify((await store.get(key)) ?? null)}`;
    if (ids.some((id) => text.includes(id))) out.push(key);
  }
  return out;
}

async function askAndAnswer(e: DiscordE2E, question: string, channel: FakeChannel): Promise<string> {
  const { threadId } = await ask(e, question, e.user, channel.id);
  await waitForAnswer(e, threadId, question);
  return threadId;
}

describe('Discord: many servers (global commands)', () => {
  const logLines: string[] = [];
  const s: { known?: Server; invited?: Server; mute?: Server; later?: Server; bare?: Server } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      logLines,
      prepare: (fake: FakeDiscord) => {
        s.known = fake.addGuild({ name: 'Known office', inReady: true });
        s.invited = fake.addGuild({ name: 'New office' });
        s.later = fake.addGuild({ name: 'Later office' });
        s.mute = fake.addGuild({ name: 'Quiet office' });
        s.bare = fake.addGuild({ name: 'Bare office', systemChannel: false });
        // The bot may see the quiet office's system channel but not write there.
        fake.setOverwrites(s.mute.general.id, [{ id: s.mute.id, type: 0, allow: '0', deny: SEND_MESSAGES.toString() }]);
      },
    }),
  );
  const known = (): Server => s.known!;
  const invited = (): Server => s.invited!;

  test('without DISCORD_GUILD_ID the commands are registered globally, once, and no server gets its own', () => {
    const globalPuts = e.fake.callsTo('PUT', new RegExp(`^/applications/${e.fake.applicationId}/commands$`));
    expect(globalPuts).toHaveLength(1);
    expect(e.fake.callsTo('PUT', /\/guilds\/\d+\/commands$/)).toHaveLength(0);
    const global = e.fake.commands.get('global') ?? [];
    expect(global.map((c) => c.name)).toEqual(
      expect.arrayContaining(['ask', 'listings', 'listing', 'chatbot', 'handoff', 'analytics', 'history']),
    );
    // In servers (context 0) and, for the conversation commands, in the bot's DMs (1); /ask and
    // /listings wherever a person installed the app for themselves too (install 1, context 2).
    expect(global.find((c) => c.name === 'ask')).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
    expect(global.find((c) => c.name === 'handoff')).toMatchObject({ integration_types: [0], contexts: [0, 1] });
    expect(global.find((c) => c.name === 'analytics')).toMatchObject({ integration_types: [0], contexts: [0] });
  });

  test('joining a new server posts the setup note to its system channel, once', async () => {
    e.fake.joinGuild(invited().id);
    const note = await waitFor(
      () => botMessagesIn(e.fake, invited().general.id)[0],
      'the setup note in the new server',
      10_000,
      e.fake.changes,
    );
    expect(note.content).toContain('/chatbot connect');
    expect(note.content).toContain('/ask');
    expect(note.content).toContain('/help');
    expect(note.content).toMatch(/handoff channel/);
    // A note is our own words: it pings nobody.
    const posts = e.fake.callsTo('POST', new RegExp(`^/channels/${invited().general.id}/messages$`));
    expect(posts).toHaveLength(1);
    expect((posts[0]!.body as { allowed_mentions?: unknown }).allowed_mentions).toEqual(
      expect.objectContaining({ parse: [] }),
    );
    await askAndAnswer(e, 'Which homes are for sale in Austin?', invited().general);
    expect(
      botMessagesIn(e.fake, invited().general.id).filter((m) => m.content.includes('/chatbot connect')),
    ).toHaveLength(1);
  });

  test('a server the bot was in at READY gets no note; an outage deletes nothing, its end posts no note', async () => {
    await askAndAnswer(e, 'Which homes are for sale in Dallas?', known().general);
    // (An answer's in-flight record is its own to delete once it is final, and its queue's pending
    // mark once the queue is drained: not counted.)
    const before = (await recordsNaming(e.app.store, [known().id, known().general.id])).filter(
      (k) => !k.startsWith('inflight:') && !k.startsWith('convpending:'),
    );
    expect(before.some((k) => k.startsWith(`t:discord:${known().id}:conv:`))).toBe(true);
    e.fake.leaveGuild(known().id, { unavailable: true });
    await waitFor(
      () => logged(logLines, 'discord: a server is unavailable (an outage); its records are kept', known().id),
      'the outage logged',
      10_000,
    );
    e.fake.joinGuild(known().id); // available again: GUILD_CREATE for a guild the bot knows
    // A server joined after those events gets its note: by then any note for the known one was sent.
    e.fake.joinGuild(s.later!.id);
    await waitFor(() => botMessagesIn(e.fake, s.later!.general.id)[0], 'the later note', 10_000, e.fake.changes);
    expect(botMessagesIn(e.fake, known().general.id).filter((m) => m.content.includes('/chatbot connect'))).toEqual([]);
    // The outage deleted nothing.
    expect(await recordsNaming(e.app.store, [known().id, known().general.id])).toEqual(expect.arrayContaining(before));
  });

  test('no note where the bot may not write, nor in a server without a system channel; each skip logged once', async () => {
    e.fake.joinGuild(s.mute!.id);
    e.fake.joinGuild(s.bare!.id);
    const skipped = (guild: string, why: string): boolean =>
      logLines.some((line) => {
        const j = JSON.parse(line) as { msg?: string; guild?: string; why?: string };
        return j.msg === 'discord: joined a server; no setup note' && j.guild === guild && j.why === why;
      });
    await waitFor(
      () =>
        skipped(s.mute!.id, 'no permission to view and send in the system channel') &&
        skipped(s.bare!.id, 'the server has no system channel'),
      'the skipped notes logged',
      10_000,
    );
    for (const server of [s.mute!, s.bare!]) {
      expect(e.fake.channelMessages(server.general.id)).toEqual([]);
      expect(e.fake.callsTo('POST', new RegExp(`^/channels/${server.general.id}/messages$`))).toEqual([]);
      expect(logLines.filter((l) => l.includes('no setup note') && l.includes(server.id))).toHaveLength(1);
    }
  });

  test('leaving a server deletes its records and keeps the other servers’', async () => {
    const mainThread = await askAndAnswer(e, 'Which homes are for sale in Houston?', e.general);
    const leftThread = await askAndAnswer(e, 'Which homes are for sale in Denver?', invited().general);
    const leftIds = [invited().id, invited().general.id, leftThread];
    const keptIds = [known().id, mainThread, e.fake.guildId];
    const leftBefore = await recordsNaming(e.app.store, leftIds);
    const keptBefore = await recordsNaming(e.app.store, keptIds);
    // Conversations are keyed by a hash of their place, in their server's part of the store.
    const part = `t:discord:${invited().id}:`;
    const convIds = leftBefore.flatMap((k) => new RegExp(`^${part}conv:([^:]+)$`).exec(k)?.[1] ?? []);
    expect(convIds.length).toBeGreaterThan(0);
    for (const id of convIds) expect(await e.app.store.get(`${part}conv:${id}:transcript`)).toBeDefined();
    expect(leftBefore.some((k) => k.startsWith(`t:discord:${invited().id}:feedback:answer:`))).toBe(true);
    expect(keptBefore.length).toBeGreaterThan(0);

    e.fake.leaveGuild(invited().id);
    const leftLine = (l: string): boolean => l.includes(`"tenant left: discord ${invited().id}: stopped`);
    await waitFor(() => logLines.some(leftLine) || undefined, 'the deletion logged', 20_000);
    expect(await e.app.store.keys(part)).toEqual([]);
    for (const id of convIds) expect(await e.app.store.keys(`conv:${id}`)).toEqual([]);
    expect(await recordsNaming(e.app.store, leftIds)).toEqual([]);
    expect((await recordsNaming(e.app.store, keptIds)).sort()).toEqual(expect.arrayContaining(keptBefore.sort()));
    expect(logLines.filter(leftLine)).toHaveLength(1);
  });
});

describe('Discord: the handoff channel without DISCORD_GUILD_ID', () => {
  const e = useStarted(() => startDiscordE2E({ omitEnv: ['DISCORD_GUILD_ID'] }));

  test('the ticket links to its server and an agent’s reply in the ticket thread reaches the user', async () => {
    const { threadId, ticket } = await handOffAfterAnswer(e, 'Which homes are for rent in Boston?', 'Call me');
    // The ticket's thread is in the handoff channel's server, and so is the ticket's own link (the queue's).
    const stored = await waitFor(
      async () => {
        for (const key of await e.app.store.keys('ticket:')) {
          const t = (await e.app.store.get(key)) as { thread?: { workspace: string }; ticketLink?: string } | undefined;
          if (t?.thread && t.ticketLink) return t;
        }
        return undefined;
      },
      'the stored ticket with its thread',
      10_000,
    );
    expect(stored.thread?.workspace).toBe(e.fake.guildId);
    expect(stored.ticketLink).toContain(`/channels/${e.fake.guildId}/${e.handoff.id}/${ticket.id}`);
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await labelsWithout(e, ticket, 'Claim', 'the claim on the ticket');
    const ticketThread = await ticketThreadOf(e, ticket);
    e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content: 'I will call you at noon.' });
    const relayed = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes('I will call you at noon.')),
      'the agent reply relayed',
      10_000,
      e.fake.changes,
    );
    expect(relayed.content).toContain('agent-smith');
  });
});

describe('Discord: DISCORD_GUILD_ID registers the commands in that one server', () => {
  const e = useStarted(() => startDiscordE2E({ prepare: (fake) => void fake.addGuild({ inReady: true }) }));

  test('the development server gets every command at once; globally only the DM ones', () => {
    const guildPuts = e.fake.callsTo('PUT', /\/guilds\/\d+\/commands$/);
    expect(guildPuts.map((c) => c.path)).toEqual([
      `/applications/${e.fake.applicationId}/guilds/${e.fake.guildId}/commands`,
    ]);
    expect((e.fake.commands.get(e.fake.guildId) ?? []).map((c) => c.name)).toEqual(
      expect.arrayContaining(['chatbot', 'handoff', 'analytics']),
    );
    expect((e.fake.commands.get('global') ?? []).map((c) => c.name)).toEqual(['ask', 'listings', 'handoff']);
  });
});
