/**
 * The everyday screens as Slack shows them, through the whole app on the fake Slack: status in words
 * as a badge, no internal ids or wire values, a short list on one page, a photo Slack cannot
 * download never costing the message, /analytics replacing its progress message.
 */
import { startSlackE2E, ADMIN, HANDOFF_CHANNEL, rootFor, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { analyticsShown, editedTo } from '../../support/slack-flows';
import { useStarted } from '../../support/server-setup';
import { button } from '../../../fakes/slack-blocks';

const BROKEN_HOST = 'photos.unreachable.example';

describe('Slack e2e: the everyday screens', () => {
  const e = useStarted(async () => {
    const started = await startSlackE2E({ fragmentDelayMs: 2, fake: { unfetchableImageHosts: [BROKEN_HOST] } });
    // Two Boise listings: one whose photo Slack cannot download, one whose photo is fine.
    const chatbot = started.service.chatbotId;
    const base = started.service.context.listings.search(chatbot, { city: 'Austin' }, 1)[0]!.data;
    for (const [i, image] of [
      `https://${BROKEN_HOST}/boise/1.jpg`,
      'https://images.example.com/boise/2.jpg',
    ].entries()) {
      started.service.context.listings.create(chatbot, {
        ...base,
        City: 'Boise',
        State: 'ID',
        Address: `${10 + i} Broken Photo Lane`,
        MLSNumber: `BOI00000${i}`,
        Url: `https://homes.example.com/boise/${i}`,
        Images: [image],
      });
    }
    return started;
  });

  test('a photo Slack cannot download: refused with invalid_blocks, the list posted again without it', async () => {
    await e.driver.command('/listings', 'city:Boise', { user: 'U0USER1', channel: 'C0BROKEN' });
    const msg = await waitFor(() => e.fake.channelMessages('C0BROKEN')[0], 'the Boise list');
    const refused = e.fake.callsOf('chat.postMessage').filter((c) => c.response.error === 'invalid_blocks');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(refused[0]!.response)).toContain('downloading image failed');
    const blocks = JSON.stringify(msg.blocks);
    expect(blocks).not.toContain(BROKEN_HOST);
    // Only the failing photo went: the other card keeps its own.
    expect(blocks).toContain('https://images.example.com/boise/2.jpg');
    expect(blocks).toContain('10 Broken Photo Lane');
    expect(blocks).toContain('11 Broken Photo Lane');
    // The refusal named the card's hero image; the card keeps its title, the other card its photo.
    expect(JSON.stringify(refused[0]!.response)).toMatch(
      /json-pointer:\/blocks\/\d+\/elements\/\d+\/hero_image\/image_url\]/,
    );
    type CardEl = { title: { text: string }; hero_image?: { image_url: string } };
    const carousel = (msg.blocks as Array<{ type: string; elements?: CardEl[] }>).find((b) => b.type === 'carousel')!;
    expect(carousel.elements!.map((c) => [c.title.text, c.hero_image?.image_url])).toEqual([
      ['10 Broken Photo Lane', undefined],
      ['11 Broken Photo Lane', 'https://images.example.com/boise/2.jpg'],
    ]);
    expect(blocks).not.toContain('"accessory"');
    expect(e.fake.brokenImagesShown).toEqual([]);
  });

  test('/listings: badges in words, no ids or wire values, a city of six on one page', async () => {
    await e.driver.command('/listings', 'city:Seattle', { user: 'U0USER1', channel: 'C0BADGES' });
    const msg = await waitFor(() => e.fake.channelMessages('C0BADGES')[0], 'the Seattle list');
    expect(msg.text.split('\n')[0]).toBe('Listings in Seattle: page 1 of 1 (6 listings)');
    expect(button(msg, /Next/)).toBeUndefined();
    const blocks = JSON.stringify(msg.blocks);
    // The status in words: in the table's Status column for all six, and on the subtitles of the cards beside it.
    const table = (msg.blocks as Array<{ type: string; rows?: Array<Array<{ text: string }>> }>).find(
      (b) => b.type === 'data_table',
    )!;
    expect(table.rows!.slice(1)).toHaveLength(6);
    expect(new Set(table.rows!.slice(1).map((r) => r[1]!.text))).toEqual(
      new Set(['For sale', 'For rent', 'Coming soon', 'Sold']),
    );
    const cardBadges = ['For sale', 'For rent', 'Coming soon', 'Sold'].filter((b) => blocks.includes(`· ${b}"`));
    expect(cardBadges.length).toBeGreaterThanOrEqual(3);
    expect(blocks).not.toMatch(/PreOnMarket|for_sale|for_rent|ID \d/);
  });

  test('/listing create: the modal in the order an agent fills it, options in words, placeholders with units', async () => {
    await e.driver.command('/listing', 'create', { user: ADMIN, channel: 'C0FORM' });
    const view = await waitFor(() => e.fake.views.find((v) => String(v.callback_id).includes('listing')), 'the modal');
    type Input = {
      type: string;
      block_id?: string;
      element?: {
        type: string;
        placeholder?: { text: string };
        options?: Array<{ text: { text: string } }>;
        initial_option?: { text: { text: string } };
        initial_value?: string;
      };
    };
    const blocks = view.blocks as Input[];
    const inputs = blocks.filter((b) => b.type === 'input');
    expect(inputs.slice(0, 5).map((b) => b.block_id)).toEqual([
      'Address',
      'SalePrice',
      'PropertyType',
      'Bedrooms',
      'Bathrooms',
    ]);
    const options = (id: string) => inputs.find((b) => b.block_id === id)?.element?.options?.map((o) => o.text.text);
    expect(options('SaleType')).toEqual(['For sale', 'For rent']);
    expect(options('Status')).toEqual(['Active', 'Coming soon', 'Sold']);
    expect(options('Tours')).toEqual(['Open house', '3D tour']);
    expect(inputs.find((b) => b.block_id === 'AreaUnit')?.element?.initial_option?.text.text).toBe('Square feet');
    expect(inputs.find((b) => b.block_id === 'CurrencySymbol')?.element?.initial_value).toBe('$');
    expect(inputs.find((b) => b.block_id === 'SaleType')?.element?.initial_option?.text.text).toBe('For sale');
    expect(inputs.find((b) => b.block_id === 'BuildingArea')?.element?.placeholder?.text).toMatch(/square feet/);
    expect(inputs.find((b) => b.block_id === 'RentPrice')?.element?.placeholder?.text).toMatch(/per month/);
    // Every amount of money says its unit: dollars, the default currency.
    for (const money of ['SalePrice', 'RentPrice', 'DepositFee', 'HOAMonth', 'EstimatePrice', 'UnitAreaPrice'])
      expect(inputs.find((b) => b.block_id === money)?.element?.placeholder?.text).toMatch(/dollars.*\$\d/);
    // What a person reads (every text, not the values sent back) has no developer formats or wire values.
    const shown = [...JSON.stringify(view.blocks).matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]);
    for (const t of shown)
      expect(t).not.toMatch(/^(basics|more)$|comma-separated|Key=value|for_sale|for_rent|PreOnMarket|OpenHouse/);
  });

  test('an answer that names a listing links it (a Markdown link on the address, streamed as markdown_text), with the true price', async () => {
    const question = 'How much is 3096 Larimer St?';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0LINKED' });
    const root = await waitFor(() => rootFor(e.fake, 'C0LINKED', question), 'the root');
    const { messages } = await waitForAnswer(e, 'C0LINKED', root.ts, question);
    // The fake keeps a streamed message's markdown_text, which Slack renders as Markdown (links too).
    expect(messages.every((m) => m.history.length > 0)).toBe(true);
    expect(e.fake.callsOf('chat.startStream').some((c) => c.args.channel === 'C0LINKED')).toBe(true);
    const shown = messages.map((m) => m.text).join('');
    expect(shown).toContain(
      '[3096 Larimer St, Denver, CO 80201](https://homes.example.com/denver/3096-larimer-st-den240007)',
    );
    expect(shown).toContain('$670,000');
    expect(shown).not.toMatch(/couldn't find anything|passing your question|will reply here shortly/);
  });

  test('without native streaming, the answer’s Markdown link becomes a Slack link in its blocks', async () => {
    e.fake.setStreaming('feature_not_enabled');
    try {
      const question = 'Tell me about MLS DEN240138';
      await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0LINKED2' });
      const root = await waitFor(() => rootFor(e.fake, 'C0LINKED2', question), 'the root');
      const { messages } = await waitForAnswer(e, 'C0LINKED2', root.ts, question);
      const blocks = JSON.stringify(messages.map((m) => m.blocks));
      expect(blocks).toContain(
        '<https://homes.example.com/denver/4632-colfax-ave-den240138|4632 Colfax Ave, Denver, CO 80202>',
      );
      expect(blocks).not.toContain('](https://');
    } finally {
      e.fake.setStreaming('on');
    }
  });

  test('/listing show: a viewing for everyone (a ticket naming the listing), Edit only for admins', async () => {
    await e.driver.command('/listing', 'show mls:DEN240007', { user: 'U0USER1', channel: 'C0VIEWING' });
    const card = await waitFor(() => e.fake.channelMessages('C0VIEWING')[0], 'the detail card');
    expect(button(card, /Edit/)).toBeUndefined();
    const viewing = button(card, 'Ask about a viewing');
    expect(viewing).toBeDefined();
    // The facts grouped as a buyer reads them, the photos as a gallery (image blocks, never as facts),
    // the map as a link (no coordinates); no internal id.
    const blocks = JSON.stringify(card.blocks);
    for (const label of ['Year built', 'Days on market', 'Price per sq ft', 'Price and size', 'The home', 'Links'])
      expect(blocks).toContain(label);
    const images = (card.blocks as Array<{ type: string }>).filter((b) => b.type === 'image');
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(images.length).toBeLessThanOrEqual(4);
    expect(blocks).toContain('|Map>');
    expect(blocks).not.toMatch(/Photo \d\*|\d+\.\d{3,}, -?\d+\.\d{3,}/);
    expect(blocks).not.toMatch(/ID \d|for_sale|PreOnMarket/);
    await e.driver.click(viewing!, { channel: 'C0VIEWING', messageTs: card.ts }, { user: 'U0USER1' });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => m.text.includes('3096 Larimer St (MLS DEN240007)')),
      'the viewing ticket',
    );
    expect(ticket.text).toMatch(/Viewing request: 3096 Larimer St \(MLS DEN240007\)/);
    expect(button(ticket, 'Claim')).toBeDefined();
    await e.driver.command('/listing', 'show mls:DEN240007', { user: ADMIN, channel: 'C0VIEWADMIN' });
    const forAdmin = await waitFor(() => e.fake.channelMessages('C0VIEWADMIN')[0], 'the admin card');
    expect(button(forAdmin, 'Edit')).toBeDefined();
  });

  test('/analytics: the progress message is replaced by the figures, named after the chatbot', async () => {
    await e.driver.command('/analytics', '', { user: ADMIN, channel: 'C0ANALYTICS' });
    const progress = await waitFor(
      () => e.fake.channelMessages('C0ANALYTICS').find((m) => m.history[0]?.startsWith('Crunching')),
      'the progress message',
    );
    const figures = await editedTo(e.fake, 'C0ANALYTICS', progress.ts, /Conversations: /);
    expect(figures.text).toMatch(/Conversations: \d+/);
    expect(progress.text).toContain('Analytics for Skyline Realty Assistant');
    expect(e.fake.channelMessages('C0ANALYTICS').some((m) => m.text.includes('Crunching'))).toBe(false);
    // The figures as a table, the trend per day as Slack's own chart.
    const shownAnalytics = await analyticsShown(e.fake, 'C0ANALYTICS');
    expect(shownAnalytics.rows[0]).toEqual(['Figure', 'Value']);
    expect(shownAnalytics.rows.map((r) => r[0])).toEqual(expect.arrayContaining(['Conversations', 'Handoffs']));
    expect(shownAnalytics.chart.chart.series.map((x) => x.name)).toEqual([
      'Conversations',
      'Handoffs',
      'Positive votes',
      'Negative votes',
    ]);
  });
});
