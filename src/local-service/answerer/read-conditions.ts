import {
  type Bound,
  COMPARATORS,
  type ComparatorSpec,
  DEFAULT_TOLERANCE,
  FACTS,
  type FactSpec,
  MONTHLY_UNIT,
  NEGATIONS,
  RENT_NAMES,
  TOLERANCE,
  TYPES,
  UNITS,
  type UnitSpec,
  YEAR_COMPARATORS,
} from './grammar';
import type { Criteria } from './intent';
import type { FactFilter, Feature, NumericFact } from './query-model';

/**
 * The numeric and negated conditions of a question, read with the grammar's tables: a number (in
 * digits by now) with its unit, the fact it is about (named before or after it, or known from the
 * unit) and its comparator (before or after it). What it reads is blanked from the text handed on,
 * and its spans are kept so the question's other words can be checked for being understood.
 */
export interface ConditionReading {
  criteria: Criteria;
  filters: FactFilter[];
  /** Character ranges of the text that were read as conditions. */
  spans: [number, number][];
  /** The text with those ranges blanked. */
  text: string;
}

const alt = (xs: readonly string[]) => xs.map((x) => `(?:${x})`).join('|');
const FACT_NAMES = alt(FACTS.flatMap((f) => f.names));
const PRE = alt([...YEAR_COMPARATORS, ...COMPARATORS].filter((c) => c.at === 'before').map((c) => c.source));
const POST = alt(COMPARATORS.filter((c) => c.at === 'after').map((c) => c.source));
const UNIT = alt(UNITS.map((u) => u.source));
const NUM = String.raw`(\$|usd\s*)?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:(${UNIT})\s*)?(?:dollars?\s*|bucks\s*)?`;
const LINK = String.raw`\s*(?:of|is|at|for|:|=|around|priced at)?\s*`;

/** [fact name] [comparator] number [unit] [monthly] [comparator] [fact name] [monthly] [tolerance] */
const SINGLE = new RegExp(
  String.raw`(?:\b(${FACT_NAMES})${LINK})?(?:(?<![\w$])(${PRE})\s*)?${NUM}(${MONTHLY_UNIT})?\s*(?:(${POST})(?![\w])\s*)?(?:\b(${FACT_NAMES})\b)?\s*(${MONTHLY_UNIT})?\s*(?:(${POST})(?![\w]))?${TOLERANCE}?`,
  'gi',
);
/** [fact name] between|from a [unit] and|to b [unit] [monthly] [fact name] */
const RANGE = new RegExp(
  String.raw`(?:\b(${FACT_NAMES})\s*)?(?:\b(?:between|from|entre)\s+)?${NUM}\s*(?:and|to|-|–|y)\s*${NUM}(${MONTHLY_UNIT})?\s*(?:\b(${FACT_NAMES})\b)?`,
  'gi',
);

const specOf = (name: string | undefined): FactSpec | undefined =>
  name === undefined
    ? undefined
    : FACTS.find((f) => f.names.some((n) => new RegExp(`^(?:${n})$`, 'i').test(name.trim())));
const unitOf = (u: string | undefined): UnitSpec | undefined =>
  u === undefined ? undefined : UNITS.find((x) => new RegExp(`^(?:${x.source})`, 'i').test(u.trim()));
const comparatorOf = (w: string | undefined, list: readonly ComparatorSpec[]): ComparatorSpec | undefined =>
  w === undefined ? undefined : list.find((c) => new RegExp(`^(?:${c.source})$`, 'i').test(w.trim()));

/** A number with what it is: the fact (if known), its value in the fact's own measure, and how it was written. */
interface Amount {
  value: number;
  money: boolean;
  monthly: boolean;
  unitFact?: NumericFact;
  shown?: string;
}

function amountOf(dollar: string | undefined, digits: string, unit: string | undefined, monthly: boolean): Amount {
  const u = unitOf(unit);
  const raw = Number(digits.replace(/,/g, ''));
  // A converted area is said in whole square feet.
  const value =
    u?.fact === 'area' && u.factor !== 1 ? Math.round(raw * u.factor) : Math.round(raw * (u?.factor ?? 1) * 100) / 100;
  const money = dollar !== undefined || (u !== undefined && u.fact === undefined) || monthly;
  return { value, money, monthly, unitFact: u?.fact, ...(u?.shown ? { shown: `${raw} ${u.shown}` } : {}) };
}

const MONEY_FACTS: readonly NumericFact[] = ['price', 'hoa', 'ppsf'];
const AREA_FACTS: readonly NumericFact[] = ['area', 'lot'];

/** The fact a number is about: its name if it fits the unit, else the unit's, else money is a price. */
function factFor(a: Amount, before: FactSpec | undefined, after: FactSpec | undefined): FactSpec | undefined {
  const fits = (s: FactSpec | undefined) =>
    s !== undefined &&
    (a.money ? MONEY_FACTS.includes(s.fact) : true) &&
    (a.unitFact ? a.unitFact === s.fact || (AREA_FACTS.includes(a.unitFact) && AREA_FACTS.includes(s.fact)) : true);
  if (fits(after)) return after;
  if (fits(before)) return before;
  if (a.unitFact) return FACTS.find((f) => f.fact === a.unitFact);
  if (a.money) return FACTS.find((f) => f.fact === 'price');
  return undefined;
}

