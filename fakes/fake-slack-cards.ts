/**
 * The fake Slack's checks of card and carousel blocks, by the Block Kit reference and
 * node-slack-sdk's CardBlock / CarouselBlock: a carousel holds 1 to 10 `card` elements; a card has
 * at least one of hero_image, title, actions or body; title and subtitle at most 150 characters,
 * body at most 200, each a text object; hero_image and icon are image elements (http(s) image_url,
 * alt_text); actions are buttons (text at most 75 characters, action_id unique in the message).
 */
type Args = Record<string, unknown>;

export const CARD_REFERENCE = { title: 150, subtitle: 150, body: 200, cardsPerCarousel: 10, buttonText: 75 };

function textObject(v: unknown, max: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const t = v as { type?: unknown; text?: unknown };
  return (
    (t.type === 'mrkdwn' || t.type === 'plain_text') &&
    typeof t.text === 'string' &&
    t.text.length > 0 &&
    t.text.length <= max
  );
}

function imageElement(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const i = v as { type?: unknown; image_url?: unknown; alt_text?: unknown };
  return (
    i.type === 'image' &&
    typeof i.image_url === 'string' &&
    /^https?:\/\//.test(i.image_url) &&
    i.image_url.length <= 3000 &&
    typeof i.alt_text === 'string' &&
    i.alt_text.length <= 2000
  );
}

/** Why a card block is refused, or undefined; its buttons' action ids join `actionIds`. */
export function cardProblem(card: Args, actionIds: Set<string>): string | undefined {
  if (card.type !== 'card') return 'a carousel element is not a card';
  if (
    card.hero_image === undefined &&
    card.title === undefined &&
    card.actions === undefined &&
    card.body === undefined
  )
    return 'a card needs hero_image, title, actions or body';
  if (card.title !== undefined && !textObject(card.title, CARD_REFERENCE.title)) return 'card title';
  if (card.subtitle !== undefined && !textObject(card.subtitle, CARD_REFERENCE.subtitle)) return 'card subtitle';
  if (card.body !== undefined && !textObject(card.body, CARD_REFERENCE.body)) return 'card body';
  if (card.hero_image !== undefined && !imageElement(card.hero_image)) return 'card hero_image';
  if (card.icon !== undefined && !imageElement(card.icon)) return 'card icon';
  if (card.actions !== undefined) {
    if (!Array.isArray(card.actions)) return 'card actions';
    for (const el of card.actions as Args[]) {
      if (el?.type !== 'button' || !textObject(el.text, CARD_REFERENCE.buttonText)) return 'card button';
      const id = String(el.action_id ?? '');
      if (id && actionIds.has(id)) return 'duplicate action_id';
      actionIds.add(id);
    }
  }
  return undefined;
}

/** Why a carousel block is refused, or undefined. */
export function carouselProblem(block: Args, actionIds: Set<string>): string | undefined {
  const els = block.elements;
  if (!Array.isArray(els) || els.length < 1 || els.length > CARD_REFERENCE.cardsPerCarousel)
    return 'a carousel holds 1 to 10 cards';
  for (const card of els as Args[]) {
    const p = cardProblem(card, actionIds);
    if (p) return p;
  }
  return undefined;
}
