import { type ListingData, listingPrice } from '../listings/listing-data';
import type { StoredListing } from '../listings/listings-repo';
import type { Criteria } from './intent';
import type { Phrases } from './phrases';

/** 1234567.5 -> "1,234,567.5"; locale-independent so answers are the same on every machine. */
export function groupDigits(n: number): string {
  const [int, frac] = String(Math.round(n * 100) / 100).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

export function money(amount: number, currency: string, monthly: boolean, p: Phrases): string {
  return `${currency}${groupDigits(amount)}${monthly ? p.perMonth : ''}`;
}

export function priceText(d: ListingData, p: Phrases): string {
  const price = listingPrice(d);
  if (price === undefined) return p.priceOnRequest;
  return money(price, d.CurrencySymbol, d.SaleType === 'for_rent', p);
}

export function fullAddress(d: ListingData): string {
  const cityLine = [d.City, [d.State, d.ZIP].filter(Boolean).join(' ')].filter((s) => s && s.trim() !== '').join(', ');
  return [d.Address, cityLine].filter((s) => s && s.trim() !== '').join(', ') || d.Url;
}

/** Markdown link text may not hold brackets; the address is the link when the listing has a URL. */
export function linkedAddress(d: ListingData): string {
  const label = fullAddress(d).replace(/[[\]]/g, '');
  return /^https?:\/\//i.test(d.Url) ? `[${label}](${d.Url})` : label;
}

const areaText = (d: ListingData, p: Phrases): string =>
  `${groupDigits(d.BuildingArea)} ${d.AreaUnit === 'Square Meters' ? p.sqm : p.sqft}`;

/** One line per listing: what someone scanning a list needs, status in words. */
export function listingLine(n: number, { data: d }: StoredListing, p: Phrases): string {
  return (
    `${n}. ${linkedAddress(d)} - ${priceText(d, p)}, ${groupDigits(d.Bedrooms)} ${p.bd(d.Bedrooms)} / ${groupDigits(d.Bathrooms)} ${p.ba(d.Bathrooms)}, ` +
    `${areaText(d, p)} ${p.propertyType(d.PropertyType)}, ${p.status(d)}, MLS ${d.MLSNumber}`
  );
}

/** A paragraph per listing, for detail questions and the long answer. */
export function listingParagraph({ data: d }: StoredListing, p: Phrases): string {
  const parts = [p.paragraph(d, linkedAddress(d), priceText(d, p), areaText(d, p))];
  if (d.HOAMonth !== undefined) parts.push(p.hoa(`${d.CurrencySymbol}${groupDigits(d.HOAMonth)}`));
  if (d.DepositFee !== undefined) parts.push(p.deposit(`${d.CurrencySymbol}${groupDigits(d.DepositFee)}`));
  if (d.Description) parts.push(d.Description);
  const extras = (d.ExtensionColumn ?? []).map((e) => `${e.Key}: ${e.value}`).join('; ');
  if (extras) parts.push(`${extras}.`);
  if (d.Tours) parts.push(p.tour(d.Tours));
  return parts.join(' ');
}

/** "homes for rent in Denver under $3,000/month" */
export function describe(c: Criteria, p: Phrases, n: number, currency = '$'): string {
  const monthly = c.saleType === 'for_rent';
  const bits: string[] = [];
  // English puts "sold" before the noun; the other tables put every status word after it.
  const soldFirst = p.sold === 'sold';
  if (c.status === 'Sold' && soldFirst) bits.push(p.sold);
  bits.push(p.homes(n, c.propertyType));
  if (c.status === 'Sold' && !soldFirst) bits.push(p.sold);
  if (c.status === 'PreOnMarket') bits.push(p.comingSoon);
  if (c.saleType) bits.push(c.saleType === 'for_rent' ? p.forRent : p.forSale);
  if (c.street) bits.push(p.onStreet(c.street.replace(/\b\w/g, (ch) => ch.toUpperCase())));
  if (c.area) bits.push(p.inArea(c.area));
  if (c.city) bits.push(p.inCity(c.city));
  if (c.minBedrooms !== undefined) bits.push(p.withBeds(c.minBedrooms));
  if (c.minBathrooms !== undefined) bits.push(p.withBaths(c.minBathrooms));
  if (c.minArea !== undefined) bits.push(p.largerThan(`${groupDigits(c.minArea)} ${p.sqft}`));
  const m = (v: number) => money(v, currency, monthly, p);
  // "around $800k" is said with the tolerance it was read with, so the bounds can be checked.
  const around = c.around ? ` (${m(c.around.value)} ${c.around.tolerance})` : '';
  if (c.minPrice !== undefined && c.maxPrice !== undefined) bits.push(p.between(m(c.minPrice), m(c.maxPrice)) + around);
  else if (c.maxPrice !== undefined) bits.push(p.under(m(c.maxPrice)));
  else if (c.minPrice !== undefined) bits.push(p.over(m(c.minPrice)));
  return bits.join(' ');
}

/**
 * Cuts text into fragments of a few words, keeping every character (whitespace included), so the
 * fragments concatenated are exactly the text.
 */
export function wordGroups(text: string, wordsPerFragment = 4): string[] {
  const words = text.match(/\s*\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerFragment) out.push(words.slice(i, i + wordsPerFragment).join(''));
  return out;
}
