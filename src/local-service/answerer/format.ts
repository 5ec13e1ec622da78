import { type ListingData, listingPrice } from '../listings/listing-data';
import type { SearchFilter, StoredListing } from '../listings/listings-repo';

/** 1234567.5 -> "1,234,567.5"; locale-independent so answers are the same on every machine. */
export function groupDigits(n: number): string {
  const [int, frac] = String(Math.round(n * 100) / 100).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

export function priceText(d: ListingData): string {
  const p = listingPrice(d);
  if (p === undefined) return 'price on request';
  return `${d.CurrencySymbol}${groupDigits(p)}${d.SaleType === 'for_rent' ? '/month' : ''}`;
}

export function fullAddress(d: ListingData): string {
  const cityLine = [d.City, [d.State, d.ZIP].filter(Boolean).join(' ')].filter((s) => s && s.trim() !== '').join(', ');
  return [d.Address, cityLine].filter((s) => s && s.trim() !== '').join(', ') || d.Url;
}

const areaUnit = (d: ListingData): string => (d.AreaUnit === 'Square Meters' ? 'm²' : 'sq ft');

/** One line per listing: what someone scanning a list needs. */
export function listingLine(n: number, { data: d }: StoredListing): string {
  const status = d.Status === 'Active' ? '' : d.Status === 'Sold' ? ' (sold)' : ' (coming soon)';
  return (
    `${n}. ${fullAddress(d)} - ${priceText(d)}, ${groupDigits(d.Bedrooms)} bd / ${groupDigits(d.Bathrooms)} ba, ` +
    `${groupDigits(d.BuildingArea)} ${areaUnit(d)} ${d.PropertyType.toLowerCase()}, MLS ${d.MLSNumber}${status}`
  );
}

/** A paragraph per listing, for detail questions and the long answer. */
export function listingParagraph({ data: d }: StoredListing): string {
  const extras = (d.ExtensionColumn ?? []).map((e) => `${e.Key}: ${e.value}`).join('; ');
  const parts = [
    `${fullAddress(d)} (MLS ${d.MLSNumber}) is a ${groupDigits(d.Bedrooms)}-bedroom, ${groupDigits(d.Bathrooms)}-bath ` +
      `${d.PropertyType.toLowerCase()} ${d.SaleType === 'for_rent' ? 'for rent' : 'for sale'} at ${priceText(d)}, ` +
      `status ${d.Status}.`,
    `It offers ${groupDigits(d.BuildingArea)} ${areaUnit(d)} of living space` +
      (d.LotArea > 0 ? ` on a ${groupDigits(d.LotArea)} ${areaUnit(d)} lot` : '') +
      `, was built in ${d.YearBuilt} and has ${d.ParkingSpots} parking spot${d.ParkingSpots === 1 ? '' : 's'}.`,
  ];
  if (d.HOAMonth !== undefined) parts.push(`HOA dues are ${d.CurrencySymbol}${groupDigits(d.HOAMonth)} a month.`);
  if (d.DepositFee !== undefined) parts.push(`The deposit is ${d.CurrencySymbol}${groupDigits(d.DepositFee)}.`);
  if (d.Description) parts.push(d.Description);
  if (extras) parts.push(`Details: ${extras}.`);
  if (d.Tours) parts.push(d.Tours === '3D' ? 'A 3D tour is available.' : 'An open house is scheduled.');
  parts.push(`More: ${d.Url}`);
  return parts.join(' ');
}

/** "for sale in Austin with 3+ bedrooms under $600,000" */
export function describeFilter(f: SearchFilter, currency: string): string {
  const bits: string[] = [];
  if (f.status === 'Sold') bits.push('sold');
  if (f.status === 'PreOnMarket') bits.push('coming soon');
  if (f.saleType) bits.push(f.saleType === 'for_rent' ? 'for rent' : 'for sale');
  if (f.city) bits.push(`in ${f.city}`);
  if (f.minBedrooms !== undefined) bits.push(`with ${f.minBedrooms}+ bedrooms`);
  if (f.minPrice !== undefined) bits.push(`from ${currency}${groupDigits(f.minPrice)}`);
  if (f.maxPrice !== undefined) bits.push(`up to ${currency}${groupDigits(f.maxPrice)}`);
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
