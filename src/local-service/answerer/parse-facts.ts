import type { Asked, FactFilter, Feature, NumericFact, Stat } from './query-model';

/** What the fact part of a question says: filters, facts asked, a statistic, and the rest of the text. */
export interface FactReading {
  filters: FactFilter[];
  asks: Asked[];
  aggregate?: { stat: Stat; fact: NumericFact };
  /** A statistic named about nothing ("and the median?"): the previous statistic's fact is meant. */
  lonelyStat?: Stat;
  /** The question without the spans read here, so their numbers are never read again as prices. */
  rest: string;
}

const NUM_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, a: 1, an: 1, una: 1, dos: 2 };
const num = (s: string): number => NUM_WORDS[s.toLowerCase()] ?? Number(s.replace(/,/g, ''));
const N = String.raw`(\d[\d,]*|one|two|three|four|five|a|an|una|dos)`;
const MORE = `(?:over|above|more than|at least|bigger than|larger than|greater than|newer than|m[aá]s de|al menos)`;
const LESS = `(?:under|below|less than|fewer than|at most|smaller than|no more than|up to|menos de|hasta)`;

export const FEATURES: { ask: RegExp; feature: Feature }[] = [
  {
    ask: /\b(pet[- ]?friendly|pets?|mascotas?)\b/i,
    feature: { label: 'pets', words: /\bpets?\b|\bmascotas?\b/i, field: /\b(pets?|pet policy|mascotas?)\b/i },
  },
  {
    ask: /\b(dogs?|perros?)\b/i,
    feature: { label: 'dogs', words: /\bdogs?\b|\bperros?\b/i, field: /\b(pets?|pet policy|mascotas?)\b/i },
  },
  {
    ask: /\b(cats?|gatos?)\b/i,
    feature: { label: 'cats', words: /\bcats?\b|\bgatos?\b/i, field: /\b(pets?|pet policy|mascotas?)\b/i },
  },
  { ask: /\bheat pumps?\b/i, feature: { label: 'a heat pump', words: /\bheat pumps?\b/i, field: /heat|calefacci/i } },
  {
    ask: /\bforced[- ]air\b/i,
    feature: { label: 'forced-air heating', words: /\bforced[- ]air\b/i, field: /heat|calefacci/i },
  },
  {
    ask: /\b(heating|heated|calefacci[oó]n)\b/i,
    feature: { label: 'heating', words: /heat/i, field: /heat|calefacci/i },
  },
  ...(
    [
      ['a pool', /\b(swimming )?pools?\b|\bpiscinas?\b/i],
      ['a yard', /\b(back|front)?yards?\b|\bjard[ií]n\b/i],
      ['a garden', /\bgardens?\b/i],
      ['water views', /\b(water|ocean|lake|bay|sea) views?\b|\bwaterfront\b/i],
      ['mountain views', /\bmountain views?\b/i],
      ['city views', /\b(city|skyline)( skyline)? views?\b/i],
      ['views', /\bviews?\b|\bvistas?\b/i],
      ['a balcony', /\bbalcon(y|ies)\b|\bbalc[oó]n\b/i],
      ['a patio', /\bpatios?\b/i],
      ['a terrace', /\bterraces?\b|\bterraza\b/i],
      ['a fireplace', /\bfireplaces?\b|\bchimenea\b/i],
      ['a garage', /\bgarages?\b/i],
      ['a gym', /\b(gym|fitness (center|room))\b/i],
      ['an elevator', /\b(elevators?|lifts?)\b/i],
      ['a doorman', /\b(doorman|concierge)\b/i],
      ['laundry', /\b(laundry|washer|dryer|in-unit w\/d)\b/i],
      ['air conditioning', /\b(air[- ]conditioning|a\/c|central air)\b/i],
      ['hardwood floors', /\bhardwood\b/i],
      ['a walk-in closet', /\bwalk-in closets?\b/i],
      ['an island kitchen', /\b(kitchen )?island\b/i],
      ['a courtyard', /\bcourtyards?\b/i],
      ['a basement', /\bbasements?\b/i],
      ['a deck', /\bdecks?\b/i],
      ['a rooftop', /\brooftops?\b|\broof deck\b/i],
      ['high ceilings', /\bhigh ceilings?\b/i],
      ['an open-plan kitchen', /\bopen[- ]plan\b/i],
      ['a renovation', /\brenovated|remodell?ed\b/i],
    ] as const
  ).map(([label, words]) => ({ ask: words, feature: { label, words } })),
];

