import { listingPrice } from '../listings/listing-data';
import { type Criteria, hasCriteria, type Intent, normalizeAddress, parseIntent, type Vocabulary } from './intent';
import { type FactReading, parseFacts } from './parse-facts';
import type { SortKind } from './phrases';
import type { FactFilter, NamedKey, Operation, Previous, Query, SetRef } from './query-model';
import { type GrammarContext, type GrammarReading, readGrammar } from './read-grammar';
import { beyondReference } from './relative';

/** What the parser reads a question against: the chatbot's names and the conversation so far. */
export interface ParseContext {
  vocab: Vocabulary;
  /** MLS numbers of the chatbot's listings, upper-cased: a number-like word is one only if listed. */
  mls: ReadonlySet<string>;
  /** House addresses as `vocab.streets` spells them ("3096 larimer st", "3096 larimer"). */
  houses: ReadonlySet<string>;
  /** The extra fields the listings carry ("Pool"), as features a question may name. */
  fieldNames: readonly string[];
  previous: Previous;
  /** The chatbot's listings (homes named by address as a reference) and every word of their texts. */
  all?: GrammarContext['all'];
  textWords?: GrammarContext['textWords'];
}

const COMPARE =
  /\b(compare|comparing|comparison|versus|vs\.?|side by side|difference between|compara[rn]?|comp[aá]rame)\b/i;
/** Words pointing back at the previous answer's homes. */
const THOSE =
  /\b(those|these|them|they|their|both|which one|which of|any of|all of|the ones|of the (ones|homes|listings)|esas?|estas?|ellas|cu[aá]l de)\b/i;
const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  '1st': 1,
  '2nd': 2,
  '3rd': 3,
  '4th': 4,
  '5th': 5,
  last: -1,
};
const COUNTS: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  '2': 2,
  '3': 3,
  '4': 4,
  '5': 5,
};
/** A comparative asked of named homes ranks them: "which one is cheaper / bigger / pricier?". */
const RANKS: Record<string, SortKind | undefined> = { cheaper: 'cheapest', larger: 'largest', pricier: 'priciest' };
/** "las dos primeras", "los tres últimos", "las primeras dos". */
const FIRST_N_ES =
  /\b(?:las|los)\s+(?:(dos|tres|cuatro|cinco|[2-5])\s+(primer[oa]s|[uú]ltim[oa]s)|(primer[oa]s|[uú]ltim[oa]s)\s+(dos|tres|cuatro|cinco|[2-5]))(?![\wáéíóú])/i;
const ORDINALS_ES: Record<string, number> = {
  primer: 1,
  segund: 2,
  tercer: 3,
  cuart: 4,
  quint: 5,
  últim: -1,
  ultim: -1,
};
const FIRST_N =
  /\b(?:the\s+)?(first|top|last)\s+(two|three|four|five|[2-5])\b(?!\s*(bed|bath|bd|ba|br|parking|sq|days))/i;
const NOUN =
  /\b(homes?|houses?|listings?|properties|property|apartments?|condos?|townhouses?|townhomes?|rentals?|places|viviendas?|casas?)\b/i;
const REFINE_START =
  /^\s*(only|just|but|now|instead|with|without|under|over|below|above|less than|more than|between|what about|how about|and|also|solo|s[oó]lo|y|pero)\b/i;

/** The query of a question: which listings (set), narrowed by what (criteria, filters), and what to say. */
export function parseQuery(question: string, ctx: ParseContext): Query {
  const g = readGrammar(question, ctx);
  const q = g.share ? shareQuery(g.share, ctx) : arithmetic(readQuery(g, ctx), g, ctx);
  const unknown = [...(q.notUnderstood ?? []), ...g.notUnderstood].filter((u, i, xs) => xs.indexOf(u) === i);
  return {
    ...q,
    ...(unknown.length > 0 ? { notUnderstood: unknown } : {}),
    ...(g.reference ? { reference: g.reference } : {}),
  };
}

/** "what share of the homes in Denver are condos?": the subject's homes, counted on the predicate. */
function shareQuery(share: NonNullable<GrammarReading['share']>, ctx: ParseContext): Query {
  const subject = parseQuery(share.subject, ctx);
  const said = share.predicate.replace(/^(are|is|were|was)\s+/i, '');
  const part = parseQuery(`homes ${said}`, { ...ctx, previous: { shown: [], list: [] } });
  const unknown = [...(subject.notUnderstood ?? []), ...(part.notUnderstood ?? [])];
  const set: SetRef = subject.set.kind === 'search' || subject.set.kind === 'named' ? subject.set : subject.set;
  return {
    ...subject,
    set,
    op: { kind: 'share', part: { criteria: part.own.criteria, filters: part.own.filters } },
    ...(unknown.length > 0 ? { notUnderstood: unknown } : {}),
  };
}

