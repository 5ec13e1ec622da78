import type { SaleType } from '../../service/schemas';
import type { StoredListing } from '../listings/listings-repo';
import type { Evaluation } from './evaluate';
import { numberOf } from './facts';
import { groupDigits } from './format';
import type { NumericFact, Stat } from './query-model';
import { amount, cents, gpOf, type Writing, what } from './write-common';

/** The statistic of a list of figures; the caller guarantees at least one. */
export function statOf(stat: Stat, values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (stat === 'min') return sorted[0];
  if (stat === 'max') return sorted[sorted.length - 1];
  if (stat === 'sum') return sorted.reduce((s, v) => s + v, 0);
  if (stat === 'average') return sorted.reduce((s, v) => s + v, 0) / sorted.length;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Figures a statistic is taken over: a home without a lot or an HOA fee has no figure, not a zero one. */
export function figures(list: readonly StoredListing[], fact: NumericFact): { l: StoredListing; v: number }[] {
  return list
    .map((l) => ({ l, v: numberOf(l.data, fact) }))
    .filter(
      (x): x is { l: StoredListing; v: number } =>
        x.v !== undefined && !((fact === 'lot' || fact === 'hoa') && x.v === 0),
    );
}

/** How a statistic is rounded for saying: whole amounts and areas, cents per area, tenths of days and spots. */
export function rounded(fact: NumericFact, v: number): number {
  if (fact === 'ppsf') return Math.round(v * 100) / 100;
  if (fact === 'dom' || fact === 'parking') return Math.round(v * 10) / 10;
  return Math.round(v);
}

/**
 * "The average asking price of the 4 homes for sale in Denver is $721,750." A price over homes for
 * sale and for rent is said once per sale type (a monthly rent does not average with a price); a
 * minimum or maximum names the homes that hold it.
 */
export function writeAggregate(ev: Evaluation, w: Writing): string {
  const op = ev.query.op;
  if (op.kind !== 'aggregate') return '';
  if (ev.found.length === 0) return w.p.none(what(ev, w, 2));
  const priced = op.fact === 'price' || op.fact === 'ppsf' || op.fact === 'hoa';
  const types: (SaleType | undefined)[] =
    priced && !ev.query.criteria.saleType
      ? (['for_sale', 'for_rent'] as const).filter((t) => ev.found.some((l) => l.data.SaleType === t))
      : [ev.query.criteria.saleType];
  if (types.length === 0) types.push(undefined);
  const parts = types.map((t) => {
    const group = t ? ev.found.filter((l) => l.data.SaleType === t) : ev.found;
    const criteria = t ? { ...ev.query.criteria, saleType: t } : ev.query.criteria;
    const xs = figures(group, op.fact);
    if (xs.length === 0) return w.rp.noFigure(op.fact, what(ev, w, 2, criteria));
    const v = rounded(
      op.fact,
      statOf(
        op.stat,
        xs.map((x) => x.v),
      ),
    );
    const monthly = t === 'for_rent';
    const said = w.rp.aggregate(
      op.stat,
      op.fact,
      monthly,
      xs.length,
      what(ev, w, xs.length, criteria),
      valueText(op.fact, v, monthly, w),
    );
    if (op.stat !== 'min' && op.stat !== 'max') return said;
    const holders = xs
      .filter((x) => rounded(op.fact, x.v) === v)
      .map((x) => `${x.l.data.Address || x.l.data.MLSNumber} (MLS ${x.l.data.MLSNumber})`);
    return `${said} ${w.rp.heldBy(w.p.joinAnd(holders))}`;
  });
  if (types.length > 1) parts.push(gpOf(w).splitFigured);
  return parts.join('\n\n');
}

function valueText(fact: NumericFact, v: number, monthly: boolean, w: Writing): string {
  if (fact === 'price') return amount(v, monthly, w);
  if (fact === 'ppsf') return `${w.currency}${cents(v)}`;
  if (fact === 'hoa') return amount(v, false, w);
  if (fact === 'area' || fact === 'lot') return `${groupDigits(v)} ${w.p.sqft}`;
  if (fact === 'dom') return w.rp.days(v);
  return String(v);
}
