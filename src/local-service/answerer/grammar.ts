import type { NumericFact } from './query-model';

/**
 * The grammar of conditions over the listing schema, as data: the names people give each fact, the
 * units they write amounts in and the comparators they bound them with. The reader (read-conditions.ts)
 * assembles its patterns from these tables, so a new synonym, unit or comparator is a row here, never
 * code for one phrasing.
 */

/** How a fact is counted: what its bounds round to and which units can name it without its name. */
export type FactKind = 'money' | 'count' | 'halfCount' | 'area' | 'year' | 'days';

export interface FactSpec {
  fact: NumericFact;
  kind: FactKind;
  /** Regex sources of the names of the fact, longest first (matched as whole words). */
  names: readonly string[];
  /** Names that may only come after the number ("3 br", never "br 3"). */
  afterOnly?: boolean;
}

/** Every numeric fact a question may bound. Rent is the price of a rental (`RENT_NAMES` says which). */
export const FACTS: readonly FactSpec[] = [
  {
    fact: 'ppsf',
    kind: 'money',
    names: [
      String.raw`(?:price |cost )?(?:per|a|\/)\s*(?:square foot|square feet|sq\.? ?ft\.?|sqft|sf)`,
      'psf',
      'ppsf',
    ],
  },
  {
    fact: 'hoa',
    kind: 'money',
    names: [
      String.raw`hoa(?: fees?| dues| payments?)?`,
      String.raw`(?:homeowners'? )?association (?:fees?|dues)`,
      String.raw`condo (?:fees?|dues)`,
    ],
  },
  {
    fact: 'beds',
    kind: 'count',
    names: [String.raw`bed(?:room)?s?`, 'bdrms?', 'bdr', 'br', 'bd', 'habitaci(?:o|ó)n(?:es)?', 'dormitorios?'],
  },
  { fact: 'baths', kind: 'halfCount', names: [String.raw`bath(?:room)?s?`, 'ba', 'bth', 'baños?', 'banos?'] },
  {
    fact: 'parking',
    kind: 'count',
    names: [
      String.raw`(?:parking|garage|car) (?:spots?|spaces?|stalls?|bays?)`,
      String.raw`car garage`,
      'parking',
      'cars?',
    ],
  },
  {
    fact: 'lot',
    kind: 'area',
    names: [String.raw`lots?(?: size| area)?`, 'land', 'acreage', 'parcela'],
  },
  {
    fact: 'area',
    kind: 'area',
    names: [
      'square footage',
      String.raw`(?:living|floor|interior|built) (?:area|space)`,
      'footage',
      'size',
      'space',
      'superficie',
    ],
  },
  {
    fact: 'year',
    kind: 'year',
    names: ['year built', 'built', 'constructed', 'construction', 'vintage'],
  },
  {
    fact: 'dom',
    kind: 'days',
    names: [String.raw`(?:days? )?on (?:the )?market`, 'dom', 'listed', 'listing age'],
  },
  {
    fact: 'price',
    kind: 'money',
    names: [
      String.raw`(?:monthly |asking |list |listing |sale |sales |purchase )?(?:price[sd]?|cost(?:s|ing)?)`,
      'rents?',
      'budget',
      'precio',
      'alquiler',
    ],
  },
];

/** Price names that say the price is a monthly rent. */
export const RENT_NAMES = /^(rents?|alquiler|monthly .*)$/i;

/** Units, each turning the number it follows into the fact's own measure. */
export interface UnitSpec {
  source: string;
  /** The fact the unit alone names ("sq ft" is an area, "acres" a lot). */
  fact?: NumericFact;
  factor: number;
  /** The amount is per month: a rent. */
  monthly?: boolean;
  /** Said in the answer next to the converted figure ("100 m²"). */
  shown?: string;
}

export const AREA_PER_SQM = 10.7639;

export const UNITS: readonly UnitSpec[] = [
  {
    source: String.raw`(?:sq\.? ?ft\.?|square (?:feet|foot)|sqft|sf|ft2|ft²|pies(?: cuadrados)?)(?![\w²])`,
    fact: 'area',
    factor: 1,
  },
  {
    source: String.raw`(?:m²|m2|sqm|sq\.? ?m|square met(?:er|re)s?|metros(?: cuadrados)?)(?![\w²])`,
    fact: 'area',
    factor: AREA_PER_SQM,
    shown: 'm²',
  },
  { source: String.raw`acres?\b`, fact: 'lot', factor: 43_560, shown: 'acres' },
  { source: String.raw`weeks?\b`, fact: 'dom', factor: 7 },
  { source: String.raw`days?\b`, fact: 'dom', factor: 1 },
  // Money multipliers last: "m²" is an area before "m" is a million.
  { source: String.raw`(?:million|millones|mm|m)\b`, factor: 1_000_000 },
  { source: String.raw`(?:thousand|grand|k)\b`, factor: 1_000 },
];

