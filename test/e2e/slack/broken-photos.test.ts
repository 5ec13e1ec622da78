/**
 * One listing photo Slack cannot download never breaks a list or a card, and never shows as a broken
 * picture: the fake Slack refuses a message naming an unfetchable photo (in a card's accessory as in
 * an image block) with `invalid_blocks` / "downloading image failed [json-pointer:...]", and the
 * bridge sends it again without that photo only. Covered for a list (chat.postMessage), a page turn
 * (chat.update) and a listing's detail card (/listing show).
 */
import { ADMIN, type SlackE2E, startSlackE2E } from '../../support/slack-e2e';
import { button } from '../../support/slack-blocks';
import { waitFor } from '../../support/slack-requests';

const BROKEN_HOST = 'photos.unreachable.example';
const broken = (n: number) => `https://${BROKEN_HOST}/lane/${n}.jpg`;
const good = (n: number) => `https://images.example.com/lane/${n}.jpg`;

interface Section {
  type: string;
  text?: { text: string };
  accessory?: { type: string; image_url?: string };
}

/** The photo shown beside the card whose title names `address`, if any. */
function photoOf(blocks: unknown[], address: string): string | undefined {
  const section = (blocks as Section[]).find((b) => b.type === 'section' && b.text?.text.includes(address));
  if (!section) throw new Error(`no card for ${address} in ${JSON.stringify(blocks)}`);
  return section.accessory?.type === 'image' ? section.accessory.image_url : undefined;
}

/** Every image URL the blocks name (accessories, image blocks, context images). */
function imagesIn(blocks: unknown[]): string[] {
  return [...JSON.stringify(blocks).matchAll(/"image_url":"([^"]+)"/g)].map((m) => m[1]!);
}

describe('Slack e2e: a photo Slack cannot download', () => {
  let e: SlackE2E;
  beforeAll(async () => {
    e = await startSlackE2E({ fragmentDelayMs: 2, fake: { unfetchableImageHosts: [BROKEN_HOST] } });
    const chatbot = e.service.chatbotId;
    const base = e.service.context.listings.search(chatbot, { city: 'Austin' }, 1)[0]!.data;
    const add = (city: string, n: number, image: string) =>
      e.service.context.listings.create(chatbot, {
        ...base,
        Status: 'Active',
        City: city,
        State: 'ID',
        Address: `${n} Photo Lane`,
        MLSNumber: `PHO${String(n).padStart(6, '0')}`,
        Url: `https://homes.example.com/photo-lane/${n}`,
        Images: [image],
      });
    // Caldwell: three listings, the middle one's photo unfetchable.
    add('Caldwell', 1, good(1));
    add('Caldwell', 2, broken(2));
    add('Caldwell', 3, good(3));
    // Nampa: ten listings over two pages, every other photo unfetchable.
    for (let n = 11; n <= 20; n += 1) add('Nampa', n, n % 2 === 0 ? broken(n) : good(n));
  });
  afterAll(async () => {
    await e?.close();
  });

  test('a list is still posted, once, without the broken photo; the other cards keep theirs', async () => {
    await e.driver.command('/listings', 'city:Caldwell', { user: 'U0USER1', channel: 'C0LIST' });
    const msg = await waitFor(() => e.fake.channelMessages('C0LIST')[0], 'the Caldwell list');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0LIST');
    // Refused once for the photo (and only for it), then accepted.
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(JSON.stringify(calls[0]!.response)).toMatch(
      /downloading image failed \[json-pointer:\/blocks\/\d+\/accessory/,
    );
    expect(e.fake.channelMessages('C0LIST')).toHaveLength(1);
    expect(photoOf(msg.blocks, '1 Photo Lane')).toBe(good(1));
    expect(photoOf(msg.blocks, '2 Photo Lane')).toBeUndefined();
    expect(photoOf(msg.blocks, '3 Photo Lane')).toBe(good(3));
    expect(imagesIn(msg.blocks).some((u) => u.includes(BROKEN_HOST))).toBe(false);
  });

  test('turning the page: the update is sent again without the broken photos of that page', async () => {
    await e.driver.command('/listings', 'city:Nampa', { user: 'U0USER1', channel: 'C0PAGES' });
    const msg = await waitFor(
      () => e.fake.channelMessages('C0PAGES').find((m) => button(m, /Next/)),
      'the first Nampa page',
    );
    expect(imagesIn(msg.blocks).some((u) => u.includes(BROKEN_HOST))).toBe(false);
    expect(imagesIn(msg.blocks).length).toBeGreaterThan(0);
    await e.driver.click(button(msg, /Next/)!, { channel: 'C0PAGES', messageTs: msg.ts });
    await waitFor(() => (/page 2 of/.test(e.fake.message('C0PAGES', msg.ts)!.text) ? true : undefined), 'page 2');
    const updates = e.fake.callsOf('chat.update').filter((c) => c.args.channel === 'C0PAGES');
    expect(updates.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    const page2 = e.fake.message('C0PAGES', msg.ts)!;
    expect(imagesIn(page2.blocks).some((u) => u.includes(BROKEN_HOST))).toBe(false);
    // Every card of the page whose photo is fine still shows it.
    for (let n = 11; n <= 20; n += 1) {
      if (!JSON.stringify(page2.blocks).includes(`${n} Photo Lane`)) continue;
      expect(photoOf(page2.blocks, `${n} Photo Lane`)).toBe(n % 2 === 0 ? undefined : good(n));
    }
  });

  test('/listing show: the detail card is posted without the broken photo, its link still listed', async () => {
    await e.driver.command('/listing', 'show mls:PHO000002', { user: ADMIN, channel: 'C0SHOW' });
    const msg = await waitFor(() => e.fake.channelMessages('C0SHOW')[0], 'the detail card');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0SHOW');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(photoOf(msg.blocks, '2 Photo Lane')).toBeUndefined();
    expect(imagesIn(msg.blocks)).toEqual([]);
    // The photo's address stays readable as text, and the card's next steps are there.
    expect(JSON.stringify(msg.blocks)).toContain(broken(2));
    expect(button(msg, /Ask about a viewing/)).toBeDefined();
    expect(button(msg, /Edit/)).toBeDefined();
  });

  test('/listing show of a listing whose photo is fine: one post, the photo shown', async () => {
    await e.driver.command('/listing', 'show mls:PHO000003', { user: ADMIN, channel: 'C0SHOWOK' });
    const msg = await waitFor(() => e.fake.channelMessages('C0SHOWOK')[0], 'the detail card');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0SHOWOK');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['ok']);
    expect(photoOf(msg.blocks, '3 Photo Lane')).toBe(good(3));
  });
});
