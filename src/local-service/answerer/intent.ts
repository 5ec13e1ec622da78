import type { SearchFilter } from '../listings/listings-repo';

/** What a question asks for, as far as plain patterns can tell. */
export interface Intent {
  greeting: boolean;
  filter: SearchFilter;
  /** MLS-number-looking tokens, upper-cased. */
  mlsCandidates: string[];
  /** The question is about listings in general ("what homes do you have?"). */
  aboutListings: boolean;
  /** "all listings", "every listing", "long answer": the long, paragraph-per-listing answer. */
  wantsAll: boolean;
}

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };

/** Trigger words of the long answer (documented: the bridge's tests use them to get a long answer). */
export const LONG_ANSWER_PATTERN = /\b(long answer|all (the )?(listings|homes|properties)|every listing)\b/i;

const GREETING = /^\s*(hi|hello|hey|howdy|hiya|greetings|good (morning|afternoon|evening)|yo)\b/i;
const RENT = /\b(rent|rents|rental|rentals|renting|lease|leasing|for[_ ]rent|tenant)\b/i;
const SALE = /\b(buy|buying|purchase|purchasing|for[_ ]sale|on sale|sell|selling|own)\b/i;
const LISTING_WORDS =
  /\b(listings?|homes?|houses?|properties|property|apartments?|condos?|townhouses?|townhomes?|places?|available|bedrooms?|beds?|price[sd]?|cost|cheap(est)?|afford(able)?|mls)\b/i;
const BEDS = /\b(\d+|one|two|three|four|five|six|seven)\s*\+?\s*-?\s*(bed(room)?s?|br|bd|bdr)\b/i;
const MAX_PRICE = /\b(under|below|less than|at most|up to|max(imum)?|cheaper than|no more than)\s*\$?\s*(\d[\d,]*(\.\d+)?)\s*(k|m|million|thousand)?\b/i;
const MIN_PRICE = /\b(over|above|more than|at least|min(imum)?|from)\s*\$?\s*(\d[\d,]*(\.\d+)?)\s*(k|m|million|thousand)?\b/i;
const MLS = /\b(?:mls\s*#?\s*:?\s*)?([a-z]{2,5}-?\d{4,}|\d{6,})\b/gi;

function amount(num: string, unit: string | undefined): number {
  const n = Number(num.replace(/,/g, ''));
  const u = (unit ?? '').toLowerCase();
  if (u === 'k' || u === 'thousand') return n * 1_000;
  if (u === 'm' || u === 'million') return n * 1_000_000;
  return n;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Reads the question against the chatbot's own cities (so any city it has listings in is known). */
export function parseIntent(question: string, cities: readonly string[]): Intent {
  const q = question.trim();
  const filter: SearchFilter = {};
  // Longest names first: "West Palm Beach" before "Palm Beach".
  for (const city of [...cities].sort((a, b) => b.length - a.length)) {
    if (new RegExp(`\\b${escapeRe(city)}\\b`, 'i').test(q)) {
      filter.city = city;
      break;
    }
  }
  const rent = RENT.test(q);
  const sale = SALE.test(q);
  if (rent && !sale) filter.saleType = 'for_rent';
  else if (sale && !rent) filter.saleType = 'for_sale';

  const beds = BEDS.exec(q);
  if (beds) filter.minBedrooms = NUMBER_WORDS[beds[1].toLowerCase()] ?? Number(beds[1]);
  const max = MAX_PRICE.exec(q);
  if (max) filter.maxPrice = amount(max[3], max[5]);
  const min = MIN_PRICE.exec(q);
  if (min) filter.minPrice = amount(min[3], min[5]);
  if (/\bsold\b/i.test(q)) filter.status = 'Sold';
  else if (/\b(pre-?on-?market|pre on market|coming soon)\b/i.test(q)) filter.status = 'PreOnMarket';

  const mlsCandidates = [...q.matchAll(MLS)].map((m) => m[1].toUpperCase());
  return {
    greeting: GREETING.test(q),
    filter,
    mlsCandidates,
    aboutListings: LISTING_WORDS.test(q),
    wantsAll: LONG_ANSWER_PATTERN.test(q),
  };
}

export function hasCriteria(f: SearchFilter): boolean {
  return (
    f.city !== undefined ||
    f.saleType !== undefined ||
    f.minBedrooms !== undefined ||
    f.maxPrice !== undefined ||
    f.minPrice !== undefined ||
    f.status !== undefined
  );
}
