/**
 * Listings as Slack's card and carousel blocks (Block Kit reference: a card's title and subtitle
 * hold 150 characters, its body 200; a carousel holds 1 to 10 cards and scrolls sideways). A card
 * shows its listing's first photo, address, price / beds / baths / status, city and the start of
 * its description, and its buttons. Listing text is untrusted: escaped like every other renderer's.
 */
import type { types } from '@slack/bolt';
import type { Card } from '../../core/surface';
import { escapeMrkdwn } from './mrkdwn';
import { linkableUrl, slackLink } from './safe-text';

export const CARD_LIMITS = { title: 150, subtitle: 150, body: 200, cardsPerCarousel: 10, imageUrl: 3_000 } as const;

type Button = types.Button;

/** A compact card (subtitle, body or buttons of its own): one a carousel can show. */
export function isCompact(card: Card): boolean {
  return card.subtitle !== undefined || card.body !== undefined || (card.actions?.length ?? 0) > 0;
}

/** Escaped text within `max`, never cut inside an entity (`&amp;`) it made. */
function escapedWithin(text: string, max: number): string {
  const escaped = escapeMrkdwn(text.replace(/\s+/g, ' ').trim());
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max - 1).replace(/&[a-z]{0,4}$/, '')}…`;
}

function mrkdwn(text: string, max: number): types.MrkdwnElement {
  return { type: 'mrkdwn', text: escapedWithin(text, max), verbatim: true };
}

/** A photo Slack may fetch: http(s) and within its URL limit. */
export function showablePhoto(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\//i.test(url) && url.length <= CARD_LIMITS.imageUrl;
}

export function cardBlock(card: Card, buttons: Button[]): types.CardBlock {
  const block: types.CardBlock = { type: 'card', title: mrkdwn(card.title, CARD_LIMITS.title) };
  if (showablePhoto(card.imageUrl))
    block.hero_image = {
      type: 'image',
      image_url: card.imageUrl,
      alt_text: `Photo of ${card.title.replace(/[<>]/g, '')}`.slice(0, 2_000),
    };
  if (card.subtitle) block.subtitle = mrkdwn(card.subtitle, CARD_LIMITS.subtitle);
  if (card.body) block.body = mrkdwn(card.body, CARD_LIMITS.body);
  if (buttons.length > 0) block.actions = buttons;
  return block;
}

/** Cards as carousels of at most 10 (a page of listings is one). */
export function carousels(cards: types.CardBlock[]): types.CarouselBlock[] {
  const out: types.CarouselBlock[] = [];
  for (let i = 0; i < cards.length; i += CARD_LIMITS.cardsPerCarousel)
    out.push({ type: 'carousel', elements: cards.slice(i, i + CARD_LIMITS.cardsPerCarousel) });
  return out;
}

/** Slack's section limits a detailed card keeps to. */
const SECTION = { text: 3_000, fields: 10, fieldText: 2_000 } as const;
/** The gallery: the first photos, each an image block (Slack has no gallery block). */
const GALLERY_PHOTOS = 4;

function clipped(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).replace(/&[a-z]{0,4}$/, '')}…`;
}

/**
 * One listing in full: its title (linked) and status, a gallery of its first photos, then a section
 * per group of facts. A fact that is a link shows as a link named by its label.
 */
export function detailBlocks(card: Card): Array<Record<string, unknown>> {
  const linked = `*${slackLink(card.url, card.title)}*`;
  const head = card.badge ? `${linked}   \`${escapeMrkdwn(card.badge)}\`` : linked;
  const out: Array<Record<string, unknown>> = [
    { type: 'section', text: { type: 'mrkdwn', text: clipped(head, SECTION.text) } },
  ];
  for (const url of (card.photos ?? []).filter(showablePhoto).slice(0, GALLERY_PHOTOS))
    out.push({
      type: 'image',
      image_url: url,
      alt_text: `Photo of ${card.title.replace(/[<>]/g, '')}`.slice(0, 2_000),
    });
  for (const group of card.groups ?? []) {
    const fields = group.fields.map((f) => ({
      type: 'mrkdwn',
      text: clipped(
        `*${escapeMrkdwn(f.label)}*\n${linkableUrl(f.value) ? slackLink(f.value, f.label) : escapeMrkdwn(f.value)}`,
        SECTION.fieldText,
      ),
    }));
    for (let i = 0; i < fields.length; i += SECTION.fields) {
      const block: Record<string, unknown> = { type: 'section', fields: fields.slice(i, i + SECTION.fields) };
      if (i === 0) block.text = { type: 'mrkdwn', text: `*${escapeMrkdwn(group.title)}*` };
      out.push(block);
    }
  }
  return out;
}
