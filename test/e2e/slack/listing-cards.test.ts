/**
 * Listings as Slack card and carousel blocks through the whole app (the fake checks both by the
 * Block Kit reference's limits): /listings city:Austin is one carousel, every card titled by its
 * address and pictured where the listing has photos, with Details and Ask about a viewing; an
 * answer naming listings gains its cards with its final (the stream's stop, or the final edit), its
 * streamed text unchanged; /listings also shows every listing of the page as a data_table (the cards
 * beside it are the first three); a workspace that refuses data_table gets the cards alone, and one
 * that refuses cards gets sections, each once refused, remembered.
 */
import type { FakeMessage, SlackCall } from '../../../fakes/fake-slack';
import { rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { shown } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

interface CardEl {
  type: 'card';
  title: { text: string };
  subtitle?: { text: string };
  body?: { text: string };
  hero_image?: { image_url: string; alt_text: string };
  actions?: Array<{ action_id: string; value?: string; text: { text: string } }>;
}

function carouselOf(blocks: unknown): CardEl[] | undefined {
  if (!Array.isArray(blocks)) return undefined;
  const c = (blocks as Array<{ type: string; elements?: CardEl[] }>).find((b) => b.type === 'carousel');
  return c?.elements;
}

const hasCarousel = (c: SlackCall): boolean => carouselOf(c.args.blocks) !== undefined;

describe('Slack e2e: listings as a carousel of cards', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 5 }));

  const austin = async () =>
    (await e.app.client.listListings({ chatbotId: e.service.chatbotId, city: 'Austin', page: 1, pageSize: 50 })).items;

  test('/listings city:Austin: a table of every listing beside a carousel of the first few, titled by address, pictured where it has photos', async () => {
    await e.driver.command('/listings', 'city:Austin', { user: 'U0USER1', channel: 'C0CARDS' });
    const msg = await waitFor(() => e.fake.channelMessages('C0CARDS')[0], 'the Austin list');
    const cards = carouselOf(msg.blocks)!;
    const listings = await austin();
    // The table: a caption, the header row, one row per listing found (checked by the fake as Slack's reference says).
    const table = (
      msg.blocks as Array<{ type: string; caption?: string; page_size?: number; rows?: Array<Array<{ text: string }>> }>
    ).find((b) => b.type === 'data_table')!;
    expect(table.caption).toMatch(/^Listings in Austin/);
    expect(table.page_size).toBe(10);
    expect(table.rows![0]!.map((c) => c.text)).toEqual([
      'Address',
      'Status',
      'Price',
      'Beds / baths',
      'Area',
      'City',
      'MLS',
    ]);
    expect(table.rows!.slice(1).map((r) => r[0]!.text)).toEqual(listings.map((l) => l.address));
    expect(table.rows!.slice(1).map((r) => r[6]!.text)).toEqual(listings.map((l) => l.mlsNumber));
    for (const r of table.rows!.slice(1)) {
      expect(r[2]!.text).toMatch(/^\$[\d,]+/);
      expect(r[5]!.text).toBe('Austin');
    }
    // Beside it, the cards of the first three.
    expect(cards.map((c) => shown(c.title.text))).toEqual(listings.slice(0, 3).map((l) => l.address));
    for (const [i, l] of listings.slice(0, 3).entries()) {
      const card = cards[i]!;
      expect(card.hero_image?.image_url).toBe(l.images[0]);
      expect(card.subtitle!.text).toMatch(/\$[\d,]+.*bd.*ba.*(For sale|For rent|Coming soon|Sold)/);
      expect(card.body!.text).toContain('Austin');
      expect(card.title.text.length).toBeLessThanOrEqual(150);
      expect(card.subtitle!.text.length).toBeLessThanOrEqual(150);
      expect(card.body!.text.length).toBeLessThanOrEqual(200);
      expect(card.actions!.map((a) => a.text.text)).toEqual(['Details', 'Ask about a viewing']);
    }
    // The message text names every listing (notifications, screen readers).
    for (const l of listings) expect(shown(msg.text)).toContain(l.address!);
    // One message: the old stack of sections and image blocks is gone.
    expect((msg.blocks as Array<{ type: string }>).filter((b) => b.type === 'image')).toHaveLength(0);

    // Details: the listing in full, for the one who pressed it.
    const details = cards[0]!.actions![0]!;
    await e.driver.click(details, { channel: 'C0CARDS', messageTs: msg.ts });
    const full = await waitFor(
      () => e.fake.ephemerals.find((x) => x.channel === 'C0CARDS' && x.user === 'U0USER1'),
      'the details',
    );
    expect(JSON.stringify(full.blocks)).toContain(listings[0]!.address!);
  });

  const askedIn = async (channel: string, question: string): Promise<FakeMessage[]> => {
    await e.driver.command('/ask', question, { user: 'U0USER1', channel });
    const root = await waitFor(() => rootFor(e.fake, channel, question), 'the root');
    return (await waitForAnswer(e, channel, root.ts, question)).messages;
  };

  test('an answer naming listings (streamed natively) gains their cards with the stop, its text unchanged', async () => {
    const question = 'Which homes are for sale in Austin?';
    const messages = await askedIn('C0NAMED', question);
    const last = messages.at(-1)!;
    const cards = await waitFor(() => carouselOf(e.fake.message('C0NAMED', last.ts)!.blocks), 'the cards');
    const answer = e.storedAnswers(question).at(-1)!;
    expect(cards.length).toBeGreaterThan(0);
    for (const c of cards) expect(answer).toContain(shown(c.title.text));
    // Only the final carried them: the start and appends had none; the stop did.
    const calls = e.fake.calls.filter((c) => c.args.channel === 'C0NAMED' && c.method.startsWith('chat.'));
    const withCards = calls.filter(hasCarousel);
    expect(withCards.map((c) => c.method)).toEqual(['chat.stopStream']);
  });

  test('without native streaming, the final edit brings the cards (the interims had none)', async () => {
    e.fake.setStreaming('feature_not_enabled');
    try {
      const question = 'Which homes are for sale in Austin?';
      const messages = await askedIn('C0NAMED2', question);
      const last = messages.at(-1)!;
      const cards = carouselOf(last.blocks)!;
      expect(cards.length).toBeGreaterThan(0);
      const edits = e.fake.calls.filter(
        (c) => c.args.channel === 'C0NAMED2' && (c.method === 'chat.update' || c.method === 'chat.postMessage'),
      );
      const withCards = edits.filter(hasCarousel);
      expect(withCards).toHaveLength(1);
      expect(withCards[0]).toBe(edits.filter((c) => c.status === 200).at(-1));
      expect(messages.map((m) => shown(m.text)).join('')).toBe(e.storedAnswers(question).at(-1));
    } finally {
      e.fake.setStreaming('on');
    }
  });
});

