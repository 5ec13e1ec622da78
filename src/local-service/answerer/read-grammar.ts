import type { StoredListing } from '../listings/listings-repo';
import { coverage } from './coverage';
import type { Criteria, Vocabulary } from './intent';
import { numbersToDigits } from './numbers';
import { FEATURES } from './parse-facts';
import type { FactFilter, NumericFact, Previous } from './query-model';
import { blank, readConditions } from './read-conditions';
import { namedSpans, readRelatives } from './relative';

/**
 * The first reading of a question: numbers in words made digits, the homes it names found, the
 * arithmetic it asks for, the conditions relative to the conversation and the conditions of the
 * grammar read and blanked, and what is left that nothing understood. The pattern readers of
 * parse-query.ts read the blanked text after it.
 */
export interface GrammarReading {
  /** The question with digits for number words and the conditions read here blanked. */
  text: string;
  criteria: Criteria;
  filters: FactFilter[];
  reference?: string;
  /** `named`: the question says which fact (else "the difference between A and B" is a comparison). */
  arithmetic?: { kind: 'difference' | 'ratio' | 'sum'; fact: NumericFact; named: boolean };
  /** "what share of <subject> <predicate>": the two halves, as digits. */
  share?: { subject: string; predicate: string };
  notUnderstood: string[];
  /** MLS numbers of the homes the question names, in its order. */
  named: string[];
  /** A relative condition named its own reference: a new search. */
  fresh: boolean;
  carry: boolean;
}

export interface GrammarContext {
  vocab: Vocabulary;
  houses: ReadonlySet<string>;
  fieldNames: readonly string[];
  previous: Previous;
  all?: readonly StoredListing[];
  textWords?: ReadonlySet<string>;
}

const DIFFERENCE =
  /\b(difference|differ|gap|spread|how much (?:more|less|cheaper|bigger|larger|smaller|pricier|more expensive|higher|lower|newer|older|longer)|how many (?:more|fewer|extra)|how (?:many years|much) (?:newer|older|apart)|how far apart)\b/i;
const RATIO =
  /\b(ratio|how many times|times (?:more|bigger|larger|as (?:much|big|large|expensive|costly))|by what percent(?:age)?|what percent(?:age)? (?:more|less|bigger|smaller|cheaper|higher|lower|larger))\b/i;
const SUM = /\b(total|combined|sum|altogether|put together|all together)\b/i;
const SHARE =
  /\b(?:what|which)\s+(?:share|percent(?:age)?|fraction|proportion|portion|part|%)\s+of\s+(.+?)\s+((?:are|is|have|has|allow|allows|permit|permits|accept|accepts|come with|comes with|cost|costs|sit|sits|were|was|offer|offers|include|includes)\b.*)$/i;

/** The fact an arithmetic question is about, the first named; price when none is. */
const ARITH_FACTS: [RegExp, NumericFact][] = [
  [/\bper (?:square )?(?:foot|feet|sq\.? ?ft)\b|\bpsf\b|\bppsf\b/i, 'ppsf'],
  [/\bhoa\b/i, 'hoa'],
  [/\blots?\b|\bland\b/i, 'lot'],
  [/\bbed(?:room)?s?\b/i, 'beds'],
  [/\bbath(?:room)?s?\b/i, 'baths'],
  [/\bparking\b/i, 'parking'],
  [/\bdays\b|\bon the market\b|\blonger\b/i, 'dom'],
  [/\b(newer|older|years? built|age|years apart|how old)\b/i, 'year'],
  [/\b(size|area|square|sq\.? ?ft|sqft|bigger|larger|smaller|space|footage)\b/i, 'area'],
];

export function readGrammar(question: string, ctx: GrammarContext): GrammarReading {
  const text = numbersToDigits(question);
  const all = ctx.all ?? [...new Set([...ctx.previous.shown, ...ctx.previous.list])];
  const named = namedSpans(text, [...ctx.houses], all);
  const protectedRanges = named.map((n): [number, number] => [n.at, n.end]);
  const zips = zipsIn(text, all, protectedRanges);
  protectedRanges.push(...zips.spans);
  const share = SHARE.exec(text);
  const arithmetic = arithmeticOf(text);
  // "how much bigger is A than B" is arithmetic between two homes, not a search for bigger homes.
  const rel = arithmetic
    ? { criteria: {}, filters: [], spans: [] as [number, number][] }
    : readRelatives(text, named, ctx.previous, protectedRanges);
  const cond = readConditions(text, [...protectedRanges, ...rel.spans], FEATURES);
  const spans = [...rel.spans, ...cond.spans];
  const names = [...ctx.vocab.cities, ...ctx.vocab.areas, ...ctx.vocab.streets, ...ctx.fieldNames];
  const cov = coverage(text, [...spans, ...protectedRanges], [], names, ctx.textWords ?? new Set());
  const filters: FactFilter[] = [...rel.filters, ...cond.filters, ...zips.filters];
  for (const t of cov.textFilters) {
    filters.push({ kind: 'feature', feature: t.feature, ...(t.not ? { not: true } : {}) });
    spans.push(t.span);
  }
  return {
    text: blank(text, spans),
    criteria: { ...cond.criteria, ...rel.criteria },
    filters,
    ...(rel.reference ? { reference: rel.reference } : {}),
    ...(arithmetic ? { arithmetic } : {}),
    ...(share ? { share: { subject: share[1], predicate: share[2] } } : {}),
    notUnderstood: cov.unknown,
    named: [...new Set(named.map((n) => n.listing.data.MLSNumber.toUpperCase()))],
    fresh: 'fresh' in rel && rel.fresh === true,
    carry: 'carry' in rel && rel.carry === true,
  };
}

/** "in 80205", "zip code 98103": a ZIP code the listings have (a number that is no amount). */
function zipsIn(
  text: string,
  all: readonly StoredListing[],
  taken: readonly [number, number][],
): { filters: FactFilter[]; spans: [number, number][] } {
  const known = new Set(all.map((l) => l.data.ZIP ?? '').filter((z) => z !== ''));
  const out: { filters: FactFilter[]; spans: [number, number][] } = { filters: [], spans: [] };
  for (const m of text.matchAll(/\b(?:(?:zip|zip code|postal code|postcode)\s*#?:?\s*)?(\d{5})\b(?![\d,.])/gi)) {
    const at = m.index ?? 0;
    if (!known.has(m[1]) || taken.some(([a, b]) => at < b && at + m[0].length > a)) continue;
    out.filters.push({ kind: 'zip', zip: m[1] });
    out.spans.push([at, at + m[0].length]);
  }
  return out;
}

function arithmeticOf(text: string): GrammarReading['arithmetic'] {
  const kind = RATIO.test(text) ? 'ratio' : DIFFERENCE.test(text) ? 'difference' : SUM.test(text) ? 'sum' : undefined;
  if (!kind) return undefined;
  // "how much more expensive": the price, whatever else "more" might count.
  const pricey = /\b(cheaper|pricier|more expensive|less expensive|cost|costs|costlier|price|rent)\b/i.test(text);
  const other = ARITH_FACTS.find(([re]) => re.test(text))?.[1];
  const fact =
    pricey && !/\bper (?:square )?(?:foot|feet|sq)|\bpsf\b|\bhoa\b/i.test(text) ? 'price' : (other ?? 'price');
  return { kind, fact, named: pricey || other !== undefined };
}