/** "a month", "/mo", "monthly", "per month": the amount before it is a rent. */
export const MONTHLY_UNIT = String.raw`(?:\/\s*mo(?:nth)?\b|(?:a|per|each|every|al) (?:month|mo|mes)\b|monthly\b|mensual(?:es)?\b)`;

export type Bound = 'min' | 'max' | 'exact' | 'around' | 'notMin' | 'notMax';

/** A comparator: the words, where they stand, what bound they set, and whether the bound itself is excluded. */
export interface ComparatorSpec {
  source: string;
  /** Before the number ("at least 3") or after it ("3 or more"). */
  at: 'before' | 'after';
  bound: Bound;
  strict?: boolean;
}

export const COMPARATORS: readonly ComparatorSpec[] = [
  // Negated comparators first: "not more than" is "at most".
  {
    source: String.raw`not (?:more|over|above|greater) than|not over|not above|no more than`,
    at: 'before',
    bound: 'max',
  },
  {
    source: String.raw`not (?:less|fewer|under|below) than|not under|not below|no (?:less|fewer) than`,
    at: 'before',
    bound: 'min',
  },
  {
    source: String.raw`at least|a minimum of|minimum(?: of)?|min\.?|starting (?:at|from)|from|upwards of|al menos|desde`,
    at: 'before',
    bound: 'min',
  },
  {
    source: String.raw`more than|greater than|bigger than|larger than|over|above|exceeding|in excess of|m[aá]s de`,
    at: 'before',
    bound: 'min',
    strict: true,
  },
  {
    source: String.raw`at most|a maximum of|maximum(?: of)?|max\.?|up to|no higher than|within|in the (?:last|past)|tops|hasta`,
    at: 'before',
    bound: 'max',
  },
  {
    source: String.raw`less than|fewer than|lower than|smaller than|cheaper than|under|below|beneath|menos de`,
    at: 'before',
    bound: 'max',
    strict: true,
  },
  { source: String.raw`exactly|precisely|just|only`, at: 'before', bound: 'exact' },
  {
    source: String.raw`around|about|approximately|approx\.?|roughly|close to|near|circa|some|~|alrededor de|unos`,
    at: 'before',
    bound: 'around',
  },
  {
    source: String.raw`or more|or larger|or bigger|or greater|or higher|or newer|or later|and up|and above|plus|\+|minimum|min|at least|o m[aá]s`,
    at: 'after',
    bound: 'min',
  },
  {
    source: String.raw`or less|or fewer|or smaller|or lower|or cheaper|or older|or earlier|and under|and below|max(?:imum)?|tops|at most|o menos`,
    at: 'after',
    bound: 'max',
  },
];

/** Year comparators: a year is bounded in time words. */
export const YEAR_COMPARATORS: readonly ComparatorSpec[] = [
  { source: String.raw`not (?:built |constructed )?(?:before|earlier than|prior to)`, at: 'before', bound: 'min' },
  { source: String.raw`not (?:built |constructed )?(?:after|later than)`, at: 'before', bound: 'max' },
  {
    source: String.raw`(?:built |constructed )?(?:after|later than|newer than|post|despu[eé]s de)`,
    at: 'before',
    bound: 'min',
    strict: true,
  },
  { source: String.raw`(?:built |constructed )?(?:since|in or after|no earlier than)`, at: 'before', bound: 'min' },
  {
    source: String.raw`(?:built |constructed )?(?:before|earlier than|older than|prior to|pre|antes de)`,
    at: 'before',
    bound: 'max',
    strict: true,
  },
  { source: String.raw`(?:built |constructed )?(?:in or before|no later than|until)`, at: 'before', bound: 'max' },
];

/** "around" with no tolerance stated: this share of the figure either way (said in the answer). */
export const DEFAULT_TOLERANCE = 0.15;
/** "within 10%", "give or take 50k", "plus or minus 2": a stated tolerance after the figure. */
export const TOLERANCE = String.raw`(?:,?\s*(?:give or take|plus or minus|\+\/-|±|within|more or less)\s*(\d+(?:\.\d+)?)\s*(%|percent|k|thousand)?)`;

