/**
 * The Discord surface's one outbound path under a burst from every kind of caller at once: answers'
 * interims and finals (relay), handoff relays (posts into a thread), button updates (cards, through
 * their interaction), interaction replies and ephemeral edits. The fake Discord enforces the
 * per-channel bucket (5 per 5 s) and the bot's global limit (50 a second): the gateway must never
 * exceed either, and the finals of the answers in flight must go out although interims queued
 * before them in the same channel still wait.
 */
import { REST, Routes } from 'discord.js';
import type { MessageRef, Place } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { restBase } from '../../../src/surfaces/discord';
import { DiscordPort } from '../../../src/surfaces/discord/port';
import { type FakeChannel, FakeDiscord, type InteractionRecord } from '../../../fakes/fake-discord';
import { silentLog } from '../../support/silent-log';

const log = silentLog;

describe('DiscordGateway: one outbound path', () => {
  let fake: FakeDiscord;
  let store: SqliteStore;
  let rest: REST;
  let port: DiscordPort;

  beforeAll(async () => {
    fake = new FakeDiscord({ globalLimit: { limit: 50, windowMs: 1000 } });
    await fake.start();
    store = new SqliteStore(':memory:');
    rest = new REST({ version: '10', api: restBase(fake.apiUrl) }).setToken(fake.token);
    port = new DiscordPort(rest, store, log);
  });

  afterAll(async () => {
    port.close();
    await fake.close();
    await store.close();
  });

  test('a burst from relay, handoff, cards and interaction replies stays within every budget, and finals are not starved', async () => {
    const place = (ch: FakeChannel): Place => ({ surface: 'discord', workspace: fake.guildId, channel: ch.id });
    const member = fake.addMember('clicker');
    // Twelve answers about to finish, each in a channel where another message streams too (its
    // interims queued first), and forty more messages streaming in channels of their own: more
    // calls than the global limit carries in a second.
    const shared = Array.from({ length: 12 }, (_, i) => fake.addChannel(`answers-${i}`));
    const alone = Array.from({ length: 40 }, (_, i) => fake.addChannel(`streams-${i}`));
    const pairs = await Promise.all(
      shared.map(async (ch) => {
        const answer = await port.post(place(ch), { text: '', typing: true });
        return { answer, neighbour: await port.post(place(ch), { text: '', typing: true }) };
      }),
    );
    const answers = pairs.map((p) => p.answer);
    const neighbours = pairs.map((p) => p.neighbour);
    const streaming = await Promise.all(alone.map((ch) => port.post(place(ch), { text: '', typing: true })));
    const releases = answers.map((ref, i) => port.reserveFinal(ref.place, `answer-${i}`));
    const cardsChannel = fake.addChannel('cards');
    const pages = await port.post(place(cardsChannel), {
      text: 'page 1',
      buttons: [{ action: 'page.next', label: 'Next', value: 'p' }],
    });
    const cardMessage = fake.messages.get(pages.id)!;
    const handoff = fake.addChannel('handoff-thread');
    const replyChannel = fake.addChannel('replies');
    const replyMessage = fake.messages.get((await port.post(place(replyChannel), { text: 'ask me' })).id)!;
    const burstFrom = fake.calls.length;

    const interim = (ref: MessageRef, text: string, key: string): Promise<string> =>
      port.edit(ref, { text, typing: true }, { priority: 'interim', coalesceKey: key }).then(
        () => 'sent',
        () => 'dropped',
      );
    // Interims first: five per neighbour, two per lone stream.
    const neighbourInterims = neighbours.flatMap((ref, i) =>
      [1, 2, 3, 4, 5].map((k) => interim(ref, `neighbour ${i} part ${k}`, `n-${i}-${k}`)),
    );
    const loneInterims = streaming.flatMap((ref, i) =>
      [1, 2].map((k) => interim(ref, `stream ${i} part ${k}`, `s-${i}-${k}`)),
    );
    // Then everything else at once: card updates through their interactions, interaction replies
    // and the edits of those ephemeral replies, handoff relays into one thread, and the finals.
    const viaCallback = (rec: InteractionRecord, type: number, data: object): Promise<unknown> =>
      rest.post(Routes.interactionCallback(rec.id, rec.token), { body: { type, data }, auth: false });
    const cards = [2, 3, 4].map((n) => {
      const click = fake.clickButton({ message: cardMessage, customId: 'next', member });
      return port.updateFromInteraction(place(cardsChannel), pages, { text: `page ${n}` }, async (m) => {
        // An interaction past its 3 s is spent: the port then edits the message instead.
        return viaCallback(click, 7, m.body).then(
          () => true,
          () => false,
        );
      });
    });
    const clicks = Array.from({ length: 20 }, () =>
      fake.clickButton({ message: replyMessage, customId: 'me', member }),
    );
    const replies = clicks.map(async (click, i) => {
      await port.gateway.global({}, () => viaCallback(click, 4, { content: `only for you ${i}`, flags: 64 }));
      const id = fake.interactions.get(click.id)!.originalMessageId!;
      port.rememberEphemeral(id, async (m) => {
        await rest.patch(Routes.webhookMessage(fake.applicationId, click.token, '@original'), {
          body: m.body,
          auth: false,
        });
      });
      await port.edit({ place: place(replyChannel), id }, { text: `only for you ${i}, updated` });
      return id;
    });
    const relays = [0, 1, 2].map((i) => port.post(place(handoff), { text: `Agent: message ${i}` }));
    const finals = answers.map((ref, i) =>
      port.edit(ref, { text: `answer ${i} complete` }, { coalesceKey: `answer-${i}` }),
    );

    await Promise.all([...finals, ...cards, ...relays]);
    const replied = await Promise.all(replies);
    for (const r of releases) r();

    // Every final shown, exactly.
    for (const [i, ref] of answers.entries()) expect(fake.messages.get(ref.id)!.content).toBe(`answer ${i} complete`);
    expect(fake.messages.get(pages.id)!.content).toBe('page 4');
    for (const [i, id] of replied.entries()) expect(fake.messages.get(id)!.content).toBe(`only for you ${i}, updated`);
    expect(fake.channelMessages(handoff.id).map((m) => m.content)).toEqual([0, 1, 2].map((i) => `Agent: message ${i}`));

    // Not starved: in each shared channel the final was among the first two calls of the burst
    // there (at most the one interim already going when the final came), though five waited.
    const burst = fake.calls.slice(burstFrom);
    for (const [i, ch] of shared.entries()) {
      const there = burst.filter((c) => c.path.startsWith(`/channels/${ch.id}/messages`));
      const final = there.findIndex((c) => (c.body as { content?: string }).content === `answer ${i} complete`);
      expect(final).toBeGreaterThanOrEqual(0);
      expect(final).toBeLessThanOrEqual(1);
    }

    port.close();
    const neighbourOutcome = await Promise.all(neighbourInterims);
    const loneOutcome = await Promise.all(loneInterims);
    // The neighbours' interims wait their channel's turn (one a second): some were still waiting.
    expect(neighbourOutcome.filter((o) => o === 'dropped').length).toBeGreaterThan(0);
    // Meanwhile streams in other channels went on: a channel waiting its turn holds no other back
    // (the relays into the handoff thread alone kept the burst going for two channel turns).
    expect(loneOutcome.filter((o) => o === 'sent').length).toBeGreaterThan(0);
    // Within every budget: no 429 from the channel buckets nor the global limit.
    expect(fake.rateLimitHits).toBe(0);
  }, 30_000);
});
