import { listingsCommand, LISTINGS_PAGE_ACTION } from '../../../src/core/commands/listings';
import { usageOf } from '../../../src/core/commands/catalogue';
import { startCommandEnv } from './support';
import { useStarted } from '../../support/server-setup';

const env = useStarted(() => startCommandEnv());

const field = (card: { fields: Array<{ label: string; value: string }> }, label: string): string | undefined =>
  card.fields.find((f) => f.label === label)?.value;

test('a city filter shows cards with price, beds/baths, area, city, status, MLS, link and image', async () => {
  const inv = await env.run(listingsCommand, env.alice, 'city:Austin');
  const msg = inv.last();
  expect(inv.replies[0]?.ephemeral).toBe(false);
  // A city's six listings are one page: no Next button.
  expect(msg.text).toBe('Listings in Austin: page 1 of 1 (6 listings)');
  expect(msg.buttons ?? []).toEqual([]);
  const cards = msg.cards ?? [];
  expect(cards.length).toBeGreaterThan(0);
  expect(cards.length).toBeLessThanOrEqual(8);
  for (const c of cards) {
    expect(c.title).not.toBe('');
    expect(field(c, 'Price')).toMatch(/^\$[\d,]+/);
    expect(field(c, 'Beds / baths')).toMatch(/^\d+ bd \/ [\d.]+ ba$/);
    expect(field(c, 'Area')).toMatch(/^[\d,]+ sq ft$/);
    expect(field(c, 'City')).toMatch(/^Austin, TX/);
    expect(c.badge).toMatch(/^(For sale|For rent|Coming soon|Sold)$/);
    expect(JSON.stringify(c)).not.toMatch(/PreOnMarket|for_sale|for_rent|"ID \d/);
    expect(field(c, 'MLS')).toMatch(/^ATX/);
    expect(c.url).toMatch(/^https:\/\/homes\.example\.com\//);
    expect(c.imageUrl).toMatch(/front\.jpg$/);
  }
});

test('rentals show the rent per month', async () => {
  const inv = await env.run(listingsCommand, env.alice, 'type:for_rent');
  const cards = inv.last().cards ?? [];
  expect(cards.length).toBeGreaterThan(0);
  for (const c of cards) expect(field(c, 'Price')).toMatch(/\/ month$/);
  expect(inv.last().text).toContain('for rent');
});

test('Next edits the same message with page 2, and Prev goes back', async () => {
  const first = await env.run(listingsCommand, env.alice, '');
  const all = await env.ctx.client.listListings({ chatbotId: env.ctx.config.chatbotId, page: 1, pageSize: 100 });
  expect(all.total).toBeGreaterThan(5);
  const pages = Math.ceil(all.total / 8);
  const msg = first.last();
  expect(msg.text).toContain(`page 1 of ${pages} (${all.total} listings)`);
  const next = msg.buttons?.find((b) => b.label.includes('Next'));
  expect(next?.action).toBe(LISTINGS_PAGE_ACTION);
  expect(msg.buttons?.some((b) => b.label.includes('Prev'))).toBe(false);

  const clicked = await env.action(listingsCommand, LISTINGS_PAGE_ACTION, next?.value ?? '', env.alice);
  expect(clicked.replies).toHaveLength(0);
  expect(clicked.updates).toHaveLength(1);
  const page2 = clicked.updates[0];
  expect(page2?.text).toContain(`page 2 of ${pages}`);
  const page1Titles = (msg.cards ?? []).map((c) => c.title);
  const page2Titles = (page2?.cards ?? []).map((c) => c.title);
  expect(page2Titles.length).toBeGreaterThan(0);
  expect(page2Titles.some((t) => page1Titles.includes(t))).toBe(false);
  // the surface's message with the button now shows page 2
  const source = clicked.source;
  expect(source && env.surface.messages.get(source.id)?.current.text).toContain('page 2 of');

  const prev = page2?.buttons?.find((b) => b.label.includes('Prev'));
  const back = await env.action(listingsCommand, LISTINGS_PAGE_ACTION, prev?.value ?? '', env.alice);
  expect(back.updates[0]?.text).toContain(`page 1 of ${pages}`);
});

test('paging keeps the filters', async () => {
  const inv = await env.run(listingsCommand, env.alice, 'type:for_sale');
  const next = inv.last().buttons?.find((b) => b.label.includes('Next'));
  expect(next).toBeDefined();
  const clicked = await env.action(listingsCommand, LISTINGS_PAGE_ACTION, next?.value ?? '', env.alice);
  const text = clicked.updates[0]?.text ?? '';
  expect(text).toContain('for sale');
  expect(text).toContain('page 2');
  for (const c of clicked.updates[0]?.cards ?? []) expect(field(c, 'Price')).not.toMatch(/month/);
});

test('no match says so and suggests what to try', async () => {
  const inv = await env.run(listingsCommand, env.alice, 'city:Atlantis');
  expect(inv.last().text).toMatch(/No listings found in Atlantis\. Try fewer filters/);
  const far = await env.run(listingsCommand, env.alice, 'city:Austin page:99');
  expect(far.last().text).toMatch(/Page 99 is past the last page/);
});

test('bad arguments answer the usage, naming the argument', async () => {
  for (const [args, named] of [
    ['type:for_lease', 'type'],
    ['page:0', 'page'],
    ['page:x', 'page'],
    ['colour:red', 'colour'],
  ] as const) {
    const inv = await env.run(listingsCommand, env.alice, args);
    expect(inv.replies).toHaveLength(1);
    expect(inv.replies[0]?.ephemeral).toBe(true);
    expect(inv.last().text).toContain(named);
    expect(inv.last().text).toContain(usageOf('listings'));
  }
});

test('help answers the usage', async () => {
  const inv = await env.run(listingsCommand, env.alice, 'help');
  expect(inv.last().text).toBe(usageOf('listings'));
});

test('a stale page button is answered, not dropped', async () => {
  const inv = await env.action(listingsCommand, LISTINGS_PAGE_ACTION, 'garbage', env.alice);
  expect(inv.last().text).toMatch(/out of date/);
});
