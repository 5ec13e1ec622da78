/**
 * The lead summary of a handoff: who the person is and what they looked at, pulled out of the
 * conversation by fixed patterns (no model, no service call), so the same conversation always gives
 * the same summary. Pure: text in, summary out.
 */

export interface LeadInput {
  /** The user's name on their platform. */
  name: string;
  /** What the user wrote, oldest first. */
  userTexts: string[];
  /** The chatbot's answers, oldest first. */
  answerTexts: string[];
  /** Listings the user opened as cards (titles, addresses or MLS numbers), oldest first. */
  openedListings?: string[];
}

export interface LeadSummary {
  name: string;
  emails: string[];
  phones: string[];
  /** MLS numbers and street addresses, in the order first met. */
  listings: string[];
  city?: string;
  budget?: string;
  bedrooms?: number;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** North American numbers in the usual spellings, and international ones written with a +. */
const PHONE =
  /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b|\+\d{1,3}(?:[\s.-]?\d){7,12}\b|\b\d{10}\b/g;
/** "MLS ATX240131", "MLS# 1234567", or a bare board-prefixed number like SEA240007. */
const MLS_TAGGED = /\bMLS\s*(?:#|no\.?|number)?\s*:?\s*([A-Z]{0,4}\d{5,10})\b/gi;
const MLS_BARE = /\b([A-Z]{2,4}\d{5,9})\b/g;
const STREET_TYPES =
  'St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|Ter|Terrace|Pkwy|Parkway|Hwy|Highway|Cir|Circle|Sq|Square';
const ADDRESS = new RegExp(
  `\\b\\d{1,6}\\s+(?:(?:N|S|E|W|NE|NW|SE|SW)\\s+)?(?:(?:\\d{1,3}(?:st|nd|rd|th)|[A-Z][A-Za-z'-]*)\\s+){1,4}(?:${STREET_TYPES})\\b\\.?(?:\\s+(?:N|S|E|W|NE|NW|SE|SW)\\b)?`,
  'g',
);
/** A city after "in", "near", "around" or "to": capitalised words, up to three. */
const CITY = /\b(in|near|around|to|at|from|city of)\s+([A-Z][a-zA-Z.'-]+(?:\s+[A-Z][a-zA-Z.'-]+){0,2})/g;
const NOT_CITIES = new Set([
  'I',
  'A',
  'The',
  'My',
  'Your',
  'Our',
  'This',
  'That',
  'It',
  'MLS',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
  'Touch',
  'Person',
  'Cash',
  'Total',
  'Mind',
]);
const MONEY =
  /\$\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmM]\b|million\b|thousand\b)?|\b\d[\d,]*(?:\.\d+)?\s?(?:[kK]|M|million|thousand)\b(?:\s?(?:dollars|USD))?|\b\d{1,3}(?:,\d{3})+\s?(?:dollars|USD)\b/g;
const BUDGET_CUE =
  /\b(?:budget|afford|spend|up to|under|below|max(?:imum)?|around|about|price range|no more than|less than)\b/i;
const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  studio: 0,
};
const BEDROOMS = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight)\s*(?:-|\s)?\s*(?:bed(?:room)?s?|br|bd|bdrm)\b/i;

