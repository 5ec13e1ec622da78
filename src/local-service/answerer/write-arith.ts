import type { StoredListing } from '../listings/listings-repo';
import type { Evaluation } from './evaluate';
import { numberOf } from './facts';
import { describe, groupDigits } from './format';
import type { NumericFact } from './query-model';
import { figures } from './write-aggregate';
import { cents, factValue, filterTexts, gpOf, type Writing, what } from './write-common';

const nameOf = (l: StoredListing) => l.data.Address || `MLS ${l.data.MLSNumber}`;
const PRICED: readonly NumericFact[] = ['price', 'ppsf', 'hoa'];

/** A difference of a fact in its own measure: "$157,000", "610 sq ft", "59 years", "2". */
function deltaText(fact: NumericFact, v: number, w: Writing, monthly: boolean): string {
  if (fact === 'price') return `${w.currency}${groupDigits(v)}${monthly ? w.p.perMonth : ''}`;
  if (fact === 'ppsf') return `${w.currency}${cents(v)}`;
  if (fact === 'hoa') return `${w.currency}${groupDigits(v)}`;
  if (fact === 'area' || fact === 'lot') return `${groupDigits(v)} ${w.p.sqft}`;
  if (fact === 'year') return `${groupDigits(v)} years`;
  if (fact === 'dom') return w.rp.days(v);
  return groupDigits(v);
}

const figureOf = (l: StoredListing, fact: NumericFact, w: Writing) => factValue(l.data, fact, w) ?? w.rp.noFact(fact);

/**
 * The difference (and ratio) of one fact between two homes, with both figures; over more homes, the
 * spread between the lowest and highest. A monthly rent is never set against a purchase price: the
 * answer says so and gives each figure.
 */
export function writeDifference(ev: Evaluation, w: Writing): string {
  const op = ev.query.op;
  const gp = gpOf(w);
  if (op.kind !== 'difference') return '';
  const fact = op.fact;
  if (ev.found.length < 2) return ev.found.length === 0 ? gp.needsTwo : `${gp.needsTwo}`;
  if (ev.found.length > 2 || ev.query.set.kind === 'search') return spread(ev, w, fact);
  const [a, b] = ev.found;
  const priced = PRICED.includes(fact);
  if (priced && a.data.SaleType !== b.data.SaleType)
    return gp.notComparable(nameOf(a), figureOf(a, 'price', w), nameOf(b), figureOf(b, 'price', w));
  const va = numberOf(a.data, fact);
  const vb = numberOf(b.data, fact);
  if (va === undefined || vb === undefined || (fact === 'hoa' && (va === 0 || vb === 0) && va === vb))
    return `${nameOf(a)}: ${figureOf(a, fact, w)}; ${nameOf(b)}: ${figureOf(b, fact, w)}.`;
  const monthly = a.data.SaleType === 'for_rent' && fact === 'price';
  if (va === vb) return gp.same(fact, nameOf(a), nameOf(b), figureOf(a, fact, w));
  const diff = Math.abs(va - vb);
  const pct = vb !== 0 && fact !== 'year' ? `${(Math.round((diff / vb) * 1000) / 10).toFixed(1)}%` : '';
  const line = gp.difference(
    fact,
    nameOf(a),
    figureOf(a, fact, w),
    nameOf(b),
    figureOf(b, fact, w),
    deltaText(fact, Math.round(diff * 100) / 100, w, monthly),
    va > vb,
    pct,
  );
  if (!op.ratio || vb === 0) return line;
  const times = (Math.round((va / vb) * 100) / 100).toFixed(2);
  return `${gp.ratio(fact, nameOf(a), figureOf(a, fact, w), nameOf(b), figureOf(b, fact, w), times)} ${line}`;
}

/** Over a set: the lowest and highest figure and the gap, per sale type for prices. */
function spread(ev: Evaluation, w: Writing, fact: NumericFact): string {
  const gp = gpOf(w);
  const types = PRICED.includes(fact)
    ? (['for_sale', 'for_rent'] as const).filter((t) => ev.found.some((l) => l.data.SaleType === t))
    : [undefined];
  const parts = types.map((t) => {
    const group = t ? ev.found.filter((l) => l.data.SaleType === t) : ev.found;
    const xs = figures(group, fact).sort((x, y) => x.v - y.v);
    const criteria = t ? { ...ev.query.criteria, saleType: t } : ev.query.criteria;
    if (xs.length < 2) return w.rp.noFigure(fact, what(ev, w, 2, criteria));
    const lo = xs[0];
    const hi = xs[xs.length - 1];
    return gp.spread(
      fact,
      xs.length,
      what(ev, w, xs.length, criteria),
      figureOf(lo.l, fact, w),
      nameOf(lo.l),
      figureOf(hi.l, fact, w),
      nameOf(hi.l),
      deltaText(fact, Math.round((hi.v - lo.v) * 100) / 100, w, t === 'for_rent' && fact === 'price'),
    );
  });
  if (types.length > 1) parts.push(gp.splitFigured);
  return parts.join('\n\n');
}

/** "2 of the 5 homes for sale in Denver (40%) are condos.", with the homes that are. */
export function writeShare(ev: Evaluation, w: Writing): string {
  const op = ev.query.op;
  if (op.kind !== 'share') return '';
  const n = ev.base.length;
  if (n === 0) return w.p.none(what(ev, w, 2));
  const k = ev.found.length;
  const pct = `${Math.round((k / n) * 1000) / 10}%`;
  const part = [describe(op.part.criteria, w.p, k, w.currency), ...filterTexts(op.part.filters, ev, w)].join(' ');
  const head = gpOf(w).share(k, n, what(ev, w, n), pct, part);
  const names = ev.found.slice(0, 5).map((l, i) => `${i + 1}. ${nameOf(l)} (MLS ${l.data.MLSNumber})`);
  return names.length > 0 ? `${head}\n\n${names.join('\n')}` : head;
}
