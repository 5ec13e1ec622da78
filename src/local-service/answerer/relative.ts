import { listingPrice } from '../listings/listing-data';
import type { StoredListing } from '../listings/listings-repo';
import { numberOf } from './facts';
import { groupDigits } from './format';
import { DISTANCE_UNITS, NEARBY_MILES, RELATIVES, SAME, SIMILAR_PRICE } from './grammar';
import type { Criteria } from './intent';
import type { FactFilter, NumericFact, Previous } from './query-model';

/**
 * Conditions relative to a home of the conversation: "cheaper than 4547 S Congress Ave", "bigger than
 * the first one", "near it", "similar to that one", "in the same neighborhood". The reference is a home
 * named in the question (address, MLS number), a position in the last list, or the home the last answer
 * was about; each condition states its reference and figure in the answer.
 */
export interface RelativeReading {
  criteria: Criteria;
  filters: FactFilter[];
  spans: [number, number][];
  reference?: string;
  /** The reference was named in the question: a new search, not a refinement of the one in force. */
  fresh?: boolean;
  /** The reference came from the conversation: the search in force carries over. */
  carry?: boolean;
}

/** A listing named in the text by address or MLS number, where. */
export interface NamedSpan {
  at: number;
  end: number;
  listing: StoredListing;
}

const LONG: Record<string, string> = {
  st: '(?:st|street)',
  ave: '(?:ave|avenue|av)',
  rd: '(?:rd|road)',
  blvd: '(?:blvd|boulevard)',
  dr: '(?:dr|drive)',
  ln: '(?:ln|lane)',
  ct: '(?:ct|court)',
  pl: '(?:pl|place)',
  n: '(?:n|north)',
  s: '(?:s|south)',
  e: '(?:e|east)',
  w: '(?:w|west)',
  nw: '(?:nw|northwest)',
  ne: '(?:ne|northeast)',
  sw: '(?:sw|southwest)',
  se: '(?:se|southeast)',
};