/** Differences, ratios and totals: the homes the question is about, with the arithmetic asked of them. */
function arithmetic(q: Query, g: GrammarReading, ctx: ParseContext): Query {
  const a = g.arithmetic;
  if (!a || q.op.kind === 'none') return q;
  if (a.kind === 'sum') {
    if (q.op.kind === 'aggregate' || q.op.kind === 'count') return q;
    return { ...q, op: { kind: 'aggregate', stat: 'sum', fact: a.fact } };
  }
  if (q.op.kind === 'compare' && !a.named && a.kind === 'difference') return q;
  let set = q.set;
  // Two homes named: the arithmetic is between them, whatever else the words suggested (a count, a rank).
  if (g.named.length >= 2) set = { kind: 'named', keys: g.named.map((mls) => ({ kind: 'mls', mls })) };
  // "how much cheaper is it than 4547 S Congress Ave?": the home of the conversation and the one named.
  const it = ctx.previous.shown[0];
  if (set.kind === 'named' && set.keys.length === 1 && it && /\b(it|this|that)\b/i.test(g.text)) {
    const itFirst = g.text.search(/\b(it|this|that)\b/i) < g.text.search(/\bthan\b|\band\b/i);
    const key: NamedKey = { kind: 'mls', mls: it.data.MLSNumber.toUpperCase() };
    set = { kind: 'named', keys: itFirst ? [key, ...set.keys] : [...set.keys, key] };
  }
  return { ...q, set, op: { kind: 'difference', fact: a.fact, ratio: a.kind === 'ratio' } };
}

function readQuery(g: GrammarReading, ctx: ParseContext): Query {
  const r = readQuestion(g.text, ctx, g);
  const { last, mine, facts } = r;
  // "and the median?" after an average: the same homes, the same figure, another statistic.
  if (facts.lonelyStat && last?.op.kind === 'aggregate' && !hasCriteria(mine) && facts.filters.length === 0)
    return { ...last, op: { ...last.op, stat: facts.lonelyStat } };
  const named = namedQuery(r, ctx);
  if (named) return named;
  if (r.intent.wantsAll) return { set: { kind: 'search' }, ...r.base, ...r.own, op: { kind: 'all' } };
  return previousQuery(r, ctx.previous) ?? beyondQuery(r, ctx.previous) ?? searchQuery(r);
}

/** A question read once: its facts and intent, and the conditions it brings and those in force. */
interface Reading {
  question: string;
  facts: FactReading;
  intent: Intent;
  last: Query | undefined;
  mine: Criteria;
  carried: Criteria;
  kept: FactFilter[];
  own: { criteria: Criteria; filters: FactFilter[] };
  /** What a follow-up keeps: the conditions in force, with the question's own changed. */
  inForce: { criteria: Criteria; filters: FactFilter[] };
  base: Pick<Query, 'asks' | 'own' | 'unknownPlace'>;
  compare: boolean;
  fresh: boolean;
  carry: boolean;
}

function readQuestion(question: string, ctx: ParseContext, g: GrammarReading): Reading {
  const read = parseFacts(question, ctx.fieldNames);
  const facts = { ...read, filters: [...g.filters, ...read.filters] };
  const intent = parseIntent(facts.rest, ctx.vocab);
  const last = ctx.previous.query;
  const mine = { ...intent.criteria, ...g.criteria };
  const carried = last?.criteria ?? {};
  const kept = last?.filters ?? [];
  const own = { criteria: mine, filters: facts.filters };
  const inForce = { criteria: merge(carried, mine), filters: mergeFilters(kept, facts.filters) };
  const place = intent.unknownPlace ? { unknownPlace: intent.unknownPlace } : {};
  const base = { asks: facts.asks, own, ...place };
  const compare = COMPARE.test(question);
  return {
    question,
    facts,
    intent,
    last,
    mine,
    carried,
    kept,
    own,
    inForce,
    base,
    compare,
    fresh: g.fresh,
    carry: g.carry,
  };
}

/** Homes named by MLS number, id or address: their details, facts or a comparison. */
function namedQuery(r: Reading, ctx: ParseContext): Query | undefined {
  const { intent, facts, compare } = r;
  const named = namedKeys(r.question, intent, ctx);
  if (named.length === 0 || !(compare || (!intent.count && !intent.sort && !facts.aggregate))) return undefined;
  const op: Operation = compare ? { kind: 'compare' } : facts.asks.length > 0 ? { kind: 'facts' } : { kind: 'details' };
  // An address named is the home, not a street to search: the conditions in force stay as they were.
  const { street: _street, ...rest } = r.mine;
  const criteria = merge(r.carried, rest);
  return {
    set: { kind: 'named', keys: named },
    ...r.base,
    own: { criteria: {}, filters: [] },
    criteria,
    filters: r.kept,
    op,
  };
}

