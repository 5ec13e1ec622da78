/**
 * One listing photo Slack cannot download never breaks a list or a card, and never shows as a broken
 * picture. As Slack does, the fake refuses a message whose image block (or a carousel card's hero
 * image) it cannot download (`invalid_blocks` / "downloading image failed
 * [json-pointer:/blocks/N/image_url]") and shows an
 * unfetchable section accessory as a broken icon (`brokenImagesShown`). The bridge puts photos in
 * image blocks only and sends a refused message again without the failing photos, the others kept.
 * Covered for a list (chat.postMessage), both pages of a longer list (post, then chat.update), a
 * listing's detail card (/listing show) and the ephemeral delete confirmation (chat.postEphemeral).
 */
import { ADMIN, startSlackE2E } from '../../support/slack-e2e';
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { editedTo } from '../../support/slack-flows';
import { useStarted } from '../../support/server-setup';

const BROKEN_HOST = 'photos.unreachable.example';
const broken = (n: number) => `https://${BROKEN_HOST}/lane/${n}.jpg`;
const good = (n: number) => `https://images.example.com/lane/${n}.jpg`;

interface Block {
  type: string;
  text?: { text: string };
  accessory?: { type: string };
  image_url?: string;
  alt_text?: string;
}

/** The message's cards: its blocks cut at the dividers between them. */
function cards(blocks: unknown[]): Block[][] {
  const out: Block[][] = [[]];
  for (const b of blocks as Block[]) {
    if (b.type === 'divider') out.push([]);
    else out[out.length - 1]!.push(b);
  }
  return out;
}

interface CardEl {
  type: 'card';
  title: { text: string };
  hero_image?: { image_url: string; alt_text: string };
}

/** The photo of the card whose title names `address` (a carousel card's hero image, or its image block), if any. */
function photoOf(blocks: unknown[], address: string): string | undefined {
  const carousel = (blocks as Array<Block & { elements?: CardEl[] }>).find((b) => b.type === 'carousel');
  if (carousel) {
    const el = carousel.elements!.find((c) => c.title.text === address);
    if (!el) throw new Error(`no card for ${address} in ${JSON.stringify(blocks)}`);
    if (el.hero_image) expect(el.hero_image.alt_text).toContain(address);
    return el.hero_image?.image_url;
  }
  const card = cards(blocks).find((c) => c.some((b) => b.type === 'section' && b.text?.text.includes(address)));
  if (!card) throw new Error(`no card for ${address} in ${JSON.stringify(blocks)}`);
  const images = card.filter((b) => b.type === 'image');
  expect(images.length).toBeLessThanOrEqual(1);
  // The photo is described for screen readers by the listing's address.
  if (images[0]) expect(images[0].alt_text).toContain(address);
  return images[0]?.image_url;
}

/** Every image URL the blocks name (image blocks, accessories, context images). */
function imagesIn(blocks: unknown[]): string[] {
  return [...JSON.stringify(blocks).matchAll(/"image_url":"([^"]+)"/g)].map((m) => m[1]!);
}

/** No photo sits in a section's accessory, where Slack would show an unfetchable one broken. */
function noAccessoryPhotos(blocks: unknown[]): void {
  expect((blocks as Block[]).filter((b) => b.accessory?.type === 'image')).toEqual([]);
}

/** The image block each "downloading image failed" pointer of a refusal names, in the blocks sent. */
function refusedImages(call: { args: Record<string, unknown>; response: Record<string, unknown> }): string[] {
  const sent = call.args.blocks as Block[];
  const errors = (call.response.errors as string[] | undefined) ?? [];
  return errors.map((m) => {
    const hero =
      /downloading image failed \[json-pointer:\/blocks\/(\d+)\/elements\/(\d+)\/hero_image\/image_url\]/.exec(m);
    if (hero) {
      const carousel = sent[Number(hero[1])] as Block & { elements: CardEl[] };
      expect(carousel.type).toBe('carousel');
      return carousel.elements[Number(hero[2])]!.hero_image!.image_url;
    }
    const at = /downloading image failed \[json-pointer:\/blocks\/(\d+)\/image_url\]/.exec(m);
    if (!at) throw new Error(`not an image block refusal: ${m}`);
    const block = sent[Number(at[1])]!;
    expect(block.type).toBe('image');
    return block.image_url!;
  });
}