/** Where the text names the chatbot's homes: house addresses (any suffix spelling) and MLS numbers. */
export function namedSpans(text: string, houses: readonly string[], all: readonly StoredListing[]): NamedSpan[] {
  const out: NamedSpan[] = [];
  const free = (a: number, b: number) => !out.some((s) => a < s.end && b > s.at);
  for (const house of [...houses].sort((a, b) => b.length - a.length)) {
    const words = house.split(' ').map((w) => LONG[w] ?? w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const re = new RegExp(String.raw`\b${words.join(String.raw`\.?[\s,]+`)}\.?(?![\w])`, 'gi');
    for (const m of text.matchAll(re)) {
      const at = m.index ?? 0;
      const listing = all.find((l) => sameHouse(l, house));
      if (listing && free(at, at + m[0].length)) out.push({ at, end: at + m[0].length, listing });
    }
  }
  for (const m of text.matchAll(/\b(?:mls\s*#?\s*:?\s*)?([a-z]{2,5}-?\d{4,}|\d{6,})\b/gi)) {
    const listing = all.find((l) => l.data.MLSNumber.toUpperCase() === m[1].toUpperCase());
    const at = m.index ?? 0;
    if (listing && free(at, at + m[0].length)) out.push({ at, end: at + m[0].length, listing });
  }
  return out.sort((a, b) => a.at - b.at);
}

function sameHouse(l: StoredListing, house: string): boolean {
  const a = (l.data.Address ?? '')
    .toLowerCase()
    .replace(/[.,]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => Object.entries(LONG).find(([, re]) => new RegExp(`^${re}$`).test(w))?.[0] ?? w)
    .join(' ');
  return a === house || a.startsWith(`${house} `);
}

const ORDINAL: Record<string, number> = {
  first: 1,
  '1st': 1,
  second: 2,
  '2nd': 2,
  third: 3,
  '3rd': 3,
  fourth: 4,
  '4th': 4,
  fifth: 5,
  '5th': 5,
  last: -1,
};
/** A reference said in words: a position, "it", "that one", "those". */
const REF_WORDS = String.raw`(?:the )?(?:first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)(?: one| home| house| listing| property| place)?|(?:that|this)(?: one| home| house| listing| property| place| condo| apartment)?|it|those|these|them|(?:all|any|each) of (?:them|those|these)|the ones? (?:above|you (?:showed|listed|mentioned))`;
const NEAR = String.raw`(?:near(?:by)?|close (?:to|by)|around|next to|in the vicinity of|walking distance (?:of|from|to)|within (\d+(?:\.\d+)?) ?(miles?|mi|km|kilometers?|kilometres?|blocks?) (?:of|from))`;
const SIMILAR = String.raw`(?:similar|comparable)(?: (?:homes?|ones?|listings?|properties|places|options))?(?: to)?|(?:homes?|ones?|something|anything|places?|listings?|more) (?:just )?like|(?:the )?same as`;

interface Ref {
  homes: StoredListing[];
  /** How the answer names it: "4547 S Congress Ave" or "the 3 homes of my last answer". */
  name: string;
}

function resolve(word: string | undefined, named: NamedSpan | undefined, previous: Previous): Ref | undefined {
  if (named) return { homes: [named.listing], name: named.listing.data.Address || named.listing.data.MLSNumber };
  const w = (word ?? '').toLowerCase().trim();
  const ord = /\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\b/.exec(w);
  if (ord) {
    const i = ORDINAL[ord[1]];
    const home = i < 0 ? previous.list[previous.list.length + i] : previous.list[i - 1];
    return home ? { homes: [home], name: home.data.Address || home.data.MLSNumber } : undefined;
  }
  const shown = previous.shown;
  if (shown.length === 0) return undefined;
  if (shown.length === 1) return { homes: shown, name: shown[0].data.Address || shown[0].data.MLSNumber };
  return { homes: shown, name: `the ${shown.length} homes of my last answer` };
}

/** A fact of a home as the reference is stated: "$827,000", "2,640 sq ft", "built 1958". */
export function figure(l: StoredListing, fact: NumericFact): string {
  const v = numberOf(l.data, fact) ?? 0;
  const cur = l.data.CurrencySymbol || '$';
  switch (fact) {
    case 'price':
      return `${cur}${groupDigits(v)}${l.data.SaleType === 'for_rent' ? '/month' : ''}`;
    case 'ppsf':
      return `${cur}${v.toFixed(2)} per sq ft`;
    case 'hoa':
      return `HOA ${cur}${groupDigits(v)}/month`;
    case 'area':
      return `${groupDigits(v)} sq ft`;
    case 'lot':
      return `a ${groupDigits(v)} sq ft lot`;
    case 'year':
      return `built ${v}`;
    case 'beds':
      return `${v} bedroom${v === 1 ? '' : 's'}`;
    case 'baths':
      return `${v} bath${v === 1 ? '' : 's'}`;
    case 'parking':
      return `${v} parking spot${v === 1 ? '' : 's'}`;
    case 'dom':
      return `${v} days on the market`;
  }
}

const STEP: Record<NumericFact, number> = {
  price: 1,
  ppsf: 0.01,
  area: 1,
  lot: 1,
  year: 1,
  dom: 1,
  parking: 1,
  hoa: 1,
  beds: 1,
  baths: 0.5,
};

/** One reading's state: what is claimed, and how a reference right after a phrase is found. */
interface Scan {
  text: string;
  previous: Previous;
  out: RelativeReading;
  free(a: number, b: number): boolean;
  refAt(at: number): { end: number; named?: NamedSpan; word?: string } | undefined;
  claim(a: number, b: number, r?: { named?: NamedSpan }): void;
  exclude(ref: Ref, said: string): void;
}

function scanOf(
  text: string,
  named: readonly NamedSpan[],
  previous: Previous,
  taken: readonly [number, number][],
): Scan {
  const out: RelativeReading = { criteria: {}, filters: [], spans: [] };
  const used: [number, number][] = [...taken.filter(([a, b]) => !named.some((n) => n.at === a && n.end === b))];
  const free = (a: number, b: number) => !used.some(([x, y]) => a < y && b > x);
  /** The reference right after `at`: a named home, or words for one. */
  const refAt = (at: number): { end: number; named?: NamedSpan; word?: string } | undefined => {
    const rest = text.slice(at);
    const lead = /^\s*/.exec(rest)?.[0].length ?? 0;
    const n = named.find((s) => s.at === at + lead);
    if (n) return { end: n.end, named: n };
    const w = new RegExp(`^(?:${REF_WORDS})\\b`, 'i').exec(rest.slice(lead));
    return w ? { end: at + lead + w[0].length, word: w[0] } : undefined;
  };
  const claim = (a: number, b: number, r?: { named?: NamedSpan }) => {
    if (r?.named) out.fresh = true;
    else out.carry = true;
    out.spans.push([a, b]);
    used.push([a, b]);
  };
  const exclude = (ref: Ref, said: string) => {
    for (const h of ref.homes) out.filters.push({ kind: 'other', mls: h.data.MLSNumber, said });
    out.reference = said;
  };
  return { text, previous, out, free, refAt, claim, exclude };
}

/** "cheaper than X", "bigger than the first one": a bound at the reference's figure. */
function readComparatives(s: Scan): void {
  const { text, previous, out, free, refAt, claim, exclude } = s;
  for (const spec of RELATIVES) {
    for (const m of text.matchAll(new RegExp(String.raw`\b(?:${spec.source})\s+(?:than|to)\b`, 'gi'))) {
      const at = m.index ?? 0;
      const r = refAt(at + m[0].length);
      if (!r || !free(at, r.end)) continue;
      const ref = resolve(r.word, r.named, previous);
      if (!ref) continue;
      const values = ref.homes.map((h) => numberOf(h.data, spec.fact)).filter((v): v is number => v !== undefined);
      if (values.length === 0) continue;
      const v = spec.bound === 'max' ? Math.min(...values) : Math.max(...values);
      const holder = ref.homes.find((h) => numberOf(h.data, spec.fact) === v) ?? ref.homes[0];
      const word = m[0].replace(/\s+(than|to)$/i, '').toLowerCase();
      const said = `${word} than ${ref.name} (${figure(holder, spec.fact)})`;
      out.filters.push({
        kind: 'range',
        fact: spec.fact,
        ...(spec.bound === 'max' ? { max: v - STEP[spec.fact] } : { min: v + STEP[spec.fact] }),
        said,
      });
      // A monthly rent is not cheaper than a purchase price: the reference's sale type is kept.
      if (spec.fact === 'price' || spec.fact === 'ppsf' || spec.fact === 'hoa')
        out.criteria.saleType = holder.data.SaleType;
      exclude(ref, '');
      out.reference = said;
      claim(at, r.end, r);
    }
  }
}

/** "near it", "within 2 miles of X": by the listings' coordinates. */
function readNear(s: Scan): void {
  const { text, previous, out, free, refAt, claim, exclude } = s;
  for (const m of text.matchAll(new RegExp(String.raw`\b${NEAR}\b`, 'gi'))) {
    const at = m.index ?? 0;
    const bare = /^(nearby|close by)$/i.test(m[0]);
    const r = bare ? undefined : refAt(at + m[0].length);
    if ((!bare && !r) || !free(at, r?.end ?? at + m[0].length)) continue;
    const ref = resolve(r?.word, r?.named, previous);
    const home = ref?.homes[0];
    if (!ref || !home || home.data.Latitude === undefined || home.data.Longitude === undefined) continue;
    const miles = m[1]
      ? Number(m[1]) * (DISTANCE_UNITS[m[2].toLowerCase().replace(/s$/, '')] ?? DISTANCE_UNITS[m[2].toLowerCase()] ?? 1)
      : NEARBY_MILES;
    const said = `within ${groupDigits(miles)} miles of ${home.data.Address || home.data.MLSNumber}`;
    out.filters.push({ kind: 'near', lat: home.data.Latitude, lon: home.data.Longitude, miles, said });
    exclude({ homes: [home], name: '' }, '');
    out.reference = said;
    claim(at, r?.end ?? at + m[0].length, r);
  }
}

/** "similar to it": same city, type and sale type, price within 20%. */
function readSimilar(s: Scan): void {
  const { text, previous, out, free, refAt, claim, exclude } = s;
  for (const m of text.matchAll(new RegExp(String.raw`\b(?:${SIMILAR})\b`, 'gi'))) {
    const at = m.index ?? 0;
    const r = refAt(at + m[0].length);
    const end = r?.end ?? at + m[0].length;
    if (!free(at, end)) continue;
    // "similar homes" with no reference: the home the conversation is about.
    const ref = resolve(r?.word, r?.named, previous);
    const home = ref?.homes[0];
    if (!ref || !home) continue;
    const d = home.data;
    const price = listingPrice(d);
    Object.assign(out.criteria, { city: d.City, saleType: d.SaleType, propertyType: d.PropertyType });
    const name = d.Address || d.MLSNumber;
    if (price !== undefined) {
      const lo = Math.round(price * (1 - SIMILAR_PRICE));
      const hi = Math.round(price * (1 + SIMILAR_PRICE));
      const unit = d.SaleType === 'for_rent' ? '/month' : '';
      out.filters.push({
        kind: 'range',
        fact: 'price',
        min: lo,
        max: hi,
        said: `priced within ${SIMILAR_PRICE * 100}% of it ($${groupDigits(lo)}${unit} to $${groupDigits(hi)}${unit})`,
      });
    }
    exclude({ homes: [home], name }, `similar to ${name} (${figure(home, 'price')}): same city, type and sale type`);
    claim(at, end, r);
  }
}

/** "in the same neighborhood as it": the reference's own value of one fact. */
function readSame(s: Scan): void {
  const { text, previous, out, free, refAt, claim, exclude } = s;
  for (const [source, what] of SAME) {
    for (const m of text.matchAll(
      new RegExp(String.raw`\b(?:(?:in|on|with|at|of) )?(?:the )?(?:${source})(?: as)?\b`, 'gi'),
    )) {
      const at = m.index ?? 0;
      const r = /as$/i.test(m[0]) ? refAt(at + m[0].length) : undefined;
      const end = r?.end ?? at + m[0].length;
      if (!free(at, end)) continue;
      const ref = resolve(r?.word, r?.named, previous);
      const home = ref?.homes[0];
      if (!ref || !home) continue;
      const d = home.data;
      const name = d.Address || d.MLSNumber;
      const hood = (d.ExtensionColumn ?? []).find((e) => /neighbou?rhood/i.test(e.Key))?.value;
      if (what === 'city') out.criteria.city = d.City;
      else if (what === 'area' && hood) out.criteria.area = hood;
      else if (what === 'type') out.criteria.propertyType = d.PropertyType;
      else if (what === 'saleType') out.criteria.saleType = d.SaleType;
      else if (what === 'beds') out.filters.push({ kind: 'range', fact: 'beds', min: d.Bedrooms, max: d.Bedrooms });
      else if (what === 'zip' && d.ZIP) out.filters.push({ kind: 'zip', zip: d.ZIP });
      else if (what === 'price') {
        const p = listingPrice(d) ?? 0;
        out.criteria.saleType = d.SaleType;
        out.filters.push({
          kind: 'range',
          fact: 'price',
          min: Math.round(p * 0.9),
          max: Math.round(p * 1.1),
          said: `priced within 10% of ${figure(home, 'price')}`,
        });
      } else continue;
      const label = {
        city: 'city',
        area: 'neighborhood',
        type: 'property type',
        saleType: 'sale type',
        beds: 'number of bedrooms',
        zip: 'ZIP code',
        price: 'price range',
      }[what];
      exclude({ homes: [home], name }, `in the same ${label} as ${name}`);
      claim(at, end, r);
    }
  }
}

export function readRelatives(
  text: string,
  named: readonly NamedSpan[],
  previous: Previous,
  taken: readonly [number, number][],
): RelativeReading {
  const s = scanOf(text, named, previous, taken);
  readComparatives(s);
  readNear(s);
  readSimilar(s);
  readSame(s);
  return s.out;
}

/** What "anything cheaper?" is measured from, in words: the last answer's home at the edge it moves past. */
export function beyondReference(kind: 'cheaper' | 'pricier' | 'larger', prev: Previous): string | undefined {
  const fact = kind === 'larger' ? 'area' : 'price';
  const priced = prev.shown.filter((l) => listingPrice(l.data) !== undefined);
  if (priced.length === 0) return undefined;
  const v = (l: (typeof priced)[number]) => (fact === 'area' ? l.data.BuildingArea : (listingPrice(l.data) ?? 0));
  const edge = priced.reduce((b, l) => ((kind === 'cheaper' ? v(l) < v(b) : v(l) > v(b)) ? l : b));
  const word = { cheaper: 'cheaper', pricier: 'more expensive', larger: 'larger' }[kind];
  const which = { cheaper: 'least expensive', pricier: 'most expensive', larger: 'largest' }[kind];
  return `${word} than ${edge.data.Address || edge.data.MLSNumber} (${figure(edge, fact)}), the ${which} of my last answer`;
}
