import type { StoredListing } from '../listings/listings-repo';
import type { Evaluation } from './evaluate';
import { numberOf } from './facts';
import { groupDigits, linkedAddress } from './format';
import type { NumericFact } from './query-model';
import { paragraphs } from './write-details';
import { factValue, type Writing } from './write-common';

/** Two or more homes side by side on price, price per area, rooms, area, year, parking and status, each named. */
export function writeCompare(ev: Evaluation, w: Writing): string {
  const found = ev.found;
  if (found.length < 2) return `${w.rp.compareNeedsTwo}\n\n${paragraphs(found, ev, w)}`;
  const L = w.rp.labels;
  const rows = found.map((l, i) => {
    const d = l.data;
    const cells = [
      `${L.price}: ${factValue(d, 'price', w)}`,
      `${L.ppsf}: ${factValue(d, 'ppsf', w) ?? '-'}`,
      `${L.rooms}: ${groupDigits(d.Bedrooms)} / ${groupDigits(d.Bathrooms)}`,
      `${L.area}: ${factValue(d, 'area', w)}`,
      `${L.year}: ${d.YearBuilt}`,
      `${L.parking}: ${w.rp.spots(d.ParkingSpots)}`,
      `${L.status}: ${w.p.status(d)}`,
    ];
    return `${i + 1}. ${linkedAddress(d)} (MLS ${d.MLSNumber})\n   ${cells.join('; ')}`;
  });
  return `${w.rp.compareHead(found.length)}\n\n${rows.join('\n')}\n\n${summary(found, w)}\n\n${w.p.offer}`;
}

/** Which home leads on each count: a price lead only among homes of one sale type (a rent is no price). */
function summary(found: readonly StoredListing[], w: Writing): string {
  const oneType = new Set(found.map((l) => l.data.SaleType)).size === 1;
  const lead = (fact: NumericFact, sign: 1 | -1): StoredListing | undefined => {
    const valued = found.filter((l) => numberOf(l.data, fact) !== undefined);
    const best = valued.reduce<StoredListing | undefined>(
      (b, l) => (b === undefined || sign * ((numberOf(l.data, fact) ?? 0) - (numberOf(b.data, fact) ?? 0)) < 0 ? l : b),
      undefined,
    );
    // A lead all share says nothing.
    return best && valued.some((l) => numberOf(l.data, fact) !== numberOf(best.data, fact)) ? best : undefined;
  };
  const B = w.rp.best;
  const items: [string, StoredListing | undefined, NumericFact][] = [
    [B.cheapest, oneType ? lead('price', 1) : undefined, 'price'],
    [B.ppsf, oneType ? lead('ppsf', 1) : undefined, 'ppsf'],
    [B.largest, lead('area', -1), 'area'],
    [B.newest, lead('year', -1), 'year'],
  ];
  return items
    .filter((x): x is [string, StoredListing, NumericFact] => x[1] !== undefined)
    .map(([label, l, fact]) => `${label}: ${l.data.Address || l.data.MLSNumber} (${factValue(l.data, fact, w)}).`)
    .join(' ');
}
