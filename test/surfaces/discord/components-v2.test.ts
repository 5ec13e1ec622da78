/**
 * Listings as Components V2, checked by the fake Discord's own rules (40 components, 4,000
 * characters, section and gallery shapes): ten listings named by an answer go on in two messages,
 * each within the limits; a command's list of ten is split too, its paging buttons on the first.
 */
import type { Card } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { buttonId } from '../../../src/surfaces/discord/custom-ids';
import { renderMessage, type MessageBody } from '../../../src/surfaces/discord/render';
import { componentsV2Problem, containersOf, IS_COMPONENTS_V2 } from '../../../fakes/fake-discord-cv2';

const listing = (i: number): Card => ({
  title: `${i} Long Description Avenue`,
  url: `https://homes.example.com/${i}`,
  imageUrl: `https://images.example.com/${i}.jpg`,
  fields: [{ label: 'MLS', value: `MLS${i}` }],
  badge: 'For sale',
  subtitle: '$450,000 · 3 bd / 2 ba · For sale',
  body: `Austin, TX — ${'bright rooms and a garden '.repeat(8)}`,
  actions: [
    { action: 'listing.show', label: 'Details', value: `ListingId:${i}` },
    { action: 'handoff.viewing', label: 'Ask about a viewing', value: `${i} Long Description Avenue` },
  ],
});

describe('Discord Components V2 listings', () => {
  const store = new SqliteStore(':memory:');
  afterAll(async () => {
    await store.close();
  });
  const idOf = (b: Parameters<typeof buttonId>[2]) => buttonId(store, '@me:D0', b);
  const ok = (b: MessageBody) =>
    expect(componentsV2Problem(b as unknown as Record<string, unknown>, b.flags ?? 0)).toBeUndefined();

  test('an answer keeps its text; the ten listings it names follow in V2 messages within the limits', async () => {
    const cards = Array.from({ length: 10 }, (_, i) => listing(i + 1));
    const r = await renderMessage({ text: 'Here are ten homes.', markdown: true, cards }, idOf);
    expect(r.body.content).toBe('Here are ten homes.');
    expect((r.body.flags ?? 0) & IS_COMPONENTS_V2).toBe(0);
    expect(r.more!.length).toBeGreaterThanOrEqual(2);
    for (const b of r.more!) {
      expect((b.flags ?? 0) & IS_COMPONENTS_V2).toBe(IS_COMPONENTS_V2);
      ok(b);
    }
    expect(r.more!.flatMap((b) => containersOf(b)).length).toBe(10);
  });

  test("a command's list of ten splits across messages, its paging buttons on the first (the one a click updates)", async () => {
    const cards = Array.from({ length: 10 }, (_, i) => listing(i + 1));
    const r = await renderMessage(
      { text: 'Listings: page 1 of 2', cards, buttons: [{ action: 'listings.page', label: 'Next ▶', value: '2' }] },
      idOf,
    );
    ok(r.body);
    for (const b of r.more ?? []) ok(b);
    const rows = (r.body.components as Array<{ type: number; components?: Array<{ label?: string }> }>).filter(
      (c) => c.type === 1,
    );
    expect(rows.flatMap((x) => x.components ?? []).map((b) => b.label)).toEqual(['Next ▶']);
    expect([r.body, ...(r.more ?? [])].flatMap((b) => containersOf(b)).length).toBe(10);
  });
});