/** "those", "the second one", "it": the homes of the previous answer. */
function previousQuery(r: Reading, prev: Previous): Query | undefined {
  const { question, intent, facts, mine } = r;
  const f = intent.followUp;
  const pick = picked(question, intent);
  const elsewhere = mine.city !== undefined && mine.city !== r.carried.city;
  const refersBack = !elsewhere && (pick !== undefined || THOSE.test(facts.rest) || f?.kind === 'it');
  if (!refersBack || !(prev.shown.length > 0 || prev.list.length > 0 || !hasCriteria(mine))) return undefined;
  const set: SetRef = pick ? { kind: 'previous', pick } : { kind: 'previous' };
  const detail = facts.asks.length > 0 ? 'facts' : 'details';
  let op = operation(question, intent, facts, r.compare, pick || f?.kind === 'it' ? detail : 'list');
  // "which one is bigger?" among the homes named: the biggest of them.
  const rank = f && /\b(which|cu[aá]l)\b/i.test(question) ? RANKS[f.kind] : undefined;
  if (rank && op.kind === 'list') op = { kind: 'superlative', sort: rank, top: 1 };
  return { set, ...r.base, ...r.inForce, op };
}

/** "anything cheaper / pricier / bigger?": the search in force, beyond what was shown. */
function beyondQuery(r: Reading, prev: Previous): Query | undefined {
  const f = r.intent.followUp;
  if (!f || !(f.kind === 'cheaper' || f.kind === 'pricier' || f.kind === 'larger')) return undefined;
  if (!(r.last || hasCriteria(r.mine))) return undefined;
  const ref = beyondReference(f.kind, prev);
  return {
    set: { kind: 'search' },
    ...r.base,
    criteria: beyond(r.inForce.criteria, f.kind, prev),
    filters: r.inForce.filters,
    op: { kind: 'beyond', direction: f.kind },
    ...(ref ? { reference: ref } : {}),
  };
}

/** A search: refining the one in force, or a new one. */
function searchQuery(r: Reading): Query {
  const { question, intent, facts, last } = r;
  const op = operation(question, intent, facts, r.compare, 'list');
  const mentionsFacts = hasCriteria(r.mine) || facts.filters.length > 0;
  // "the cheapest one", "how many?", "and the average?" with nothing of their own: about the search in force.
  const bare = !mentionsFacts && op.kind !== 'list' && op.kind !== 'facts' && !intent.wantsAll;
  const refines =
    !r.fresh &&
    last !== undefined &&
    (bare ||
      r.carry ||
      intent.continues ||
      REFINE_START.test(question) ||
      /\b(instead|only|en su lugar)\b/i.test(question) ||
      (mentionsFacts && !NOUN.test(question)));
  if (refines) {
    // "and in Miami?" after an average: the same statistic over the changed search.
    const again =
      intent.continues && op.kind === 'list' && last && ['aggregate', 'count', 'superlative'].includes(last.op.kind);
    return { set: { kind: 'search' }, ...r.base, ...r.inForce, op: again && last ? last.op : op };
  }
  // "does it have parking?" without "it" said: the homes of the last answer, if any.
  if (op.kind === 'facts' && !mentionsFacts) return { set: { kind: 'previous' }, ...r.base, ...r.inForce, op };
  const aboutListings = mentionsFacts || intent.aboutListings || op.kind !== 'list' || intent.unknownPlace;
  return { set: { kind: 'search' }, ...r.base, ...r.own, op: aboutListings ? op : { kind: 'none' } };
}

/** The operation a question asks for, `fallback` when it names none. */
function operation(
  question: string,
  intent: Intent,
  facts: FactReading,
  compare: boolean,
  fallback: 'list' | 'details' | 'facts',
): Operation {
  if (compare) return { kind: 'compare' };
  if (facts.aggregate) return { kind: 'aggregate', ...facts.aggregate };
  if (intent.sort) {
    // "which of those homes is the cheapest?" asks for one, whatever noun it uses.
    const one =
      /\b(is|es)\b/i.test(question) &&
      !/\b(are|son)\b|\b\d+\s+(cheapest|most|least|largest|smallest|newest|oldest)/i.test(question);
    return { kind: 'superlative', sort: intent.sort, top: one ? 1 : (intent.top ?? 1) };
  }
  if (intent.count) return { kind: 'count' };
  if (fallback === 'list' && facts.asks.length > 0 && facts.filters.length === 0) return { kind: 'facts' };
  return { kind: fallback };
}

/**
 * A new condition replaces the one of its kind and keeps the rest. A new place replaces the old place
 * (a street or neighborhood says its own city); a new sale type drops price bounds (a rent is not a price).
 */
