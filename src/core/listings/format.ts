/** Listings for reading: a Card per listing (Slack blocks, Discord embed, shell table row). */
import type { Listing } from '../../service/schemas/listings';
import type { Button, Card } from '../surface';

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
export const centsFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

export function isRental(l: Listing): boolean {
  return /rent/i.test(l.saleType ?? '');
}

/** "$450,000", "$2,100 / month" for rentals; undefined when the listing has no price. */
export function formatPrice(l: Listing): string | undefined {
  const rental = isRental(l);
  const amount = rental ? (l.rentPrice ?? l.price) : (l.price ?? l.salePrice ?? l.estimatePrice);
  const symbol = l.currencySymbol ?? '';
  if (amount === undefined) return l.priceText ? `${symbol}${l.priceText}` : undefined;
  return `${symbol}${formatNumber(amount)}${rental ? ' / month' : ''}`;
}

/** "3 bd / 2.5 ba". */
export function formatBedsBaths(l: Listing): string | undefined {
  if (l.bedrooms === undefined && l.bathrooms === undefined) return undefined;
  const bd = l.bedrooms === undefined ? '?' : formatNumber(l.bedrooms);
  const ba = l.bathrooms === undefined ? '?' : formatNumber(l.bathrooms);
  return `${bd} bd / ${ba} ba`;
}

const UNIT_SHORT: Record<string, string> = { 'square feet': 'sq ft', 'square meters': 'm²' };

/** The listing's area unit, short: "sq ft" unless it says otherwise. */
export function areaUnit(l: Listing): string {
  const area = l.area;
  return (area ? UNIT_SHORT[area.toLowerCase()] : undefined) ?? (area && !/\d/.test(area) ? area : 'sq ft');
}

/**
 * "1,850 sq ft". The list's `Area` member holds the unit on some services and a figure with a unit
 * on others: a figure already in it is shown as is.
 */
export function formatArea(l: Listing): string | undefined {
  const area = l.area;
  const unit = area ? UNIT_SHORT[area.toLowerCase()] : undefined;
  if (l.buildingArea !== undefined)
    return `${formatNumber(l.buildingArea)} ${unit ?? (area && !/\d/.test(area) ? area : 'sq ft')}`;
  if (area && /\d/.test(area)) return area;
  return undefined;
}

export function formatPlace(l: Listing): string | undefined {
  const parts = [l.city, [l.state, l.zip].filter(Boolean).join(' ')].filter((p) => p !== undefined && p !== '');
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export function listingTitle(l: Listing): string {
  return l.address ?? (l.mlsNumber ? `MLS ${l.mlsNumber}` : undefined) ?? l.url ?? `Listing ${l.id}`;
}

/** Status and sale type in words: "For sale", "For rent", "Coming soon", "Sold". */
export function statusBadge(l: Listing): string {
  const status = (l.status ?? '').replace(/[\s_-]/g, '').toLowerCase();
  if (status === 'sold') return 'Sold';
  if (status === 'preonmarket' || status === 'comingsoon') return 'Coming soon';
  return isRental(l) ? 'For rent' : 'For sale';
}

/** Wire values an agent never needs to see, in words. */
const TOUR_WORDS: Record<string, string> = { openhouse: 'Open house', '3d': '3D tour' };

export function tourText(tours: string | undefined): string | undefined {
  return tours === undefined ? undefined : (TOUR_WORDS[tours.replace(/\s/g, '').toLowerCase()] ?? tours);
}

export const money = (l: Listing, n: number | undefined, suffix = ''): string | undefined =>
  n === undefined ? undefined : `${l.currencySymbol ?? ''}${formatNumber(n)}${suffix}`;

/**
 * A listing as a compact card (lists, answers): the badge says its status in words; the subtitle
 * the figures someone scanning needs, the body its city and the start of its description. The
 * detailed card (`/listing show`) is detail.ts's.
 */
export function listingCard(l: Listing, opts: { actions?: Button[] } = {}): Card {
  const fields: Card['fields'] = [];
  const add = (label: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') fields.push({ label, value });
  };
  add('Price', formatPrice(l));
  add('Beds / baths', formatBedsBaths(l));
  add('Area', formatArea(l));
  add('City', formatPlace(l));
  add('MLS', l.mlsNumber);
  const card: Card = { title: listingTitle(l), fields, badge: statusBadge(l), subtitle: cardSubtitle(l) };
  const body = cardBody(l);
  if (body) card.body = body;
  if (opts.actions && opts.actions.length > 0) card.actions = opts.actions;
  // A list card names the type under the figures.
  if (l.propertyType) card.footer = l.propertyType;
  if (l.url) card.url = l.url;
  const image = l.images[0];
  if (image) card.imageUrl = image;
  return card;
}

/** A compact card's body: the city, then the description's first words (whole words, within `max`). */
export function cardBody(l: Listing, max = 160): string | undefined {
  const place = formatPlace(l);
  const words = (l.description ?? '').replace(/\s+/g, ' ').trim();
  const lead = place ? `${place}` : '';
  if (!words) return lead || undefined;
  const room = max - lead.length - 3;
  let excerpt = words;
  if (words.length > room) {
    const cut = words.slice(0, Math.max(0, room - 1));
    const at = cut.lastIndexOf(' ');
    excerpt = `${(at > room / 2 ? cut.slice(0, at) : cut).replace(/[\s,.;:!-]+$/, '')}…`;
  }
  return lead ? `${lead} — ${excerpt}` : excerpt;
}

/** A compact card's subtitle: "$450,000 · 3 bd / 2 ba · For sale". */
export function cardSubtitle(l: Listing): string {
  return [formatPrice(l), formatBedsBaths(l), statusBadge(l)].filter((p) => p !== undefined).join(' · ');
}
