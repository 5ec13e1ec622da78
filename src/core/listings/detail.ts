/**
 * One listing in full (`/listing show`): its photos as a gallery, and its facts grouped as a buyer
 * reads them: price and size, the home, the neighbourhood, links. No photo URL or coordinate is a
 * fact of its own: the photos are the gallery, and the coordinates become a map link.
 */
import type { Listing } from '../../service/schemas/listings';
import type { Card, CardGroup } from '../surface';
import {
  areaUnit,
  centsFormat,
  formatArea,
  formatBedsBaths,
  formatNumber,
  formatPlace,
  formatPrice,
  isRental,
  listingTitle,
  money,
  statusBadge,
  tourText,
} from './format';

/** A map of the listing's coordinates (a search link any browser or phone opens). */
export function mapLink(l: Listing): string | undefined {
  if (l.latitude === undefined || l.longitude === undefined) return undefined;
  return `https://www.google.com/maps/search/?api=1&query=${l.latitude},${l.longitude}`;
}

const NEIGHBOURHOOD_KEYS = /neighbou?rhood|school|district|transit|walk|commute|\bparks?\b|shops?|amenit/i;

export function listingDetailCard(l: Listing): Card {
  const groups: CardGroup[] = [];
  const group = (title: string, rows: Array<[string, string | undefined]>): void => {
    const fields = rows
      .filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '')
      .map(([label, value]) => ({ label, value }));
    if (fields.length > 0) groups.push({ title, fields });
  };
  const sale = !isRental(l);
  // The service's own extra facts: those about the surroundings go with the neighbourhood.
  const isAround = (key: string): boolean => NEIGHBOURHOOD_KEYS.test(key);
  const around = l.extensionColumns.filter((e) => isAround(e.key));
  const home = l.extensionColumns.filter((e) => !isAround(e.key));
  group('Price and size', [
    ['Price', formatPrice(l)],
    // "Price per sq ft  $353.60": the unit in the label, and cents as money shows them.
    [
      `Price per ${areaUnit(l)}`,
      sale && l.unitAreaPrice !== undefined
        ? `${l.currencySymbol ?? ''}${centsFormat.format(l.unitAreaPrice)}`
        : undefined,
    ],
    ['Estimate', sale ? money(l, l.estimatePrice) : undefined],
    ['Deposit', sale ? undefined : money(l, l.depositFee)],
    ['HOA / month', money(l, l.hoaMonth)],
    ['Beds / baths', formatBedsBaths(l)],
    ['Area', formatArea(l)],
    ['Lot', l.lotArea ? `${formatNumber(l.lotArea)} ${areaUnit(l)}` : undefined],
  ]);
  group('The home', [
    ['Type', l.propertyType],
    ['Space', l.spaceType],
    ['Year built', l.yearBuilt === undefined ? undefined : String(l.yearBuilt)],
    ['Parking', l.parkingSpots === undefined ? undefined : formatNumber(l.parkingSpots)],
    ['Days on market', l.daysOnMarket === undefined ? undefined : formatNumber(l.daysOnMarket)],
    ['Tours', tourText(l.tours)],
    ['MLS', l.mlsNumber],
    ...home.map((e): [string, string] => [e.key, e.value]),
    ['Description', l.description],
  ]);
  group('The neighbourhood', [['City', formatPlace(l)], ...around.map((e): [string, string] => [e.key, e.value])]);
  const links: Array<[string, string | undefined]> = [
    ['Link', l.url],
    ['Map', mapLink(l)],
  ];
  group('Links', links);
  const card: Card = {
    title: listingTitle(l),
    badge: statusBadge(l),
    fields: groups.flatMap((g) => g.fields),
    groups,
    photos: l.images.filter((u) => /^https?:\/\//i.test(u)),
  };
  if (l.url) card.url = l.url;
  const image = l.images[0];
  if (image) card.imageUrl = image;
  return card;
}