/** The smallest step of a fact: "more than 2 bedrooms" is 3, "more than 2 baths" 2.5, "under $500k" $500,000. */
function step(spec: FactSpec): number {
  if (spec.kind === 'count' || spec.kind === 'year' || spec.kind === 'days') return 1;
  if (spec.kind === 'halfCount') return 0.5;
  return 0;
}

interface Bounds {
  min?: number;
  max?: number;
  around?: { value: number; tolerance: string };
}

function boundsOf(
  spec: FactSpec,
  v: number,
  bound: Bound | undefined,
  strict: boolean,
  tol?: [string, string?],
): Bounds {
  const s = strict ? step(spec) : 0;
  switch (bound) {
    case 'min':
      return { min: v + s };
    case 'max':
      return { max: v - s };
    case 'exact':
      return { min: v, max: v };
    case 'around': {
      if (spec.kind === 'count' || spec.kind === 'halfCount' || spec.kind === 'year' || spec.kind === 'days') {
        const d = tol ? Number(tol[0]) : spec.kind === 'year' ? 5 : spec.kind === 'days' ? 7 : 1;
        return { min: v - d, max: v + d, around: { value: v, tolerance: `±${d}` } };
      }
      const pct = tol && /%|percent/i.test(tol[1] ?? '') ? Number(tol[0]) / 100 : undefined;
      const abs = tol && !pct ? Number(tol[0]) * (/k|thousand/i.test(tol[1] ?? '') ? 1000 : 1) : undefined;
      const d = abs ?? v * (pct ?? DEFAULT_TOLERANCE);
      const tolerance = abs !== undefined ? `±${abs}` : `±${Math.round((pct ?? DEFAULT_TOLERANCE) * 100)}%`;
      return { min: Math.round(v - d), max: Math.round(v + d), around: { value: v, tolerance } };
    }
    default:
      // No comparator: a count or an area is a least ("3 bedrooms", "2,000 sq ft"), a price a budget,
      // days on the market a most ("listed 10 days"), a year the year.
      if (spec.fact === 'year') return { min: v, max: v };
      if (spec.kind === 'money' || spec.kind === 'days') return { max: v };
      return { min: v };
  }
}

/** Puts a condition where the rest of the answerer reads it: prices, bedrooms and baths as criteria, the rest as filters. */
function place(out: ConditionReading, spec: FactSpec, b: Bounds, monthly: boolean): void {
  const c = out.criteria;
  if (spec.fact === 'price') {
    delete c.minPrice;
    delete c.maxPrice;
    if (b.min !== undefined) c.minPrice = b.min;
    if (b.max !== undefined) c.maxPrice = b.max;
    if (b.around) c.around = b.around;
    if (monthly) c.saleType = 'for_rent';
    return;
  }
  if ((spec.fact === 'beds' || spec.fact === 'baths') && b.max === undefined && b.min !== undefined) {
    if (spec.fact === 'beds') c.minBedrooms = b.min;
    else c.minBathrooms = b.min;
    return;
  }
  // A price per square foot in dollars is a purchase price's: a rent per square foot is a dollar or two.
  if (spec.fact === 'ppsf' && (b.max ?? b.min ?? 0) >= 20 && !monthly) c.saleType = 'for_sale';
  out.filters = out.filters.filter((f) => !(f.kind === 'range' && f.fact === spec.fact));
  out.filters.push({
    kind: 'range',
    fact: spec.fact,
    ...(b.min !== undefined ? { min: b.min } : {}),
    ...(b.max !== undefined ? { max: b.max } : {}),
  });
}

/** Whether a span overlaps one of the protected ranges (addresses, MLS numbers: never amounts). */
const overlaps = (at: number, end: number, ranges: readonly [number, number][]) =>
  ranges.some(([a, b]) => at < b && end > a);