function uniq(values: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const key = v.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function all(re: RegExp, text: string, group = 0): string[] {
  return [...text.matchAll(re)].map((m) => (m[group] ?? '').trim()).filter((s) => s.length > 0);
}

export function extractEmails(text: string): string[] {
  return uniq(all(EMAIL, text).map((e) => e.replace(/\.$/, '')));
}

export function extractPhones(text: string): string[] {
  // E-mail addresses and MLS numbers hold digits too; take them out before looking for phones.
  const rest = text.replace(EMAIL, ' ').replace(MLS_BARE, ' ').replace(MLS_TAGGED, ' ');
  return uniq(all(PHONE, rest).filter((p) => p.replace(/\D/g, '').length >= 10));
}

export function extractListings(text: string): string[] {
  const mls = [...all(MLS_TAGGED, text, 1), ...all(MLS_BARE, text, 1)].map((m) => `MLS ${m.toUpperCase()}`);
  const addresses = all(ADDRESS, text).map((a) => a.replace(/\.$/, ''));
  // Keep the order the text mentions them in.
  const withPos = [...mls, ...addresses].map((v) => ({
    v,
    at: text.toUpperCase().indexOf(v.replace(/^MLS /, '').toUpperCase()),
  }));
  withPos.sort((a, b) => a.at - b.at);
  return uniq(withPos.map((x) => x.v));
}

/** Abbreviations a place name may hold ("St. Louis", "Ft. Lauderdale"); any other word ending in "." ends the sentence. */
const NAME_ABBREVIATIONS = new Set(['St.', 'Ste.', 'Ft.', 'Mt.', 'Pt.']);

export function extractCity(text: string): string | undefined {
  // Where the user looks ("in", "near", "to") wins over where they come from ("from Chicago").
  const matches = [...text.matchAll(CITY)];
  const ordered = [...matches.filter((m) => m[1] !== 'from'), ...matches.filter((m) => m[1] === 'from')];
  for (const m of ordered) {
    const words = (m[2] ?? '').split(/\s+/);
    // "moving to Denver. Budget: ..." : the city ends with its sentence.
    const end = words.findIndex((w, i) => i < words.length - 1 && w.endsWith('.') && !NAME_ABBREVIATIONS.has(w));
    if (end >= 0) words.splice(end + 1);
    // Drop trailing words that are not part of a place name ("Austin Please" is unlikely; "Austin TX" is fine).
    while (words.length > 0 && NOT_CITIES.has(words[words.length - 1]!)) words.pop();
    if (words.length === 0 || NOT_CITIES.has(words[0]!)) continue;
    // A street address is a listing, not a city.
    const candidate = words.join(' ').replace(/[.,]$/, '');
    if (new RegExp(`\\b(?:${STREET_TYPES})$`).test(candidate)) continue;
    return candidate;
  }
  return undefined;
}

export function extractBudget(text: string): string | undefined {
  const amounts = [...text.matchAll(MONEY)];
  if (amounts.length === 0) return undefined;
  // An amount near a budget word wins; else the first amount the user wrote.
  const cued = amounts.find((m) => BUDGET_CUE.test(text.slice(Math.max(0, (m.index ?? 0) - 30), m.index ?? 0)));
  return (cued ?? amounts[0]!)[0].trim();
}

export function extractBedrooms(text: string): number | undefined {
  const m = BEDROOMS.exec(text);
  if (!m) return undefined;
  const raw = m[1]!.toLowerCase();
  const n = WORD_NUMBERS[raw] ?? Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

function lastDefined<T>(texts: string[], fn: (t: string) => T | undefined): T | undefined {
  // What the user said last is what they want now ("actually, 4 bedrooms").
  for (let i = texts.length - 1; i >= 0; i--) {
    const v = fn(texts[i]!);
    if (v !== undefined) return v;
  }
  return undefined;
}

export function extractLead(input: LeadInput): LeadSummary {
  const user = input.userTexts.join('\n');
  const summary: LeadSummary = {
    name: input.name,
    emails: extractEmails(user),
    phones: extractPhones(user),
    listings: uniq([
      ...input.userTexts.flatMap(extractListings),
      ...input.answerTexts.flatMap(extractListings),
      ...(input.openedListings ?? []),
    ]),
  };
  const city = lastDefined(input.userTexts, extractCity);
  const budget = lastDefined(input.userTexts, extractBudget);
  const bedrooms = lastDefined(input.userTexts, extractBedrooms);
  if (city !== undefined) summary.city = city;
  if (budget !== undefined) summary.budget = budget;
  if (bedrooms !== undefined) summary.bedrooms = bedrooms;
  return summary;
}

/** The summary as the ticket shows it: one line per fact, "none" where the conversation had nothing. */
export function leadLines(lead: LeadSummary): string[] {
  const list = (xs: string[]): string => (xs.length > 0 ? xs.join(', ') : 'none given');
  return [
    `Name: ${lead.name}`,
    `E-mail: ${list(lead.emails)}`,
    `Phone: ${list(lead.phones)}`,
    `Listings: ${list(lead.listings)}`,
    `City: ${lead.city ?? 'not mentioned'}`,
    `Budget: ${lead.budget ?? 'not mentioned'}`,
    `Bedrooms: ${lead.bedrooms ?? 'not mentioned'}`,
  ];
}