describe('Slack e2e: a photo Slack cannot download', () => {
  const e = useStarted(async () => {
    const started = await startSlackE2E({
      fragmentDelayMs: 2,
      fake: { unfetchableImageHosts: [BROKEN_HOST], notInChannels: ['G0PRIVATE'] },
    });
    const chatbot = started.service.chatbotId;
    const base = started.service.context.listings.search(chatbot, { city: 'Austin' }, 1)[0]!.data;
    const add = (city: string, n: number, image: string) =>
      started.service.context.listings.create(chatbot, {
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
    // Nampa: fifteen listings over two pages of ten, every other photo unfetchable.
    for (let n = 11; n <= 25; n += 1) add('Nampa', n, n % 2 === 0 ? broken(n) : good(n));
    return started;
  });

  test('a list is still posted, once, without the broken photo; the other cards keep theirs', async () => {
    await e.driver.command('/listings', 'city:Caldwell', { user: 'U0USER1', channel: 'C0LIST' });
    const msg = await waitFor(() => e.fake.channelMessages('C0LIST')[0], 'the Caldwell list');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0LIST');
    // Refused once for the photo's image block (and only for it), then accepted.
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(refusedImages(calls[0]!)).toEqual([broken(2)]);
    // The refused message had every photo in an image block, none in an accessory.
    expect(imagesIn(calls[0]!.args.blocks as unknown[])).toEqual([good(1), broken(2), good(3)]);
    expect(e.fake.channelMessages('C0LIST')).toHaveLength(1);
    expect(photoOf(msg.blocks, '1 Photo Lane')).toBe(good(1));
    expect(photoOf(msg.blocks, '2 Photo Lane')).toBeUndefined();
    expect(photoOf(msg.blocks, '3 Photo Lane')).toBe(good(3));
    expect(imagesIn(msg.blocks)).toEqual([good(1), good(3)]);
    noAccessoryPhotos(msg.blocks);
    expect(e.fake.brokenImagesShown).toEqual([]);
  });

  test('turning the page: each page is sent again without its broken photos only', async () => {
    await e.driver.command('/listings', 'city:Nampa', { user: 'U0USER1', channel: 'C0PAGES' });
    const msg = await waitFor(
      () => e.fake.channelMessages('C0PAGES').find((m) => button(m, /Next/)),
      'the first Nampa page',
    );
    const posts = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0PAGES');
    expect(posts.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    const onPage = (blocks: unknown[]) =>
      Array.from({ length: 15 }, (_, i) => 11 + i).filter((n) => JSON.stringify(blocks).includes(`"${n} Photo Lane`));
    const page1 = onPage(msg.blocks);
    expect(page1.length).toBeGreaterThan(1);
    // The page's table names all of them; the cards beside it (the photos) are the first three's.
    const carded1 = page1.slice(0, 3);
    expect(refusedImages(posts[0]!)).toEqual(carded1.filter((n) => n % 2 === 0).map(broken));
    for (const n of carded1) expect(photoOf(msg.blocks, `${n} Photo Lane`)).toBe(n % 2 === 0 ? undefined : good(n));
    noAccessoryPhotos(msg.blocks);

    await e.driver.click(button(msg, /Next/)!, { channel: 'C0PAGES', messageTs: msg.ts });
    expect((await editedTo(e.fake, 'C0PAGES', msg.ts, /page 2/)).text).toMatch(/page 2 of \d+/);
    const updates = e.fake.callsOf('chat.update').filter((c) => c.args.channel === 'C0PAGES');
    expect(updates.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    const page2 = e.fake.message('C0PAGES', msg.ts)!;
    const shown = onPage(page2.blocks);
    // The rest of the fifteen, with a broken photo among them.
    expect(shown).toEqual(Array.from({ length: 15 }, (_, i) => 11 + i).filter((n) => !page1.includes(n)));
    const carded2 = shown.slice(0, 3);
    expect(carded2.some((n) => n % 2 === 0)).toBe(true);
    expect(refusedImages(updates[0]!)).toEqual(carded2.filter((n) => n % 2 === 0).map(broken));
    // Every card of the page whose photo is fine still shows it.
    for (const n of carded2) expect(photoOf(page2.blocks, `${n} Photo Lane`)).toBe(n % 2 === 0 ? undefined : good(n));
    noAccessoryPhotos(page2.blocks);
    expect(e.fake.brokenImagesShown).toEqual([]);
  });

  test('/listing show: the detail card is posted without the broken photo', async () => {
    await e.driver.command('/listing', 'show mls:PHO000002', { user: ADMIN, channel: 'C0SHOW' });
    const msg = await waitFor(() => e.fake.channelMessages('C0SHOW')[0], 'the detail card');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0SHOW');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(refusedImages(calls[0]!)).toEqual([broken(2)]);
    expect(photoOf(msg.blocks, '2 Photo Lane')).toBeUndefined();
    expect(imagesIn(msg.blocks)).toEqual([]);
    // The card's facts and next steps are there (a photo is never a fact: no URL shown).
    expect(JSON.stringify(msg.blocks)).toContain('Price and size');
    expect(JSON.stringify(msg.blocks)).not.toContain(broken(2));
    expect(button(msg, /Ask about a viewing/)).toBeDefined();
    expect(button(msg, /Edit/)).toBeDefined();
    expect(e.fake.brokenImagesShown).toEqual([]);
  });

  test('/listing show of a listing whose photo is fine: one post, the photo in an image block', async () => {
    await e.driver.command('/listing', 'show mls:PHO000003', { user: ADMIN, channel: 'C0SHOWOK' });
    const msg = await waitFor(() => e.fake.channelMessages('C0SHOWOK')[0], 'the detail card');
    const calls = e.fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0SHOWOK');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['ok']);
    expect(photoOf(msg.blocks, '3 Photo Lane')).toBe(good(3));
    noAccessoryPhotos(msg.blocks);
    expect(msg.blocks.length).toBeLessThanOrEqual(50);
  });

  test('/listing delete: the ephemeral confirmation card is sent again without the broken photo', async () => {
    await e.driver.command('/listing', 'delete mls:PHO000002', { user: ADMIN, channel: 'C0DEL' });
    const shown = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0DEL'), 'the confirmation');
    const calls = e.fake.callsOf('chat.postEphemeral').filter((c) => c.args.channel === 'C0DEL');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(refusedImages(calls[0]!)).toEqual([broken(2)]);
    expect(imagesIn(shown.blocks)).toEqual([]);
    expect(JSON.stringify(shown.blocks)).toContain('2 Photo Lane');
    expect(JSON.stringify(shown.blocks)).toContain('"text":"Delete"');
    expect(e.fake.brokenImagesShown).toEqual([]);
  });

  test('where the bot is not in the channel, the confirmation reaches the admin by response_url, photo-free', async () => {
    await e.driver.command('/listing', 'delete mls:PHO000001', {
      user: ADMIN,
      channel: 'G0PRIVATE',
      responseUrl: e.fake.responseUrl('private-delete'),
    });
    const sent = await waitFor(() => e.fake.responses.find((r) => r.id === 'private-delete'), 'the confirmation');
    // chat.postEphemeral was refused for the channel, not for a photo.
    const calls = e.fake.callsOf('chat.postEphemeral').filter((c) => c.args.channel === 'G0PRIVATE');
    expect(calls.map((c) => c.response.error ?? 'ok')).toEqual(['channel_not_found']);
    // A response_url refusal names no image to leave out: the body carries none (the card's own
    // photo is fine, yet is not risked), and nothing was refused or shown broken.
    const blocks = (sent.body.blocks as unknown[]) ?? [];
    expect(imagesIn(blocks)).toEqual([]);
    expect(JSON.stringify(blocks)).toContain('1 Photo Lane');
    expect(JSON.stringify(blocks)).toContain('"text":"Delete"');
    expect(e.fake.refusedResponses).toEqual([]);
    expect(e.fake.brokenImagesShown).toEqual([]);
  });
});
