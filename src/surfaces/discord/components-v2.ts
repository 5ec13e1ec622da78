/**
 * Listings as Discord Components V2 (flag IS_COMPONENTS_V2): a container per listing, its section
 * holding the address, price and facts with the first photo as the thumbnail accessory, and its
 * buttons; a listing in full as one container with a media gallery of up to 4 photos and its facts
 * grouped. Built with discord.js's builders. A message holds at most 40 components (nested ones
 * count) and 4,000 characters of text: what does not fit goes on in further messages.
 * Listing text is untrusted: made inert like every other Discord text (render.ts).
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ContainerBuilder,
  MediaGalleryBuilder,
  MediaGalleryItemBuilder,
  MessageFlags,
  SectionBuilder,
  SeparatorBuilder,
  TextDisplayBuilder,
  ThumbnailBuilder,
  type APIMessageTopLevelComponent,
} from 'discord.js';
import type { Button, Card } from '../../core/surface';

export const CV2_LIMITS = { components: 40, text: 4_000, galleryPhotos: 4, buttonsPerRow: 5 } as const;
export const IS_COMPONENTS_V2 = MessageFlags.IsComponentsV2;

/** Resolves a core button to its custom id (render.ts's ButtonIdFn). */
type IdOf = (b: Button) => Promise<string>;
/** Makes untrusted words inert as Discord Markdown (render.ts's). */
type Inert = (text: string) => string;

const STYLE = { primary: ButtonStyle.Primary, danger: ButtonStyle.Danger } as const;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const photo = (url: string | undefined): url is string => url !== undefined && /^https?:\/\//i.test(url);

/** Whether a card is shown as Components V2 (listings, compact or in full); others stay embeds. */
export function isListingCard(card: Card): boolean {
  return card.groups !== undefined || card.subtitle !== undefined || card.body !== undefined;
}

async function buttonsRow(buttons: Button[], idOf: IdOf): Promise<ActionRowBuilder<ButtonBuilder>> {
  const row = new ActionRowBuilder<ButtonBuilder>();
  for (const b of buttons.slice(0, CV2_LIMITS.buttonsPerRow))
    row.addComponents(
      new ButtonBuilder()
        .setCustomId(await idOf(b))
        .setLabel(cut(b.label || 'Open', 80))
        .setStyle(b.style ? STYLE[b.style] : ButtonStyle.Secondary),
    );
  return row;
}

function heading(card: Card, inert: Inert, level: '##' | '###'): string {
  const title = inert(cut(card.title, 200));
  const linked = card.url && photo(card.url) ? `[${title}](${card.url})` : title;
  return `${level} ${linked}${card.badge ? `\n**${inert(card.badge)}**` : ''}`;
}

/** One listing of a list: its section (text, photo as thumbnail) and its buttons. */
export async function listingContainer(card: Card, idOf: IdOf, inert: Inert): Promise<ContainerBuilder> {
  const lines = [heading(card, inert, '###')];
  if (card.subtitle) lines.push(inert(card.subtitle));
  if (card.body) lines.push(`-# ${inert(card.body)}`);
  const mls = card.fields.find((f) => f.label === 'MLS')?.value;
  if (mls) lines.push(`-# MLS ${inert(mls)}`);
  const text = new TextDisplayBuilder().setContent(cut(lines.join('\n'), 1_000));
  const container = new ContainerBuilder();
  if (photo(card.imageUrl))
    container.addSectionComponents(
      new SectionBuilder()
        .addTextDisplayComponents(text)
        .setThumbnailAccessory(
          new ThumbnailBuilder().setURL(card.imageUrl).setDescription(cut(`Photo of ${card.title}`, 1_000)),
        ),
    );
  else container.addTextDisplayComponents(text);
  if (card.actions && card.actions.length > 0) container.addActionRowComponents(await buttonsRow(card.actions, idOf));
  return container;
}

/** One listing in full: title, a gallery of up to 4 photos, then its facts group by group. */
export function detailContainer(card: Card, inert: Inert): ContainerBuilder {
  const container = new ContainerBuilder().addTextDisplayComponents(
    new TextDisplayBuilder().setContent(heading(card, inert, '##')),
  );
  const photos = (card.photos ?? []).filter(photo).slice(0, CV2_LIMITS.galleryPhotos);
  if (photos.length > 0)
    container.addMediaGalleryComponents(
      new MediaGalleryBuilder().addItems(
        photos.map((url, i) =>
          new MediaGalleryItemBuilder().setURL(url).setDescription(cut(`Photo ${i + 1} of ${card.title}`, 1_000)),
        ),
      ),
    );
  for (const group of card.groups ?? []) {
    container.addSeparatorComponents(new SeparatorBuilder());
    const rows = group.fields.map((f) =>
      /^https?:\/\/\S+$/i.test(f.value)
        ? `[${inert(f.label)}](${f.value})`
        : `**${inert(f.label)}:** ${inert(f.value)}`,
    );
    container.addTextDisplayComponents(
      new TextDisplayBuilder().setContent(cut(`**${inert(group.title)}**\n${rows.join('\n')}`, 2_000)),
    );
  }
  return container;
}

/** How many components a top-level component counts for (itself and everything nested). */
export function componentCount(c: unknown): number {
  if (typeof c !== 'object' || c === null) return 0;
  const o = c as { components?: unknown[]; accessory?: unknown };
  return 1 + (o.components ?? []).reduce<number>((n, x) => n + componentCount(x), 0) + componentCount(o.accessory);
}

/** The characters of text a component shows (its text displays, nested ones too). */
export function textLength(c: unknown): number {
  if (typeof c !== 'object' || c === null) return 0;
  const o = c as { type?: number; content?: string; components?: unknown[]; accessory?: unknown };
  const own = o.type === 10 ? (o.content?.length ?? 0) : 0;
  return own + (o.components ?? []).reduce<number>((n, x) => n + textLength(x), 0) + textLength(o.accessory);
}

/**
 * Top-level components into messages within the limits, in order: `head` (the text) and `tail` (the
 * message's own buttons, e.g. a list's paging) in the first message, the one a button updates; the
 * items that do not fit there go on in further messages.
 */
export function packMessages(
  head: APIMessageTopLevelComponent[],
  items: APIMessageTopLevelComponent[],
  tail: APIMessageTopLevelComponent[],
): APIMessageTopLevelComponent[][] {
  const size = (cs: APIMessageTopLevelComponent[]) => cs.reduce((n, c) => n + componentCount(c), 0);
  const chars = (cs: APIMessageTopLevelComponent[]) => cs.reduce((n, c) => n + textLength(c), 0);
  const fits = (cs: APIMessageTopLevelComponent[]) => size(cs) <= CV2_LIMITS.components && chars(cs) <= CV2_LIMITS.text;
  const first = [...head];
  const rest: APIMessageTopLevelComponent[][] = [];
  for (const item of items) {
    if (rest.length === 0 && fits([...first, item, ...tail])) {
      first.push(item);
      continue;
    }
    const last = rest[rest.length - 1];
    if (last && fits([...last, item])) last.push(item);
    else rest.push([item]);
  }
  first.push(...tail);
  return [first, ...rest].filter((m) => m.length > 0);
}