describe('Slack e2e: a workspace that refuses new blocks (data_table)', () => {
  const e = useStarted(() => startSlackE2E({ fake: { newBlocks: 'refuse' } }));

  test('invalid_blocks: the list goes again as today (every card, no table), once; remembered', async () => {
    await e.driver.command('/listings', 'city:Austin', { user: 'U0USER1', channel: 'C0NOTABLE' });
    const msg = await waitFor(() => e.fake.channelMessages('C0NOTABLE')[0], 'the list without a table');
    const hasTable = (blocks: unknown) => JSON.stringify(blocks).includes('"data_table"');
    expect(hasTable(msg.blocks)).toBe(false);
    const listings = (
      await e.app.client.listListings({ chatbotId: e.service.chatbotId, city: 'Austin', page: 1, pageSize: 50 })
    ).items;
    // Today's layout: the carousel has every listing (the workspace keeps its cards).
    expect(carouselOf(msg.blocks)!.map((c) => shown(c.title.text))).toEqual(listings.map((l) => l.address));
    const refused = () => e.fake.callsOf('chat.postMessage').filter((c) => c.response.error === 'invalid_blocks');
    expect(refused()).toHaveLength(1);
    await e.driver.command('/listings', 'city:Denver', { user: 'U0USER1', channel: 'C0NOTABLE2' });
    const second = await waitFor(() => e.fake.channelMessages('C0NOTABLE2')[0], 'the second list');
    expect(hasTable(second.blocks)).toBe(false);
    expect(carouselOf(second.blocks)).toBeDefined();
    expect(refused()).toHaveLength(1);
  });
});

describe('Slack e2e: a workspace that refuses card blocks', () => {
  const e = useStarted(() => startSlackE2E({ fake: { cards: 'refuse' } }));

  test('invalid_blocks: the list goes again as sections, once; the workspace gets sections from then on', async () => {
    await e.driver.command('/listings', 'city:Austin', { user: 'U0USER1', channel: 'C0OLD' });
    const msg = await waitFor(() => e.fake.channelMessages('C0OLD')[0], 'the list as sections');
    expect(carouselOf(msg.blocks)).toBeUndefined();
    const blocks = JSON.stringify(msg.blocks);
    expect(blocks).toContain('"image"');
    expect(blocks).toContain('`For sale`');
    const refused = () =>
      e.fake.callsOf('chat.postMessage').filter((c) => c.response.error === 'invalid_blocks' && hasCarousel(c));
    expect(refused()).toHaveLength(1);

    await e.driver.command('/listings', 'city:Denver', { user: 'U0USER1', channel: 'C0OLD2' });
    const second = await waitFor(() => e.fake.channelMessages('C0OLD2')[0], 'the second list');
    expect(carouselOf(second.blocks)).toBeUndefined();
    expect(refused()).toHaveLength(1);
    expect(e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0OLD2')).toHaveLength(1);
  });
});
