/** Listings for reading: a Card per listing (Slack blocks, Discord embed, shell table row). */
import type { Listing } from '../../service/schemas/listings';
import type { Card } from '../surface';

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

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

/**
 * "1,850 sq ft". The list's `Area` member holds the unit on some services and a figure with a unit
 * on others: a figure already in it is shown as is.
 */
export function formatArea(l: Listing): string | undefined {
  const area = l.area;
  const unit = area ? UNIT_SHORT[area.toLowerCase()] : undefined;
  if (l.buildingArea !== undefined) return `${formatNumber(l.buildingArea)} ${unit ?? (area && !/\d/.test(area) ? area : 'sq ft')}`;
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

export function listingCard(l: Listing, opts: { details?: boolean } = {}): Card {
  const fields: Card['fields'] = [];
  const add = (label: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') fields.push({ label, value });
  };
  add('Price', formatPrice(l));
  add('Beds / baths', formatBedsBaths(l));
  add('Area', formatArea(l));
  add('City', formatPlace(l));
  add('Status', l.status);
  add('MLS', l.mlsNumber);
  if (opts.details) {
    add('Type', [l.propertyType, isRental(l) ? 'for rent' : 'for sale'].filter(Boolean).join(', '));
    add('Year built', l.yearBuilt === undefined ? undefined : String(l.yearBuilt));
    add('Parking', l.parkingSpots === undefined ? undefined : formatNumber(l.parkingSpots));
    add('Days on market', l.daysOnMarket === undefined ? undefined : formatNumber(l.daysOnMarket));
    if (isRental(l)) add('Deposit', l.depositFee === undefined ? undefined : `${l.currencySymbol ?? ''}${formatNumber(l.depositFee)}`);
    add('HOA / month', l.hoaMonth === undefined ? undefined : `${l.currencySymbol ?? ''}${formatNumber(l.hoaMonth)}`);
    add('Tours', l.tours);
    for (const e of l.extensionColumns) add(e.key, e.value);
    add('Description', l.description);
    add('Link', l.url);
  }
  const card: Card = { title: listingTitle(l), fields, footer: `ID ${l.id}${l.propertyType ? ` · ${l.propertyType}` : ''}` };
  if (l.url) card.url = l.url;
  const image = l.images[0];
  if (image) card.imageUrl = image;
  return card;
}
