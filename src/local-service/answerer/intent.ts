import type { ListingInput, SaleType } from '../../service/schemas';

type ListingStatus = ListingInput['Status'];
import { ADDRESS_SUFFIXES } from './address-words';
import type { SortKind } from './phrases';

/** What a question narrows the listings to; every member narrows further. */
export interface Criteria {
  city?: string;
  saleType?: SaleType;
  minPrice?: number;
  maxPrice?: number;
  minBedrooms?: number;
  minBathrooms?: number;
  /** Compared case-insensitively with PropertyType ("House", "Condo" ...). */
  propertyType?: string;
  status?: ListingStatus;
  /** A street as the listings spell it, normalised ("larimer st"). */
  street?: string;
  /** A neighborhood as the listings spell it ("Capitol Hill"). */
  area?: string;
  /** Strictly larger than this building area (follow-up "anything bigger?"). */
  minArea?: number;
  /** "around $800k": the figure and tolerance the price bounds came from (said in the answer). */
  around?: { value: number; tolerance: string };
}

export type FollowUp =
  | { kind: 'ordinal'; index: number }
  | { kind: 'it' }
  | { kind: 'cheaper' }
  | { kind: 'pricier' }
  | { kind: 'larger' };

/** What a question asks for, as far as plain patterns can tell. */
export interface Intent {
  greeting: boolean;
  /** "thank you", "bye". */
  thanks: boolean;
  criteria: Criteria;
  /** MLS-number-looking tokens, upper-cased. */
  mlsCandidates: string[];
  /** "listing 7", "listing id 7". */
  listingId?: number;
  /** A place named after "in" that is none of the chatbot's cities. */
  unknownPlace?: string;
  sort?: SortKind;
  /** How many the superlative asks for ("the 3 cheapest"); 1 for "the cheapest". */
  top?: number;
  count: boolean;
  followUp?: FollowUp;
  /** Starts like a continuation ("and for rent?", "what about Denver?"): the previous criteria carry over. */
  continues: boolean;
  /** The question is about listings in general ("what homes do you have?"). */
  aboutListings: boolean;
  /** "all listings", "every listing", "long answer": the long, paragraph-per-listing answer. */
  wantsAll: boolean;
  contact: boolean;
  privacy: boolean;
}