export function readConditions(
  text: string,
  protectedRanges: readonly [number, number][],
  features: readonly { ask: RegExp; feature: Feature }[],
): ConditionReading {
  const out: ConditionReading = { criteria: {}, filters: [], spans: [], text };
  const taken: [number, number][] = [...protectedRanges];
  const take = (at: number, end: number) => {
    out.spans.push([at, end]);
    taken.push([at, end]);
  };
  for (const m of text.matchAll(RANGE)) {
    const at = m.index ?? 0;
    const end = at + m[0].trimEnd().length;
    if (overlaps(at, end, taken)) continue;
    const monthly = m[8] !== undefined;
    const lo = amountOf(m[2], m[3], m[4], monthly);
    const hi = amountOf(m[5], m[6], m[7], monthly);
    // "$500k-700k": a unit said once covers both.
    if (hi.money || lo.money) lo.money = hi.money = true;
    if (m[7] && !m[4] && unitOf(m[7])?.fact === undefined && lo.value < 1000) lo.value *= unitOf(m[7])?.factor ?? 1;
    const before = specOf(m[1]);
    const after = specOf(m[9]);
    const between = /\b(between|from|entre)\b/i.test(m[0]);
    const spec = factFor(hi, before, after);
    // A bare "3-4" or "2 to 3" with nothing to say what it counts is no condition.
    if (!spec || (!between && !before && !after && !hi.money && !hi.unitFact)) continue;
    if (spec.fact === 'year' && (lo.value < 1800 || hi.value > 2100)) continue;
    const [a, b] = [Math.min(lo.value, hi.value), Math.max(lo.value, hi.value)];
    place(out, spec, { min: a, max: b }, monthly || RENT_NAMES.test(m[1] ?? m[9] ?? ''));
    take(at, end);
  }
  for (const m of text.matchAll(SINGLE)) {
    const at = m.index ?? 0;
    if (m[0].trim() === '' || !/\d/.test(m[0])) continue;
    let start = at;
    const end = at + m[0].trimEnd().length;
    if (overlaps(at, end, taken)) continue;
    const monthly = m[6] !== undefined || m[9] !== undefined;
    const a = amountOf(m[3], m[4], m[5], monthly);
    const before = specOf(m[1]);
    const after = specOf(m[8]);
    const pre = comparatorOf(m[2], [...YEAR_COMPARATORS, ...COMPARATORS]);
    const isYearWord = pre !== undefined && YEAR_COMPARATORS.includes(pre);
    let spec = factFor(a, before, after);
    if (isYearWord && a.value >= 1800 && a.value <= 2100 && !a.money) spec = FACTS.find((f) => f.fact === 'year');
    // A comparator and a bare amount: a price, as the answerer always read it ("under 3000" is a rent).
    if (!spec && pre && !a.money && !a.unitFact && a.value >= 100 && !isYearWord)
      spec = FACTS.find((f) => f.fact === 'price');
    if (!spec) continue;
    if (spec.fact === 'year' && (a.value < 1800 || a.value > 2100)) continue;
    // The name before was another fact's ("bedrooms, under 500k"): it is not part of this condition.
    if (before && before !== spec && m[1]) start = at + m[0].indexOf(m[2] ?? m[3] ?? m[4]);
    const post = comparatorOf(m[7], COMPARATORS) ?? comparatorOf(m[10], COMPARATORS);
    const comparator = pre ?? post;
    if (!comparator && !before && !after && !a.unitFact && !a.money) continue;
    const tol = m[11] ? ([m[11], m[12]] as [string, string?]) : undefined;
    const rentName = RENT_NAMES.test((m[1] ?? m[8] ?? '').trim());
    const bounds = boundsOf(spec, a.value, comparator?.bound, comparator?.strict ?? false, tol);
    place(out, spec, bounds, monthly || (spec.fact === 'price' && rentName));
    take(start, end);
  }
  readNegations(text, out, taken, features);
  out.text = blank(text, out.spans);
  return out;
}

const NEGATED_TYPE = new RegExp(String.raw`\b(?:${NEGATIONS})\s*(${alt(TYPES.map(([re]) => re))})\b`, 'gi');
const NOT_FOR = /\bnot (?:for )?(rent(?:als?)?|sale|to rent|to buy)\b/gi;

/** "not condos", "without a pool", "not for rent": conditions that rule something out. */
function readNegations(
  text: string,
  out: ConditionReading,
  taken: [number, number][],
  features: readonly { ask: RegExp; feature: Feature }[],
): void {
  const take = (at: number, end: number) => {
    out.spans.push([at, end]);
    taken.push([at, end]);
  };
  for (const m of text.matchAll(NEGATED_TYPE)) {
    const at = m.index ?? 0;
    if (overlaps(at, at + m[0].length, taken)) continue;
    const type = TYPES.find(([re]) => new RegExp(`^(?:${re})$`, 'i').test(m[1]))?.[1];
    if (!type) continue;
    out.filters.push({ kind: 'exclude', what: 'type', value: type });
    take(at, at + m[0].length);
  }
  for (const m of text.matchAll(NOT_FOR)) {
    const at = m.index ?? 0;
    if (overlaps(at, at + m[0].length, taken)) continue;
    out.criteria.saleType = /rent/i.test(m[1]) ? 'for_sale' : 'for_rent';
    take(at, at + m[0].length);
  }
  const negation = new RegExp(String.raw`\b(?:${NEGATIONS})\s*`, 'gi');
  for (const m of text.matchAll(negation)) {
    const at = m.index ?? 0;
    const from = at + m[0].length;
    if (overlaps(at, from, taken)) continue;
    // The feature must start right after the negation ("without a pool", "no garage").
    const rest = text.slice(from);
    for (const { ask, feature } of features) {
      const hit = new RegExp(ask.source, ask.flags.replace('g', '')).exec(rest);
      if (hit?.index !== 0) continue;
      out.filters.push({ kind: 'feature', feature, not: true });
      take(at, from + hit[0].length);
      break;
    }
  }
}

/** The text with the read ranges replaced by spaces, so positions stay where they were. */
export function blank(text: string, spans: readonly [number, number][]): string {
  const chars = text.split('');
  for (const [a, b] of spans) for (let i = a; i < b && i < chars.length; i++) chars[i] = ' ';
  return chars.join('');
}