/** Number words a question may spell out; "one" only where a unit or fact follows (it is also "that one"). */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
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
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  a: 1,
  an: 1,
  single: 1,
  couple: 2,
  pair: 2,
  dozen: 12,
};
export const MULTIPLIER_WORDS: Readonly<Record<string, number>> = {
  hundred: 100,
  thousand: 1_000,
  grand: 1_000,
  million: 1_000_000,
  billion: 1_000_000_000,
};

/** Property types by their names; "not"/"no"/"except" before one excludes it. */
export const TYPES: readonly [string, string][] = [
  [String.raw`townhouses?|townhomes?|row ?houses?`, 'Townhouse'],
  [String.raw`condos?|condominiums?|condominios?`, 'Condo'],
  [String.raw`apartments?|apts?|flats?|apartamentos?|pisos?`, 'Apartment'],
  [String.raw`houses?|single[- ]family(?: homes?)?|detached homes?|casas?`, 'House'],
];

/** Words that negate the condition after them. */
export const NEGATIONS = String.raw`not (?:a |an |in |on )?|no |non-?|without (?:a |an |any )?|except (?:for )?|excluding |other than |but not |anything but |lacking |sin |que no sea |excepto `;

/** A comparative relative to a home of the conversation: the fact it bounds and which way. */
export interface RelativeSpec {
  source: string;
  fact: NumericFact;
  bound: 'max' | 'min';
}

export const RELATIVES: readonly RelativeSpec[] = [
  {
    source: String.raw`cheaper|less expensive|lower[- ]priced|more affordable|m[aá]s barat[ao]s?`,
    fact: 'price',
    bound: 'max',
  },
  {
    source: String.raw`pricier|more expensive|higher[- ]priced|costlier|m[aá]s car[ao]s?`,
    fact: 'price',
    bound: 'min',
  },
  { source: String.raw`bigger|larger|roomier|more spacious|m[aá]s grandes?`, fact: 'area', bound: 'min' },
  { source: String.raw`smaller|more compact|m[aá]s peque[nñ]as?`, fact: 'area', bound: 'max' },
  { source: String.raw`newer|more recently built|younger`, fact: 'year', bound: 'min' },
  { source: String.raw`older`, fact: 'year', bound: 'max' },
  { source: String.raw`with more bed(?:room)?s|more bed(?:room)?s`, fact: 'beds', bound: 'min' },
  { source: String.raw`with fewer bed(?:room)?s|fewer bed(?:room)?s`, fact: 'beds', bound: 'max' },
  { source: String.raw`with more bath(?:room)?s|more bath(?:room)?s`, fact: 'baths', bound: 'min' },
  { source: String.raw`with more parking|more parking`, fact: 'parking', bound: 'min' },
  { source: String.raw`with a bigger lot|(?:on )?a bigger lot|with more land`, fact: 'lot', bound: 'min' },
  { source: String.raw`with (?:a )?lower hoa|lower hoa|with less hoa`, fact: 'hoa', bound: 'max' },
  { source: String.raw`fresher|newer on the market|listed more recently`, fact: 'dom', bound: 'max' },
];

/** "in the same city as it": which facts of the reference "same" keeps. */
export const SAME: readonly [string, 'city' | 'area' | 'type' | 'saleType' | 'beds' | 'zip' | 'price'][] = [
  [String.raw`same (?:city|town)`, 'city'],
  [String.raw`same (?:neighbou?rhood|area|part of town)`, 'area'],
  [String.raw`same (?:property )?(?:type|kind)`, 'type'],
  [String.raw`same (?:number of )?bed(?:room)?s?|same (?:bedroom )?count`, 'beds'],
  [String.raw`same (?:zip|zip code|postcode|postal code)`, 'zip'],
  [String.raw`same (?:price(?: range| point| bracket)?|budget)`, 'price'],
];

/** How far "nearby" reaches when no distance is said (in miles), and how wide "similar" prices are. */
export const NEARBY_MILES = 3;
export const SIMILAR_PRICE = 0.2;
export const DISTANCE_UNITS: Readonly<Record<string, number>> = {
  mile: 1,
  miles: 1,
  mi: 1,
  km: 0.621371,
  kilometers: 0.621371,
  kilometres: 0.621371,
  blocks: 0.05,
};
