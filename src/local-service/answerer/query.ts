import { type ListingData, listingPrice, normCity } from '../listings/listing-data';
import type { StoredListing } from '../listings/listings-repo';
import { type Criteria, normalizeAddress, type Vocabulary } from './intent';
import type { Phrases, SortKind } from './phrases';

/** The street of an address without its house number: "3096 Larimer St" -> "larimer st". */
function streetOf(address: string): string {
  return normalizeAddress(address).replace(/^\d+[a-z]?\s+/, '');
}

/** A listing's neighborhood: its Neighborhood column, else the first part of its Location. */
function areaOf(d: ListingData): string | undefined {
  const col = (d.ExtensionColumn ?? []).find((e) => e.Key.toLowerCase() === 'neighborhood')?.value;
  if (col && col.trim() !== '') return col.trim();
  const loc = d.Location?.split(',')[0]?.trim();
  return loc && normCity(loc) !== normCity(d.City) ? loc : undefined;
}

/** Every name a question may use for the chatbot's listings. */
export function vocabulary(all: readonly StoredListing[]): Vocabulary {
  const cities = new Map<string, string>();
  const streets = new Set<string>();
  const areas = new Map<string, string>();
  for (const { data: d } of all) {
    if (d.City && d.City.trim() !== '') cities.set(normCity(d.City), d.City.trim());
    if (d.Address && d.Address.trim() !== '') {
      const full = normalizeAddress(d.Address);
      const street = streetOf(d.Address);
      streets.add(full);
      if (street !== '' && street !== full) {
        streets.add(street);
        // "3096 Larimer" without the suffix names the same house.
        const words = full.split(' ');
        if (words.length > 2) streets.add(words.slice(0, -1).join(' '));
      }
    }
    const area = areaOf(d);
    if (area) areas.set(area.toLowerCase(), area);
  }
  // Sorted once here: every question of a conversation is read against them.
  const longestFirst = [...streets].sort((a, b) => b.length - a.length);
  return { cities: [...cities.values()], streets: longestFirst, areas: [...areas.values()] };
}

/** Whether `street` (normalised) names this listing's address: the whole address or its street. */
export function onStreet(d: ListingData, street: string): boolean {
  if (!d.Address) return false;
  const full = normalizeAddress(d.Address);
  return full === street || streetOf(d.Address) === street || full.startsWith(`${street} `);
}

/** Whether the street criterion names one house (a number and a street), not a whole street. */
export function isHouseAddress(street: string): boolean {
  return /^\d/.test(street);
}

/**
 * Below this a price bound is a monthly rent, from it a purchase price: "under 500k" with no sale
 * type named means homes to buy (a $3,750/month rental is not "under $500,000"), "under 3000" rentals.
 */
const RENT_SCALE = 20_000;

function impliedSaleType(bound: number): 'for_sale' | 'for_rent' {
  return bound < RENT_SCALE ? 'for_rent' : 'for_sale';
}

export function matches(d: ListingData, c: Criteria): boolean {
  const price = listingPrice(d);
  const bound = c.maxPrice ?? c.minPrice;
  if (!c.saleType && bound !== undefined && d.SaleType !== impliedSaleType(bound)) return false;
  if (c.city && normCity(d.City) !== normCity(c.city)) return false;
  if (c.saleType && d.SaleType !== c.saleType) return false;
  if (c.minPrice !== undefined && (price === undefined || price < c.minPrice)) return false;
  if (c.maxPrice !== undefined && (price === undefined || price > c.maxPrice)) return false;
  if (c.minBedrooms !== undefined && d.Bedrooms < c.minBedrooms) return false;
  if (c.minBathrooms !== undefined && d.Bathrooms < c.minBathrooms) return false;
  if (c.minArea !== undefined && d.BuildingArea <= c.minArea) return false;
  if (c.propertyType && d.PropertyType.toLowerCase() !== c.propertyType.toLowerCase()) return false;
  if (c.street && !onStreet(d, c.street)) return false;
  if (c.area && areaOf(d)?.toLowerCase() !== c.area.toLowerCase()) return false;
  // Sold homes are history, not offers: only a question about sold homes shows them.
  if (c.status ? d.Status !== c.status : d.Status === 'Sold') return false;
  return true;
}

