import { demoListings } from '../../src/local-service/demo/demo-listings';
import type { ListingData } from '../../src/local-service/listings/listing-data';

/**
 * The expected answers of the reasoning table, computed here from the demo data itself (not from the
 * answerer's code): which homes qualify, and the figures a statistic over them comes to.
 */
export type L = ListingData;

export const DEMO: readonly L[] = demoListings();
/** Homes on offer: a sold home is shown only when asked for. */
export const OFFERED = DEMO.filter((d) => d.Status !== 'Sold');

export const price = (d: L): number => (d.SaleType === 'for_rent' ? (d.RentPrice ?? 0) : (d.SalePrice ?? 0));
export const ppsf = (d: L): number => price(d) / d.BuildingArea;
export const forSale = (d: L) => d.SaleType === 'for_sale';
export const forRent = (d: L) => d.SaleType === 'for_rent';
export const inCity = (city: string) => (d: L) => d.City === city;
export const extra = (d: L, key: string): string => d.ExtensionColumn?.find((e) => e.Key === key)?.value ?? '';

export function offered(...tests: ((d: L) => boolean)[]): L[] {
  return OFFERED.filter((d) => tests.every((t) => t(d)));
}

export const byMls = (m: string): L => {
  const d = DEMO.find((x) => x.MLSNumber === m);
  if (!d) throw new Error(`no demo listing ${m}`);
  return d;
};

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The listings holding the least (or most) of a figure: ties all count. */
export function holders(list: readonly L[], f: (d: L) => number, most: boolean): { value: number; who: L[] } {
  const value = (most ? Math.max : Math.min)(...list.map(f));
  return { value, who: list.filter((d) => f(d) === value) };
}

/** 721750 -> "$721,750", 341.834 -> "$341.83" (cents only when asked). */
export function dollars(v: number, cents = false): string {
  return `$${v.toLocaleString('en-US', cents ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : { maximumFractionDigits: 0 })}`;
}

export const grouped = (v: number): string => v.toLocaleString('en-US', { maximumFractionDigits: 1 });

/** The first of `list` by price (cheapest), ties by their order in the data. */
export function cheapest(list: readonly L[]): L {
  return [...list].sort((a, b) => price(a) - price(b))[0];
}