/** Facts asked about without a number: "does it have parking?", "what year was it built?". */
const NUMERIC_ASKS: [RegExp, NumericFact][] = [
  [/\b(parking|car spaces?|aparcamiento|estacionamiento)\b/i, 'parking'],
  [/\b(year built|when was (it|this|that) built|how old|what year|built in what year|a[nñ]o de construcci)/i, 'year'],
  [/\bper (square )?(foot|feet|sq\.? ?ft)\b|\/\s*sq\.? ?ft|\bppsf\b/i, 'ppsf'],
  [/\b(lot size|lot area|size of the lot|how big is the lot|parcela)\b/i, 'lot'],
  [/\b(square footage|how big|living (area|space)|floor area|how many square feet|superficie)\b/i, 'area'],
  [
    /\b(days on (the )?market|how long (has it been|has .* been|on the market)|listed for how long|how many days)\b/i,
    'dom',
  ],
  [/\b(hoa|homeowners'? association|gastos de comunidad)\b/i, 'hoa'],
];

const STATS: [RegExp, Stat][] = [
  [/\b(average|avg|mean|typical|promedio|media|medio)\b/i, 'average'],
  [/\b(median|mediana)\b/i, 'median'],
  [/\b(minimum|min|m[ií]nim[oa])\b/i, 'min'],
  [/\b(maximum|max|m[aá]xim[oa])\b/i, 'max'],
];

/** "the most parking", "longest on the market": a highest or lowest figure, said with the homes holding it. */
const EXTREMES: [RegExp, Stat, NumericFact][] = [
  [/\b(most|greatest number of) (parking|car spaces|garage spaces)/i, 'max', 'parking'],
  [/\b(fewest|least) (parking|car spaces)/i, 'min', 'parking'],
  [/\b(longest|most days) on (the )?market\b|\bon the market (the )?longest\b/i, 'max', 'dom'],
  [/\b(shortest|fewest days) on (the )?market\b|\bnewest on (the )?market\b/i, 'min', 'dom'],
  [/\b(largest|biggest) lot\b/i, 'max', 'lot'],
  [/\bsmallest lot\b/i, 'min', 'lot'],
  [/\b(lowest|cheapest|best) price per (square foot|sq\.? ?ft)\b/i, 'min', 'ppsf'],
  [/\bhighest price per (square foot|sq\.? ?ft)\b/i, 'max', 'ppsf'],
  [/\b(lowest|cheapest|smallest) hoa\b/i, 'min', 'hoa'],
  [/\b(highest|biggest|largest) hoa\b/i, 'max', 'hoa'],
];

/** A statistic word counts only about something a listing holds ("what do you mean?" is not an average). */
const STAT_SUBJECT =
  /\b(prices?|rents?|costs?|asking|area|size|square|days|lot|hoa|parking|homes?|houses|listings?|properties|rentals|condos|apartments|those|them|these|precios?|alquiler|viviendas)\b/i;

/** The fact a statistic is over: the first named, price when none is. */
const STAT_FACTS: [RegExp, NumericFact][] = [
  [/\bper (square )?(foot|feet|sq\.? ?ft)\b|\/\s*sq\.? ?ft|\bppsf\b|precio por (pie|metro)/i, 'ppsf'],
  [/\b(days on (the )?market|dom|time on (the )?market|d[ií]as en el mercado)\b/i, 'dom'],
  [/\blot\b|\bparcela\b/i, 'lot'],
  [/\b(area|size|square footage|square feet|sq\.? ?ft|living space|superficie|tama[nñ]o)\b/i, 'area'],
  [/\b(year built|age|a[nñ]o)\b/i, 'year'],
  [/\b(parking)\b/i, 'parking'],
  [/\b(hoa)\b/i, 'hoa'],
];

/** A sentence that narrows a set ("which ...", "homes with ...") rather than asks a fact of one. */
const FILTER_CUE =
  /\b(which|any|anything|only|just|with|without|homes|houses|listings|properties|rentals|apartments|condos|ones|show|find|of (them|those|these)|cu[aá]les|alguna|viviendas|con|sin|de (ellas|esas|estas))\b/i;
const ASK_START =
  /^\s*¿?\s*(does|do|did|is|are|has|have|what|what's|how|tell me|and|tiene|tienen|cu[aá]nt|qu[eé]|permite)\b/i;

interface Span {
  re: RegExp;
  read: (m: RegExpExecArray) => FactFilter | undefined;
}

/** "more than 2" of a counted fact is 3 or more, "under 30 days" 29 at most; "at least", "up to" include the bound. */
const strict = (word: string): number =>
  /^(over|above|more than|greater than|under|below|less than|fewer than|m[aá]s de|menos de)$/i.test(word.trim())
    ? 1
    : 0;

const year = (s: string) => {
  const y = Number(s);
  return y >= 1800 && y <= 2100 ? y : undefined;
};

const SPANS: Span[] = [
  {
    re: /\b(?:built|constructed|year built)?\s*between\s+(\d{4})\s+(?:and|to|y)\s+(\d{4})\b/i,
    read: (m) => {
      const [a, b] = [year(m[1]), year(m[2])];
      return a && b ? { kind: 'range', fact: 'year', min: Math.min(a, b), max: Math.max(a, b) } : undefined;
    },
  },
  {
    re: /\b(?:built|constructed|year built)?\s*(after|since|newer than|later than|despu[eé]s de|desde)\s+(\d{4})\b/i,
    read: (m) => {
      const y = year(m[2]);
      return y ? { kind: 'range', fact: 'year', min: /since|desde/i.test(m[1]) ? y : y + 1 } : undefined;
    },
  },
  {
    re: /\b(?:built|constructed|year built)?\s*(before|older than|prior to|antes de)\s+(\d{4})\b/i,
    read: (m) => {
      const y = year(m[2]);
      return y ? { kind: 'range', fact: 'year', max: y - 1 } : undefined;
    },
  },
  {
    re: /\bbuilt in (\d{4})\b/i,
    read: (m) => {
      const y = year(m[1]);
      return y ? { kind: 'range', fact: 'year', min: y, max: y } : undefined;
    },
  },
  {
    re: new RegExp(
      String.raw`\blots?(?: size| area)?(?: of)?\s*(${MORE}|${LESS})?\s*${N}\s*(acres?|sq\.? ?ft|square feet)`,
      'i',
    ),
    read: (m) => {
      const v = num(m[2]) * (/acre/i.test(m[3]) ? 43_560 : 1);
      return { kind: 'range', fact: 'lot', ...(m[1] && new RegExp(LESS, 'i').test(m[1]) ? { max: v } : { min: v }) };
    },
  },
  {
    re: new RegExp(
      String.raw`(${MORE}|${LESS})?\s*\$?\s*(\d[\d,]*)\s*(\+|or more|or larger|or bigger|or less|or smaller)?\s*(?:sq\.? ?ft|square (?:feet|foot)|sqft|sf|pies|ft2|ft²)\b`,
      'i',
    ),
    read: (m) => {
      const v = num(m[2]);
      const less = (m[1] && new RegExp(LESS, 'i').test(m[1])) || /less|smaller/i.test(m[3] ?? '');
      return { kind: 'range', fact: 'area', ...(less ? { max: v } : { min: v }) };
    },
  },
  {
    re: new RegExp(
      String.raw`(${MORE}|${LESS}|within)?\s*(?:the (?:last|past)\s+)?(\d+)\s*\+?\s*days?(?: on (?:the )?market)?`,
      'i',
    ),
    read: (m) => {
      const v = Number(m[2]);
      if (m[1] && new RegExp(MORE, 'i').test(m[1])) return { kind: 'range', fact: 'dom', min: v + strict(m[1]) };
      return { kind: 'range', fact: 'dom', max: v - strict(m[1] ?? '') };
    },
  },
  {
    re: new RegExp(String.raw`\bhoa(?: fees?| dues)?\s*(?:of\s*)?(${LESS}|${MORE})\s*\$?\s*(\d[\d,]*)`, 'i'),
    read: (m) => ({
      kind: 'range',
      fact: 'hoa',
      ...(new RegExp(MORE, 'i').test(m[1]) ? { min: num(m[2]) } : { max: num(m[2]) }),
    }),
  },
  { re: /\b(no|without( an?)?|sin)\s+hoa\b/i, read: () => ({ kind: 'range', fact: 'hoa', max: 0 }) },
  {
    re: new RegExp(
      String.raw`(${MORE}|${LESS})?\s*\b${N}\s*(\+|or more)?\s*(?:parking|car|garage|coches?|plazas? de (?:aparcamiento|garaje))(?:\s*(?:spots?|spaces?|stalls?))?`,
      'i',
    ),
    read: (m) => {
      const v = num(m[2]);
      const less = m[1] && new RegExp(LESS, 'i').test(m[1]);
      return {
        kind: 'range',
        fact: 'parking',
        ...(less ? { max: v - strict(m[1]) } : { min: v + strict(m[1] ?? '') }),
      };
    },
  },
  { re: /\b(no|without|sin)\s+(parking|aparcamiento)\b/i, read: () => ({ kind: 'range', fact: 'parking', max: 0 }) },
];

function sentences(q: string): string[] {
  return q.split(/(?<=[?.!])\s+/).filter((s) => s.trim() !== '');
}

/** Reads the facts a question filters on, asks about, or takes a statistic of. */
export function parseFacts(question: string, fieldNames: readonly string[] = []): FactReading {
  const filters: FactFilter[] = [];
  const asks: Asked[] = [];
  const restParts: string[] = [];
  const stat = STAT_SUBJECT.test(question) ? STATS.find(([re]) => re.test(question))?.[1] : undefined;
  for (const sentence of sentences(question)) {
    const asking = ASK_START.test(sentence) && !FILTER_CUE.test(sentence) && !stat;
    let rest = sentence;
    for (const span of SPANS) {
      const m = span.re.exec(rest);
      if (!m || m[0].trim() === '') continue;
      const f = span.read(m);
      if (!f) continue;
      filters.push(f);
      rest = rest.replace(m[0], ' ');
    }
    const features = [...FEATURES, ...extraFields(fieldNames)].filter((x) => x.ask.test(rest));
    // A kind of pet or heating said is more precise than the general word.
    const precise = features.filter(
      (x) => !(x.feature.label === 'pets' && features.some((y) => /dogs|cats/.test(y.feature.label))),
    );
    const seen = new Set<string>();
    for (const { feature } of precise) {
      if (seen.has(feature.label) || (feature.label === 'views' && [...seen].some((l) => l.endsWith('views'))))
        continue;
      if (feature.label === 'heating' && precise.some((x) => x.feature.label !== 'heating' && x.feature.field))
        continue;
      seen.add(feature.label);
      if (asking) asks.push({ kind: 'feature', feature });
      else filters.push({ kind: 'feature', feature });
    }
    if (asking) {
      for (const [re, fact] of NUMERIC_ASKS)
        if (re.test(rest) && !asks.some((a) => a.kind === 'number' && a.fact === fact))
          asks.push({ kind: 'number', fact });
    } else if (
      /\b(with|has|have|having|con|tiene|tienen)\s+(a\s+)?(parking|garage|aparcamiento|garaje)\b/i.test(rest) &&
      !filters.some((f) => f.kind === 'range' && f.fact === 'parking')
    )
      filters.push({ kind: 'range', fact: 'parking', min: 1 });
    restParts.push(rest);
  }
  const extreme = EXTREMES.find(([re]) => re.test(question));
  const aggregate = stat
    ? { stat, fact: STAT_FACTS.find(([re]) => re.test(question))?.[1] ?? 'price' }
    : extreme
      ? { stat: extreme[1], fact: extreme[2] }
      : undefined;
  const lonely = !stat && !extreme ? STATS.find(([re]) => re.test(question))?.[1] : undefined;
  return {
    filters,
    asks,
    ...(aggregate ? { aggregate } : {}),
    ...(lonely ? { lonelyStat: lonely } : {}),
    rest: restParts.join(' '),
  };
}

/**
 * The chatbot's own extra fields ("Waterfront") as features a question can name: the field is the
 * feature, so its value says yes or no. A field a built-in feature already reads ("Pool") is left to it.
 */
function extraFields(names: readonly string[]): { ask: RegExp; feature: Feature }[] {
  return names
    .map((n) => n.trim())
    .filter((n) => n.length > 2 && !/^(neighbou?rhood|mascotas|calefacci[oó]n)$/i.test(n))
    .filter((n) => !FEATURES.some((x) => x.feature.words.test(n) || x.feature.field?.test(n)))
    .map((n) => {
      const words = new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
      return { ask: words, feature: { label: n.toLowerCase(), words } };
    });
}

/** The patterns this module reads (coverage.ts checks a question's words against them). */
export const FACT_PATTERNS: readonly RegExp[] = [
  ...NUMERIC_ASKS.map(([re]) => re),
  ...STATS.map(([re]) => re),
  ...EXTREMES.map(([re]) => re),
  ...STAT_FACTS.map(([re]) => re),
  ...SPANS.map((s) => s.re),
  /\b(with|has|have|having|con|tiene|tienen)\s+(a\s+)?(parking|garage|aparcamiento|garaje)\b/i,
];