export function filter(all: readonly StoredListing[], c: Criteria): StoredListing[] {
  return all.filter((l) => matches(l.data, c));
}

const byNumber = (f: (d: ListingData) => number) => (a: StoredListing, b: StoredListing) =>
  f(a.data) - f(b.data) || a.id - b.id;

export function sortBy(list: readonly StoredListing[], kind: SortKind): StoredListing[] {
  const price = (d: ListingData) => listingPrice(d) ?? Number.MAX_SAFE_INTEGER;
  const order = {
    cheapest: byNumber(price),
    priciest: byNumber((d) => -(listingPrice(d) ?? -1)),
    largest: byNumber((d) => -d.BuildingArea),
    smallest: byNumber((d) => d.BuildingArea),
    newest: byNumber((d) => -d.YearBuilt),
    oldest: byNumber((d) => d.YearBuilt),
    recent: byNumber((d) => d.DaysOnMarket),
  }[kind];
  return [...list].sort(order);
}

/** Criteria dropped, in order, when nothing matches: the least essential first. */
const RELAXATIONS: { keys: (keyof Criteria)[]; label: (p: Phrases) => string }[] = [
  { keys: ['minPrice', 'maxPrice', 'minArea'], label: (p) => p.relaxedPrice },
  { keys: ['minBathrooms'], label: (p) => p.relaxedBaths },
  { keys: ['minBedrooms'], label: (p) => p.relaxedBeds },
  { keys: ['propertyType'], label: (p) => p.relaxedType },
  { keys: ['street'], label: (p) => p.relaxedStreet },
  { keys: ['area'], label: (p) => p.relaxedArea },
  { keys: ['status'], label: (p) => p.relaxedStatus },
  { keys: ['saleType'], label: (p) => p.relaxedSaleType },
];

/** How far a listing is from what was asked: the price gap relative to the bound, then missing rooms. */
function distance(d: ListingData, c: Criteria): number {
  const price = listingPrice(d);
  let gap = 0;
  if (price !== undefined) {
    if (c.maxPrice !== undefined && price > c.maxPrice) gap += (price - c.maxPrice) / Math.max(1, c.maxPrice);
    if (c.minPrice !== undefined && price < c.minPrice) gap += (c.minPrice - price) / Math.max(1, c.minPrice);
  }
  if (c.minBedrooms !== undefined && d.Bedrooms < c.minBedrooms) gap += (c.minBedrooms - d.Bedrooms) * 0.25;
  if (c.minBathrooms !== undefined && d.Bathrooms < c.minBathrooms) gap += (c.minBathrooms - d.Bathrooms) * 0.2;
  if (c.propertyType && d.PropertyType.toLowerCase() !== c.propertyType.toLowerCase()) gap += 0.1;
  return gap;
}

/**
 * The nearest listings when nothing matches: criteria are dropped one group at a time (the city is
 * kept: another city is not "near"), and what is left is ordered by how close it comes.
 */
export function nearest(
  all: readonly StoredListing[],
  c: Criteria,
  p: Phrases,
  limit: number,
): { found: StoredListing[]; relaxed: string[] } {
  // Dropping the price keeps what its size said: the nearest to "under 500k" are homes to buy.
  const bound = c.maxPrice ?? c.minPrice;
  let current: Criteria = c.saleType || bound === undefined ? { ...c } : { ...c, saleType: impliedSaleType(bound) };
  const relaxed: string[] = [];
  for (const step of RELAXATIONS) {
    if (!step.keys.some((k) => current[k] !== undefined)) continue;
    current = { ...current };
    for (const k of step.keys) delete current[k];
    relaxed.push(step.label(p));
    const found = filter(all, current);
    if (found.length > 0) {
      const ordered = [...found].sort((a, b) => distance(a.data, c) - distance(b.data, c) || a.id - b.id);
      return { found: ordered.slice(0, limit), relaxed };
    }
  }
  return { found: [], relaxed };
}
