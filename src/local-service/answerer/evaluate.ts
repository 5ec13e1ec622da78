import type { StoredListing } from '../listings/listings-repo';
import { distanceTo, featureOf, passes } from './facts';
import type { Criteria } from './intent';
import type { SortKind } from './phrases';
import type { FactFilter, Feature, NamedKey, Previous, Query } from './query-model';
import { filter, matches, onStreet, sortBy } from './query';

/** What a query comes to over the listings: everything a writer needs, nothing it must look up. */
export interface Evaluation {
  query: Query;
  /** The listings the answer is about, in the order it gives them. */
  found: StoredListing[];
  /** The set before the fact filters: what "none of them" or "the others" means. */
  base: StoredListing[];
  /** Features no listing of the set says anything about: said plainly, not filtered on. */
  unknown: Feature[];
  /** Named listings the data does not hold ("listing 99", an unknown MLS number). */
  missing: NamedKey[];
  /** Sold homes a search left out (to say so). */
  soldLeftOut: number;
  /** Why a follow-up found nothing to refer to. */
  problem?: { kind: 'noPrevious' } | { kind: 'noOrdinal'; index: number; shown: number };
}

/** The one evaluator: the query's set, narrowed by its criteria and filters, ordered for its operation. */
export function evaluate(query: Query, all: readonly StoredListing[], previous: Previous): Evaluation {
  const out: Evaluation = { query, found: [], base: [], unknown: [], missing: [], soldLeftOut: 0 };
  const set = query.set;
  let base: StoredListing[];
  if (set.kind === 'named') {
    base = [];
    for (const key of set.keys) {
      const hits = all.filter((l) => isNamed(l, key));
      if (hits.length === 0) out.missing.push(key);
      for (const l of hits) if (!base.includes(l)) base.push(l);
    }
  } else if (set.kind === 'previous') {
    let shown = set.pick ? previous.list : previous.shown;
    if (shown.length === 0) return { ...out, problem: { kind: 'noPrevious' } };
    if (set.pick) {
      const at = set.pick.map((i) => (i < 0 ? shown.length + 1 + i : i));
      const bad = at.find((i) => i < 1 || i > shown.length);
      if (bad !== undefined) return { ...out, problem: { kind: 'noOrdinal', index: bad, shown: shown.length } };
      shown = at.map((i) => shown[i - 1]);
    }
    // The homes named stay in whatever status they have: only what the question adds narrows them.
    const own = query.own.criteria;
    base = shown.filter((l) => matches(l.data, { ...own, status: own.status ?? l.data.Status }));
  } else {
    base = filter(all, query.criteria);
    // Sold homes left out are counted with every condition, so the note never overstates.
    out.soldLeftOut = query.criteria.status
      ? 0
      : filter(all, { ...query.criteria, status: 'Sold' }).filter((l) => query.filters.every((f) => passes(l.data, f)))
          .length;
  }
  let found = base;
  for (const f of appliedFilters(query)) {
    if (f.kind === 'feature' && !base.some((l) => featureOf(l.data, f.feature).has !== 'unknown')) {
      out.unknown.push(f.feature);
      continue;
    }
    found = found.filter((l) => passes(l.data, f));
  }
  const op = query.op;
  const near = appliedFilters(query).find((f) => f.kind === 'near');
  // "near it": nearest first.
  if (near && op.kind !== 'superlative')
    found = [...found].sort((a, b) => distanceTo(a.data, near) - distanceTo(b.data, near));
  if (op.kind === 'share') {
    // The share's whole is the set as narrowed; its part, those that also meet the predicate.
    const part = op.part;
    const whole = found;
    found = whole.filter(
      (l) =>
        matches(l.data, { ...part.criteria, status: part.criteria.status ?? l.data.Status }) &&
        part.filters.every((f) => passes(l.data, f)),
    );
    return { ...out, base: whole, found };
  }
  if (op.kind === 'superlative') found = topOf(found, op.sort, op.top, query.criteria);
  if (op.kind === 'beyond')
    found = sortBy(
      found,
      op.direction === 'cheaper' ? 'priciest' : op.direction === 'larger' ? 'smallest' : 'cheapest',
    );
  return { ...out, base, found };
}

/** A search applies the filters in force; homes already named are narrowed only by what the question adds. */
export function appliedFilters(query: Query): FactFilter[] {
  return query.set.kind === 'search' ? query.filters : query.own.filters;
}

function isNamed(l: StoredListing, key: NamedKey): boolean {
  if (key.kind === 'mls') return l.data.MLSNumber.toUpperCase() === key.mls;
  if (key.kind === 'id') return l.id === key.id;
  return onStreet(l.data, key.street);
}

/**
 * The first `n` by `kind`. A price ranking with no sale type asked ranks sales and rentals apart
 * (a monthly rent is not "cheaper" than a purchase price): the top of each, sales first.
 */
function topOf(found: StoredListing[], kind: SortKind, n: number, c: Criteria): StoredListing[] {
  const byPrice = kind === 'cheapest' || kind === 'priciest';
  const types = [...new Set(found.map((l) => l.data.SaleType))].sort(
    (a, b) => Number(b === 'for_sale') - Number(a === 'for_sale'),
  );
  if (!byPrice || c.saleType || types.length < 2) return sortBy(found, kind).slice(0, n);
  return types.flatMap((t) =>
    sortBy(
      found.filter((l) => l.data.SaleType === t),
      kind,
    ).slice(0, n),
  );
}
