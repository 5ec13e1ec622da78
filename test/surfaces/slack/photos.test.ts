/**
 * Listing photos on Slack: each in an image block under its card (never a section accessory, which
 * Slack would show broken), a full page within the 50-block limit with its buttons kept, and the
 * Web API client's resend against the fake Slack, also when a refusal names only the first of
 * several failing photos.
 */
import type { Card } from '../../../src/core/surface';
import { CARDS_PER_PAGE } from '../../../src/core/listings/find';
import { renderMessage, SLACK_LIMITS } from '../../../src/surfaces/slack/blocks';
import { forResponseUrl } from '../../../src/surfaces/slack/image-retry';
import { createWebClient } from '../../../src/surfaces/slack/web';
import { FakeSlack } from '../../../fakes/fake-slack';
import { silentLog } from '../../support/silent-log';
import { useStarted } from '../../support/server-setup';

const BROKEN_HOST = 'photos.unreachable.example';

/** The largest card a listing makes: badge, link, a footer, `fields` fields, a photo. */
function bigCard(n: number, fields: number, image = `https://images.example.com/${n}.jpg`): Card {
  return {
    title: `${n} Long Street, Springfield`,
    url: `https://homes.example.com/${n}`,
    badge: 'For sale',
    footer: 'Single family',
    imageUrl: image,
    fields: Array.from({ length: fields }, (_, i) => ({ label: `Field ${i}`, value: `value ${i}` })),
  };
}

const PAGE_BUTTONS = [
  { action: 'listings.page', label: '◀ Prev', value: '1' },
  { action: 'listings.page', label: 'Next ▶', value: '3' },
];

describe('Slack listing photos', () => {
  test('a full page: one image block per card, named by its address, no accessory, within 50 blocks', () => {
    const cards = Array.from({ length: CARDS_PER_PAGE }, (_, i) => bigCard(i + 1, SLACK_LIMITS.fieldsPerSection));
    const { blocks } = renderMessage({
      text: 'Listings in Springfield: page 2 of 3 (24 listings)',
      cards,
      notice: 'Prices as listed',
      buttons: PAGE_BUTTONS,
    });
    expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerMessage);
    const images = blocks.filter((b) => b.type === 'image');
    expect(images.map((b) => b.image_url)).toEqual(cards.map((c) => c.imageUrl));
    for (const [i, img] of images.entries()) expect(img.alt_text).toBe(`Photo of ${cards[i]!.title}`);
    expect(blocks.filter((b) => b.accessory !== undefined)).toEqual([]);
    // Each photo comes after its own card's text and before the next card.
    blocks.forEach((b, i) => {
      if (b.type !== 'image') return;
      expect(blocks[i + 1]?.type ?? 'end').toMatch(/^(divider|context|actions|end)$/);
    });
    // The page's buttons survive every photo.
    expect(blocks.at(-1)?.type).toBe('actions');
  });

  test('the detailed card: every field section, then the photo, then its buttons', () => {
    const { blocks } = renderMessage({
      text: '',
      cards: [bigCard(7, 40)],
      buttons: [{ action: 'listing.edit', label: 'Edit', value: 'x' }],
    });
    expect(blocks.map((b) => b.type)).toEqual([
      'section',
      'section',
      'section',
      'section',
      'context',
      'image',
      'actions',
    ]);
  });

  test('a photo Slack could never take (not http(s), too long) is not put in a block', () => {
    for (const url of ['ftp://images.example.com/a.jpg', `https://images.example.com/${'a'.repeat(3000)}.jpg`]) {
      const { blocks } = renderMessage({ text: '', cards: [bigCard(1, 2, url)] });
      expect(blocks.filter((b) => b.type === 'image')).toEqual([]);
    }
  });

  test('a response_url body carries no photo (its refusal would name none)', () => {
    const { blocks } = renderMessage({ text: '', cards: [bigCard(1, 2), bigCard(2, 2)] });
    const body = forResponseUrl(blocks);
    expect(JSON.stringify(body)).not.toContain('image_url');
    expect(JSON.stringify(body)).toContain('1 Long Street');
  });

  describe.each(['all', 'first'] as const)('the client against a Slack naming %s failing image(s)', (names) => {
    const fake = useStarted(() =>
      new FakeSlack({ unfetchableImageHosts: [BROKEN_HOST], imageRefusalNames: names }).start(),
    );

    test('the message is posted; no broken icon; the good photos kept where the refusal allowed', async () => {
      const client = createWebClient(fake.botToken, fake.apiUrl, silentLog);
      const cards = [1, 2, 3].map((n) =>
        bigCard(n, 2, n === 1 ? `https://images.example.com/${n}.jpg` : `https://${BROKEN_HOST}/${n}.jpg`),
      );
      const { text, blocks } = renderMessage({ text: 'Three homes', cards });
      await client.chat.postMessage({ channel: 'C0PHOTO', text, blocks: blocks as never });
      const posted = fake.channelMessages('C0PHOTO');
      expect(posted).toHaveLength(1);
      const shown = JSON.stringify(posted[0]!.blocks);
      expect(shown).not.toContain(BROKEN_HOST);
      for (const n of [1, 2, 3]) expect(shown).toContain(`${n} Long Street`);
      const outcomes = fake.callsOf('chat.postMessage').map((c) => c.response.error ?? 'ok');
      if (names === 'all') {
        // Both failing photos named at once: one resend, the good photo kept.
        expect(outcomes).toEqual(['invalid_blocks', 'ok']);
        expect(shown).toContain('https://images.example.com/1.jpg');
      } else {
        // Named one at a time: after the second refusal the message goes without any photo.
        expect(outcomes).toEqual(['invalid_blocks', 'invalid_blocks', 'ok']);
        expect(shown).not.toContain('image_url');
      }
      expect(fake.brokenImagesShown).toEqual([]);
    });

    test('the fake shows an unfetchable accessory as a broken icon, as Slack does, and accepts it', async () => {
      const client = createWebClient(fake.botToken, fake.apiUrl, silentLog);
      const url = `https://${BROKEN_HOST}/thumb.jpg`;
      const res = await client.chat.postMessage({
        channel: 'C0THUMB',
        text: 'thumb',
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: 'x' },
            accessory: { type: 'image', image_url: url, alt_text: 'x' },
          },
        ],
      });
      expect(fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0THUMB')).toHaveLength(1);
      expect(fake.brokenImagesShown).toEqual([{ channel: 'C0THUMB', ts: res.ts, url }]);
    });
  });
});
