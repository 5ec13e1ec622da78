import type { ListingData } from '../listings/listing-data';
import type { StoredListing } from '../listings/listings-repo';
import { appliedFilters, type Evaluation } from './evaluate';
import { distanceTo, featureOf, numberOf, passes } from './facts';
import { type GrammarPhrases, grammarPhrasesFor } from './grammar-phrases';
import { describe, groupDigits, listingLine, money, priceText } from './format';
import type { Criteria } from './intent';
import type { Phrases } from './phrases';
import { matches } from './query';
import type { FactFilter, NumericFact } from './query-model';
import type { ReasonPhrases } from './reason-phrases';

/** What every writer is handed besides the evaluation: the language's phrases and the currency. */
export interface Writing {
  p: Phrases;
  rp: ReasonPhrases;
  /** The grammar's phrases; English when not given. */
  gp?: GrammarPhrases;
  currency: string;
  all: readonly StoredListing[];
}

export const gpOf = (w: Writing): GrammarPhrases => w.gp ?? grammarPhrasesFor('English');

/** A numeric fact of one listing in words ("2,030 sq ft", "$329.93"), undefined when it holds none. */
export function factValue(d: ListingData, fact: NumericFact, w: Writing): string | undefined {
  const v = numberOf(d, fact);
  if (v === undefined || ((fact === 'hoa' || fact === 'lot') && v === 0)) return undefined;
  if (fact === 'price') return priceText(d, w.p);
  if (fact === 'ppsf') return `${d.CurrencySymbol}${cents(v)}`;
  if (fact === 'hoa') return `${d.CurrencySymbol}${groupDigits(v)}`;
  if (fact === 'area' || fact === 'lot')
    return `${groupDigits(v)} ${d.AreaUnit === 'Square Meters' ? w.p.sqm : w.p.sqft}`;
  return String(v);
}

/** A numeric fact as a phrase ("2 parking spots", "built in 1999"), or that the listing does not give it. */
export function factPhrase(d: ListingData, fact: NumericFact, w: Writing): string {
  const value = factValue(d, fact, w);
  return value === undefined ? w.rp.noFact(fact) : w.rp.fact(fact, value, numberOf(d, fact) ?? 0);
}

/** A range filter in words, its bounds written as the fact is. */
export function rangeText(f: Extract<FactFilter, { kind: 'range' }>, w: Writing): string {
  if (f.said) return f.said;
  const write = (v: number | undefined): string | undefined => {
    if (v === undefined) return undefined;
    if (f.fact === 'hoa' || f.fact === 'ppsf' || f.fact === 'price') return `${w.currency}${groupDigits(v)}`;
    if (f.fact === 'area' || f.fact === 'lot') return `${groupDigits(v)} ${w.p.sqft}`;
    return String(v);
  };
  return w.rp.range(f.fact, write(f.min), write(f.max), f.min, f.max);
}

/** Filters in words, leaving out the features the data could not answer. */
export function filterTexts(filters: readonly FactFilter[], ev: Evaluation, w: Writing): string[] {
  const gp = gpOf(w);
  return filters
    .filter((f) => f.kind !== 'feature' || !ev.unknown.includes(f.feature))
    .map((f) => {
      if (f.kind === 'range') return rangeText(f, w);
      if (f.kind === 'feature') return f.not ? gp.without(f.feature.label) : w.rp.feature(f.feature.label);
      if (f.kind === 'exclude') return gp.excluded(f.what, f.value);
      if (f.kind === 'zip') return gp.zip(f.zip);
      return f.said;
    })
    .filter((t) => t !== '');
}

/** The conditions the question itself added, in words ("built in 2001 or later"). */
export function ownConditions(ev: Evaluation, w: Writing): string[] {
  return filterTexts(appliedFilters(ev.query), ev, w);
}

/**
 * "homes for sale in Denver with 2+ parking spots", plus "from my last answer" for a follow-up's
 * homes. Those homes are described by the conditions in force only when every one of them meets
 * them (homes compared by MLS number need not be the search's); otherwise by the question's own.
 */
export function what(ev: Evaluation, w: Writing, n: number, criteria: Criteria = ev.query.criteria): string {
  const q = ev.query;
  const fits =
    q.set.kind === 'search' ||
    (ev.found.length > 0 ? ev.found : ev.base).every(
      (l) =>
        matches(l.data, { ...criteria, status: criteria.status ?? l.data.Status }) &&
        q.filters.every(
          (f) => passes(l.data, f) || (f.kind === 'feature' && ev.unknown.includes(f.feature)) || f.kind === 'other',
        ),
    );
  const c = fits ? criteria : { ...q.own.criteria, ...(criteria.saleType ? { saleType: criteria.saleType } : {}) };
  const bits = [describe(c, w.p, n, w.currency), ...filterTexts(fits ? q.filters : q.own.filters, ev, w)];
  if (q.set.kind === 'previous') bits.push(w.rp.fromLast);
  return bits.join(' ');
}

/** What a listing's line adds: the facts filtered on (with the listing's own words) and the facts asked. */
export function notes(d: ListingData, ev: Evaluation, w: Writing): string {
  const out: string[] = [];
  for (const f of appliedFilters(ev.query)) {
    if (f.kind === 'range') {
      if (f.fact !== 'area' && f.fact !== 'price' && f.fact !== 'beds' && f.fact !== 'baths')
        out.push(factPhrase(d, f.fact, w));
    } else if (f.kind === 'near')
      out.push(gpOf(w).distance(distanceTo(d, f).toFixed(1), f.said.replace(/^.* of /, '')));
    else if (f.kind === 'feature' && !ev.unknown.includes(f.feature)) out.push(featureText(d, f.feature, w));
  }
  for (const a of ev.query.asks)
    out.push(a.kind === 'number' ? factPhrase(d, a.fact, w) : featureText(d, a.feature, w));
  const unique = [...new Set(out)];
  const text = unique.join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : '';
}

function featureText(d: ListingData, feature: Parameters<typeof featureOf>[1], w: Writing): string {
  const s = featureOf(d, feature);
  if (s.has === 'unknown') return w.rp.featureUnknown(feature.label);
  // The sentence quoted loses its full stop: the notes end with one.
  const evidence = s.evidence.replace(/[.!?]+$/, '');
  return s.has === 'yes'
    ? w.rp.featureYes(feature.label, evidence, s.fromField)
    : w.rp.featureNo(feature.label, evidence, s.fromField);
}

/** Numbered list lines, each followed by its notes when the question asked for any. */
export function lines(list: readonly StoredListing[], ev: Evaluation, w: Writing): string {
  return list
    .map((l, i) => {
      const n = notes(l.data, ev, w);
      return n ? `${listingLine(i + 1, l, w.p)}\n   ${n}` : listingLine(i + 1, l, w.p);
    })
    .join('\n');
}

/** 353.6 -> "353.60": an amount per area is said to the cent. */
export function cents(v: number): string {
  const [int, frac] = v.toFixed(2).split('.');
  return `${groupDigits(Number(int))}.${frac}`;
}

/** An amount in the listings' currency, monthly for rentals. */
export function amount(v: number, monthly: boolean, w: Writing): string {
  return money(v, w.currency, monthly, w.p);
}