export function merge(carried: Criteria, own: Criteria): Criteria {
  const out: Criteria = { ...carried };
  if (own.city || own.street || own.area) {
    delete out.city;
    delete out.street;
    delete out.area;
  }
  if ((own.saleType && own.saleType !== carried.saleType) || own.minPrice !== undefined || own.maxPrice !== undefined) {
    delete out.minPrice;
    delete out.maxPrice;
    delete out.around;
  }
  return { ...out, ...own };
}

/** Filters of a refinement: one on the same fact replaces the old one, others add. */
function mergeFilters(carried: readonly FactFilter[], own: readonly FactFilter[]): FactFilter[] {
  const key = (f: FactFilter): string => {
    if (f.kind === 'range') return `n:${f.fact}`;
    if (f.kind === 'feature') return `f:${f.feature.label}`;
    if (f.kind === 'exclude') return `x:${f.what}:${f.value}`;
    if (f.kind === 'other') return `o:${f.mls}`;
    return f.kind;
  };
  const replaced = new Set(own.map(key));
  return [...carried.filter((f) => !replaced.has(key(f))), ...own];
}

/** "anything cheaper?": below the least price the last answer showed (above the most, larger than the largest). */
function beyond(c: Criteria, kind: 'cheaper' | 'pricier' | 'larger', prev: Previous): Criteria {
  const prices = prev.shown.map((l) => listingPrice(l.data)).filter((v): v is number => v !== undefined);
  const out: Criteria = { ...c };
  if (kind === 'cheaper' && prices.length > 0) {
    out.maxPrice = Math.min(...prices) - 1;
    delete out.minPrice;
  }
  if (kind === 'pricier' && prices.length > 0) {
    out.minPrice = Math.max(...prices) + 1;
    delete out.maxPrice;
  }
  if (kind === 'larger' && prev.shown.length > 0) out.minArea = Math.max(...prev.shown.map((l) => l.data.BuildingArea));
  return out;
}

/** Positions named: "the first two", "the first and the third", "the second one", "number 2". */
function picked(question: string, intent: Intent): number[] | undefined {
  const n = FIRST_N.exec(question);
  if (n) {
    const k = COUNTS[n[2].toLowerCase()];
    const from = n[1].toLowerCase() === 'last' ? -k : 1;
    return Array.from({ length: k }, (_, i) => (from < 0 ? from + i : i + 1));
  }
  const es = FIRST_N_ES.exec(question);
  if (es) {
    const k = COUNTS[(es[1] ?? es[4]).toLowerCase()];
    const last = /[uú]ltim/i.test(es[2] ?? es[3]);
    return Array.from({ length: k }, (_, i) => (last ? i - k : i + 1));
  }
  const words = [...question.matchAll(/\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\b/gi)].map(
    (m) => ORDINAL_WORDS[m[1].toLowerCase()],
  );
  if (words.length > 1 && !/\bfirst[- ]time\b/i.test(question)) return words;
  const f = intent.followUp;
  if (f?.kind === 'ordinal') return [f.index];
  // "la segunda", "el primero", "la última": a Spanish position.
  const m = /\b(?:la|el|lo)\s+(primer|segund|tercer|cuart|quint|[uú]ltim)[oa]?(?![\wáéíóú])/i.exec(question);
  return m ? [ORDINALS_ES[m[1].toLowerCase()]] : undefined;
}

/** Listings named outright, in the question's order: MLS numbers, a listing id, house addresses. */
function namedKeys(question: string, intent: Intent, ctx: ParseContext): NamedKey[] {
  const found: { at: number; key: NamedKey }[] = [];
  for (const m of question.matchAll(/\b(?:mls\s*#?\s*:?\s*)?([a-z]{2,5}-?\d{4,}|\d{6,})\b/gi)) {
    const mls = m[1].toUpperCase();
    // A board-prefixed number the listings lack is still a listing asked for (to say it is not there);
    // a bare number may be a price.
    if (ctx.mls.has(mls) || /^[A-Z]/.test(mls)) found.push({ at: m.index ?? 0, key: { kind: 'mls', mls } });
  }
  if (intent.listingId !== undefined) found.push({ at: 0, key: { kind: 'id', id: intent.listingId } });
  // An address starts with its house number: try the few words after each number, longest first.
  const words = normalizeAddress(question).split(' ');
  for (let i = 0; i < words.length; i++) {
    if (!/^\d/.test(words[i])) continue;
    for (let n = Math.min(7, words.length - i); n >= 2; n--) {
      const street = words.slice(i, i + n).join(' ');
      if (!ctx.houses.has(street)) continue;
      // Addresses come after MLS numbers and ids of the same question, in their own order.
      found.push({ at: 10_000 + i, key: { kind: 'address', street } });
      i += n - 1;
      break;
    }
  }
  return found.sort((a, b) => a.at - b.at).map((x) => x.key);
}