/** What the answerer knows of the chatbot's listings, to read names in a question. */
export interface Vocabulary {
  cities: readonly string[];
  /** Normalised street names ("larimer st") and full addresses ("3096 larimer st"). */
  /** Longest first, so "3096 larimer st" is found before "larimer st". */
  streets: readonly string[];
  areas: readonly string[];
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const ORDINALS: Record<string, number> = {
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
  sixth: 6,
  '6th': 6,
  seventh: 7,
  '7th': 7,
  eighth: 8,
  '8th': 8,
  ninth: 9,
  '9th': 9,
  tenth: 10,
  '10th': 10,
};

/** Trigger words of the long answer (documented: the bridge's tests use them to get a long answer). */
export const LONG_ANSWER_PATTERN = /\b(long answer|all (the )?(listings|homes|properties)|every listing)\b/i;

const GREETING =
  /^\s*(hi|hello|hey|howdy|hiya|greetings|good (morning|afternoon|evening)|yo|hola|buenos d[ií]as|buenas)\b/i;
/** Asking what the assistant is or does: its welcome message says it. */
const ABOUT_YOU =
  /\b(what can you do|what do you do|who are you|what are you|how can you help|what can you help( me)? with|qu[eé] puedes hacer|qui[eé]n eres)\b/i;
/** Thanks or a goodbye: nothing to look up, nothing to hand to a person. */
const THANKS =
  /^\s*(thanks?( you)?|thx|ty|great,? thanks?|ok(ay)?,? thanks?|bye|goodbye|gracias|adi[oó]s)\b[\s!.,]*(a lot|so much|very much)?[\s!.]*$/i;
const RENT = /\b(rent|rents|rental|rentals|renting|lease|leasing|for[_ ]rent|tenant|alquiler|alquilar|arriendo)\b/i;
const MONTHLY = /\b(a|per|each|every|\/)\s*(month|mo)\b|\/\s*mo(nth)?\b|\bmonthly\b|\bal mes\b|\bmensual/i;
const SALE = /\b(buy|buying|purchase|purchasing|for[_ ]sale|on sale|sell|selling|own|venta|comprar)\b/i;
const LISTING_WORDS =
  /\b(listings?|homes?|houses?|properties|property|apartments?|condos?|townhouses?|townhomes?|places?|available|bedrooms?|beds?|baths?|bathrooms?|price[sd]?|cost|costs|rent|cheap(est)?|afford(able)?|mls|viviendas?|casas?|pisos?|apartamentos?)\b/i;
const BEDS =
  /\b(\d+|one|two|three|four|five|six|seven)\s*\+?\s*-?\s*(bed(room)?s?|br|bd|bdr|habitaci[oó]n(es)?|dormitorios?)\b/i;
const BATHS = /\b(\d+(?:\.5)?|one|two|three|four|five)\s*\+?\s*-?\s*(bath(room)?s?|ba|baños?)\b/i;
/** An amount: "3000", "3,000", "$1.2M", "500k", "1.5 million". */
const AMT = String.raw`\$?\s*(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|m|mm|million|millones|thousand|grand)?\b`;
/** Numbers that count rooms, areas or years are not prices. */
const NOT_PRICE = String.raw`(?!\s*\+?\s*-?\s*(bed|bd|br|bath|ba\b|bedroom|bathroom|car|parking|sq|square|feet|ft|m2|year|day|story|stories|habitaci|baño))`;
const BETWEEN = new RegExp(
  String.raw`\b(?:between|from|entre|de)\s+${AMT}\s*(?:and|to|-|–|y|a)\s*${AMT}${NOT_PRICE}`,
  'i',
);
const RANGE = /\$\s*(\d[\d,.]*)\s*(k|m|million)?\s*(?:-|–|to)\s*\$?\s*(\d[\d,.]*)\s*(k|m|million)?\b/i;
const MAX_PRICE = new RegExp(
  String.raw`(?:\b(?:under|below|less than|at most|up to|max(?:imum)?|cheaper than|no more than|within|budget(?: of| is)?|menos de|hasta)|<)\s*${AMT}${NOT_PRICE}`,
  'i',
);
const MIN_PRICE = new RegExp(
  String.raw`(?:\b(?:over|above|more than|at least|min(?:imum)?|starting at|from|m[aá]s de|desde)|>)\s*${AMT}${NOT_PRICE}`,
  'i',
);
const AROUND = new RegExp(
  String.raw`\b(?:around|about|approximately|roughly|near|close to|alrededor de)\s*${AMT}${NOT_PRICE}`,
  'i',
);
const MLS = /\b(?:mls\s*#?\s*:?\s*)?([a-z]{2,5}-?\d{4,}|\d{6,})\b/gi;
const LISTING_ID = /\b(?:listing|anuncio)\s*(?:id\s*)?(?:#|no\.?|number)?\s*(\d{1,9})\b(?!\s*(bed|bath|bd|ba|br))/i;
const ID_ALONE = /\bid\s*#?\s*:?\s*(\d{1,9})\b/i;

const TYPES: [RegExp, string][] = [
  [/\b(townhouses?|townhomes?|row ?houses?)\b/i, 'Townhouse'],
  [/\b(condos?|condominiums?)\b/i, 'Condo'],
  [/\b(apartments?|apts?|flats?|apartamentos?|pisos?)\b/i, 'Apartment'],
  [/\b(?<!open )(houses?|single[- ]family|casas?)\b/i, 'House'],
];

const SORTS: [RegExp, SortKind][] = [
  [
    /\b(cheapest|least expensive|lowest[- ]priced?|most affordable|lowest price|m[aá]s barat[ao]s?|m[aá]s econ[oó]mic[ao]s?)\b/i,
    'cheapest',
  ],
  [/\b(most expensive|priciest|highest[- ]priced?|highest price|m[aá]s car[ao]s?)\b/i, 'priciest'],
  [/\b(largest|biggest|most space|most square|roomiest|m[aá]s grandes?)\b/i, 'largest'],
  [/\b(smallest|tiniest|m[aá]s peque[nñ]as?)\b/i, 'smallest'],
  [
    /\b(newest|latest|most recent|just listed)\b.*\b(listed|listings?|on the market|added)\b|\b(recently listed|just listed|newest listings?|latest listings?)\b/i,
    'recent',
  ],
  [/\b(newest|most recently built|newer|m[aá]s nuev[ao]s?)\b/i, 'newest'],
  [/\b(oldest|m[aá]s antigu[ao]s?)\b/i, 'oldest'],
];

/** Words that follow "in" without being a place. */
const NOT_PLACES = new Set([
  'english',
  'spanish',
  'french',
  'german',
  'person',
  'total',
  'detail',
  'details',
  'general',
  'a',
  'the',
  'my',
  'your',
  'our',
]);

function amount(num: string, unit: string | undefined): number {
  const n = Number(num.replace(/,/g, ''));
  const u = (unit ?? '').toLowerCase();
  if (u === 'k' || u === 'thousand' || u === 'grand') return n * 1_000;
  if (u === 'm' || u === 'mm' || u === 'million' || u === 'millones') return n * 1_000_000;
  return n;
}

function count(word: string): number {
  return NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "3096 Larimer Street," -> "3096 larimer st": the same spelling for questions and addresses. */
export function normalizeAddress(s: string): string {
  return s
    .toLowerCase()
    .replace(/[.,#?!;:()"']/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => ADDRESS_SUFFIXES[w] ?? w)
    .join(' ');
}

function findName(q: string, names: readonly string[]): string | undefined {
  // Longest names first: "West Palm Beach" before "Palm Beach".
  for (const name of [...names].sort((a, b) => b.length - a.length)) {
    if (name.trim() !== '' && new RegExp(`\\b${escapeRe(name)}\\b`, 'i').test(q)) return name;
  }
  return undefined;
}

function parseFollowUp(q: string): FollowUp | undefined {
  const ord =
    /\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|4th|5th|6th|7th|8th|9th|10th|last)\b(?:\s+(?:one|listing|home|house|property|place|condo|apartment|option))?/i.exec(
      q,
    );
  if (ord && !/\bfirst[- ]time\b/i.test(q))
    return { kind: 'ordinal', index: ord[1].toLowerCase() === 'last' ? -1 : ORDINALS[ord[1].toLowerCase()] };
  const num = /\b(?:number|no\.?|#)\s*(\d{1,2})\b(?!\s*(bed|bath))/i.exec(q);
  if (num) return { kind: 'ordinal', index: Number(num[1]) };
  if (
    /\b(anything|something|any|one|ones|options?)?\s*(cheaper|less expensive|lower[- ]priced|m[aá]s barat[ao]s?)\b/i.test(
      q,
    )
  )
    return { kind: 'cheaper' };
  if (/\b(bigger|larger|more space|roomier|m[aá]s grandes?)\b/i.test(q)) return { kind: 'larger' };
  if (/\b(pricier|more expensive|higher[- ]priced|m[aá]s car[ao]s?)\b/i.test(q)) return { kind: 'pricier' };
  if (
    /\b(tell me more|more (details|info|information)|about (it|that|this)|that one|this one|details|describe it|is it|does it|has it|how much is it|where is it|m[aá]s detalles)\b/i.test(
      q,
    )
  ) {
    return { kind: 'it' };
  }
  return undefined;
}

/** Reads the question against the chatbot's own names (so any city it has listings in is known). */
export function parseIntent(question: string, vocab: Vocabulary): Intent {
  const q = question.trim();
  const criteria = parseCriteria(q, vocab);
  const sorted = parseSort(q);
  let unknownPlace: string | undefined;
  if (!criteria.city && !criteria.area) {
    const m = /\b(?:in|near|around|en)\s+([A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)?)/.exec(q);
    if (m && !NOT_PLACES.has(m[1].toLowerCase()) && !/^\d/.test(m[1])) unknownPlace = m[1];
  }
  const idMatch = LISTING_ID.exec(q) ?? ID_ALONE.exec(q);
  const followUp = parseFollowUp(q);
  return {
    greeting: GREETING.test(q) || ABOUT_YOU.test(q),
    thanks: THANKS.test(q),
    criteria: dropUndefined(criteria),
    mlsCandidates: [...q.matchAll(MLS)].map((m) => m[1].toUpperCase()),
    ...(idMatch ? { listingId: Number(idMatch[1]) } : {}),
    ...(unknownPlace ? { unknownPlace } : {}),
    ...sorted,
    // "how many bedrooms does 4460 Blake St have?" asks about a home, not for a count of homes.
    count:
      /\b(how many|number of|count|cu[aá]nt[ao]s)\b(?!\s+(bed|bath|bd\b|ba\b|br\b|habitaci|baño|dormitor|parking|car|sq|square|feet|years?\b|days?\b))/i.test(
        q,
      ),
    ...(followUp ? { followUp } : {}),
    continues: /^\s*(and|also|what about|how about|ok(ay)?,? (and|what about)|y|what if)\b/i.test(q),
    aboutListings: LISTING_WORDS.test(q) || MONTHLY.test(q),
    wantsAll: LONG_ANSWER_PATTERN.test(q),
    contact: /\b(contact|e-?mail|phone|call|reach|agent|realtor|person|human|contactar|agente)\b/i.test(q),
    privacy: /\b(privacy|data policy|privacidad)\b/i.test(q),
  };
}

/** Where, what kind, how many rooms and which status the question narrows the listings to. */
function parseCriteria(q: string, vocab: Vocabulary): Criteria {
  const criteria: Criteria = {};
  criteria.city = findName(q, vocab.cities);
  const area = findName(q, vocab.areas);
  if (area && area.toLowerCase() !== criteria.city?.toLowerCase()) criteria.area = area;
  const nq = ` ${normalizeAddress(q)} `;
  const street = vocab.streets.find((s) => nq.includes(` ${s} `));
  if (street) criteria.street = street;

  const rent = RENT.test(q) || MONTHLY.test(q);
  const sale = SALE.test(q);
  if (rent && !sale) criteria.saleType = 'for_rent';
  else if (sale && !rent) criteria.saleType = 'for_sale';

  const beds = BEDS.exec(q);
  if (beds) criteria.minBedrooms = count(beds[1]);
  const baths = BATHS.exec(q);
  if (baths) criteria.minBathrooms = count(baths[1]);
  // Amounts are read with the address removed, so "3096 Larimer St" is never a price.
  Object.assign(criteria, parsePrices(street ? normalizeAddress(q).replace(street, ' ') : q));
  for (const [re, type] of TYPES) {
    if (re.test(q)) {
      criteria.propertyType = type;
      break;
    }
  }
  const status = parseStatus(q);
  if (status) criteria.status = status;
  return criteria;
}

/** The price range of a question (its address already removed). */
function parsePrices(pq: string): Pick<Criteria, 'minPrice' | 'maxPrice'> {
  const between = BETWEEN.exec(pq) ?? RANGE.exec(pq);
  if (between) {
    const a = amount(between[1], between[2] ?? between[4]);
    const b = amount(between[3], between[4]);
    return { minPrice: Math.min(a, b), maxPrice: Math.max(a, b) };
  }
  const around = AROUND.exec(pq);
  if (around) {
    const a = amount(around[1], around[2]);
    return { minPrice: Math.round(a * 0.85), maxPrice: Math.round(a * 1.15) };
  }
  const out: Pick<Criteria, 'minPrice' | 'maxPrice'> = {};
  const max = MAX_PRICE.exec(pq);
  if (max) out.maxPrice = amount(max[1], max[2]);
  const min = MIN_PRICE.exec(pq);
  if (min) out.minPrice = amount(min[1], min[2]);
  return out;
}

function parseStatus(q: string): ListingStatus | undefined {
  if (/\b(sold|vendidas?)\b/i.test(q)) return 'Sold';
  if (
    /\b(pre-?on-?market|pre on market|coming soon|upcoming|not yet (listed|on the market)|pr[oó]ximamente)\b/i.test(q)
  )
    return 'PreOnMarket';
  if (/\b(active|available now)\b/i.test(q)) return 'Active';
  return undefined;
}

/** "the cheapest", "the 3 largest homes": the order asked for and how many (plural: 3, else 1). */
function parseSort(q: string): Pick<Intent, 'sort' | 'top'> {
  const sort = SORTS.find(([re]) => re.test(q))?.[1];
  if (!sort) return {};
  const topN =
    /\b(?:the\s+)?(\d|two|three|four|five)\s+(?:cheapest|least|most|lowest|highest|largest|biggest|smallest|newest|oldest)/i.exec(
      q,
    ) ??
    // "the cheapest 2 rentals"
    /\b(?:cheapest|priciest|largest|biggest|smallest|newest|oldest)\s+(\d|two|three|four|five)\b(?!\s*(bed|bath|bd|ba|br))/i.exec(
      q,
    );
  const plural = /\b(homes|houses|listings|properties|condos|apartments|rentals|ones|options)\b/i.test(q);
  return { sort, top: topN ? count(topN[1]) : plural ? 3 : 1 };
}

export function hasCriteria(c: Criteria): boolean {
  return Object.values(c).some((v) => v !== undefined);
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The patterns this module reads, for checking which words of a question were understood (coverage.ts). */
export const INTENT_PATTERNS: readonly RegExp[] = [
  GREETING,
  ABOUT_YOU,
  THANKS,
  RENT,
  MONTHLY,
  SALE,
  BEDS,
  BATHS,
  BETWEEN,
  RANGE,
  MAX_PRICE,
  MIN_PRICE,
  AROUND,
  MLS,
  LISTING_ID,
  ID_ALONE,
  LONG_ANSWER_PATTERN,
  ...TYPES.map(([re]) => re),
  ...SORTS.map(([re]) => re),
];
