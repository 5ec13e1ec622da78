/**
 * The lead summary of a handoff: who the person is and what they looked at, pulled out of the
 * conversation by fixed patterns (no model, no service call), so the same conversation always gives
 * the same summary. Pure: text in, facts and summary out.
 */
import type { StepMeter } from '../text/steps';
import { findAll } from '../text/windows';

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

/**
 * What a conversation told about its lead so far: gathered as each message arrives and merged, so
 * nothing is lost when old turns leave the transcript (lead-store.ts keeps it with the conversation).
 */
export interface LeadFacts {
  emails: string[];
  phones: string[];
  /** MLS numbers and street addresses, in the order first met. */
  listings: string[];
  city?: string;
  budget?: string;
  bedrooms?: number;
}

/** The facts and who the person is: what a ticket shows. */
export interface LeadSummary extends LeadFacts {
  name: string;
}

/*
 * Every pattern below runs on what users typed: each repeat is bounded (no match is longer than
 * REACH) and each is run through findAll's bounded windows, so a 40,000-character message costs
 * time in proportion to its length, whatever it holds (test/core/text/linear-patterns.test.ts).
 */
/** Starts where a word does: an unbroken run of letters is tried once, not at each of its letters. */
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,30}){0,3}\.[A-Za-z]{2,24}/g;
/** North American numbers in the usual spellings, and international ones written with a +. */
const PHONE =
  /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b|\+\d{1,3}(?:[\s.-]?\d){7,12}\b|\b\d{10}\b/g;
/** "MLS ATX240131", "MLS# 1234567", or a bare board-prefixed number like SEA240007. */
const MLS_TAGGED = /\bMLS\s{0,3}(?:#|no\.?|number)?\s{0,3}:?\s{0,3}([A-Z]{0,4}\d{5,10})\b/gi;
const MLS_BARE = /\b([A-Z]{2,4}\d{5,9})\b/g;
const STREET_TYPES =
  'St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|Ter|Terrace|Pkwy|Parkway|Hwy|Highway|Cir|Circle|Sq|Square';
const ADDRESS = new RegExp(
  `\\b\\d{1,6}[ \\t]{1,3}(?:(?:N|S|E|W|NE|NW|SE|SW)[ \\t]{1,3})?(?:(?:\\d{1,3}(?:st|nd|rd|th)|[A-Z][A-Za-z'-]{0,30})[ \\t]{1,3}){1,4}(?:${STREET_TYPES})\\b\\.?(?:[ \\t]{1,3}(?:N|S|E|W|NE|NW|SE|SW)\\b)?`,
  'g',
);
/** A city after "in", "near", "around" or "to": capitalised words, up to three. */
const CITY =
  /\b(in|near|around|to|at|from|city of)[ \t]{1,3}([A-Z][a-zA-Z.'-]{0,30}(?:[ \t]{1,3}[A-Z][a-zA-Z.'-]{0,30}){0,2})/g;
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
  /\$\s?\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:[kKmM]\b|million\b|thousand\b)?|\b\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:[kK]|M|million|thousand)\b(?:\s?(?:dollars|USD))?|\b\d{1,3}(?:,\d{3}){1,5}\s?(?:dollars|USD)\b/g;
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
const BEDROOMS = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight)[\s-]{0,3}(?:bed(?:room)?s?|br|bd|bdrm)\b/gi;

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

function all(re: RegExp, text: string, meter?: StepMeter, group = 0): string[] {
  return findAll(text, re, meter)
    .map((m) => m.groups[group]!.trim())
    .filter((s) => s.length > 0);
}

export function extractEmails(text: string, meter?: StepMeter): string[] {
  return uniq(all(EMAIL, text, meter).map((e) => e.replace(/\.$/, '')));
}

/** The text with every match of `re` blanked out, its length kept (so windows and positions still line up). */
function blank(text: string, re: RegExp, meter?: StepMeter): string {
  const found = findAll(text, re, meter);
  if (found.length === 0) return text;
  let out = '';
  let at = 0;
  for (const m of found) {
    if (m.index < at) continue;
    out += text.slice(at, m.index) + ' '.repeat(m.groups[0]!.length);
    at = m.index + m.groups[0]!.length;
  }
  return out + text.slice(at);
}

export function extractPhones(text: string, meter?: StepMeter): string[] {
  // E-mail addresses and MLS numbers hold digits too; take them out before looking for phones.
  const rest = blank(blank(blank(text, EMAIL, meter), MLS_BARE, meter), MLS_TAGGED, meter);
  return uniq(all(PHONE, rest, meter).filter((p) => p.replace(/\D/g, '').length >= 10));
}

export function extractListings(text: string, meter?: StepMeter): string[] {
  const found = [
    ...findAll(text, MLS_TAGGED, meter).map((m) => ({ v: `MLS ${m.groups[1]!.toUpperCase()}`, at: m.index })),
    ...findAll(text, MLS_BARE, meter).map((m) => ({ v: `MLS ${m.groups[1]!.toUpperCase()}`, at: m.index })),
    ...findAll(text, ADDRESS, meter).map((m) => ({ v: m.groups[0]!.trim().replace(/\.$/, ''), at: m.index })),
  ];
  // Keep the order the text mentions them in.
  found.sort((a, b) => a.at - b.at);
  return uniq(found.map((x) => x.v));
}

/** Abbreviations a place name may hold ("St. Louis", "Ft. Lauderdale"); any other word ending in "." ends the sentence. */
const NAME_ABBREVIATIONS = new Set(['St.', 'Ste.', 'Ft.', 'Mt.', 'Pt.']);
const ENDS_IN_STREET_TYPE = new RegExp(`\\b(?:${STREET_TYPES})$`);

export function extractCity(text: string, meter?: StepMeter): string | undefined {
  // Where the user looks ("in", "near", "to") wins over where they come from ("from Chicago").
  const matches = findAll(text, CITY, meter);
  const ordered = [...matches.filter((m) => m.groups[1] !== 'from'), ...matches.filter((m) => m.groups[1] === 'from')];
  for (const m of ordered) {
    const words = m.groups[2]!.split(/[ \t]+/);
    // "moving to Denver. Budget: ..." : the city ends with its sentence.
    const end = words.findIndex((w, i) => i < words.length - 1 && w.endsWith('.') && !NAME_ABBREVIATIONS.has(w));
    if (end >= 0) words.splice(end + 1);
    // Drop trailing words that are not part of a place name ("Austin Please" is unlikely; "Austin TX" is fine).
    while (words.length > 0 && NOT_CITIES.has(words[words.length - 1]!)) words.pop();
    if (words.length === 0 || NOT_CITIES.has(words[0]!)) continue;
    // A street address is a listing, not a city.
    const candidate = words.join(' ').replace(/[.,]$/, '');
    if (ENDS_IN_STREET_TYPE.test(candidate)) continue;
    return candidate;
  }
  return undefined;
}

export function extractBudget(text: string, meter?: StepMeter): string | undefined {
  const amounts = findAll(text, MONEY, meter);
  if (amounts.length === 0) return undefined;
  // An amount near a budget word wins; else the first amount the user wrote.
  const cued = amounts.find((m) => {
    meter?.add(30);
    return BUDGET_CUE.test(text.slice(Math.max(0, m.index - 30), m.index));
  });
  return (cued ?? amounts[0]!).groups[0]!.trim();
}

export function extractBedrooms(text: string, meter?: StepMeter): number | undefined {
  const m = findAll(text, BEDROOMS, meter)[0];
  if (!m) return undefined;
  const raw = m.groups[1]!.toLowerCase();
  const n = WORD_NUMBERS[raw] ?? Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** How many of each list a conversation keeps (a flood of addresses must not grow its record). */
const MAX_FACTS = 20;

export function noFacts(): LeadFacts {
  return { emails: [], phones: [], listings: [] };
}

function merged(a: string[], b: string[]): string[] {
  return uniq([...a, ...b]).slice(0, MAX_FACTS);
}

/**
 * `facts` with one more message: a user's gives every kind of fact (what they say last about city,
 * budget and bedrooms is what they want now: "actually, 4 bedrooms"); an answer gives listings.
 */
export function withMessage(facts: LeadFacts, from: 'user' | 'answer', text: string, meter?: StepMeter): LeadFacts {
  const next: LeadFacts = { ...facts, listings: merged(facts.listings, extractListings(text, meter)) };
  if (from === 'answer') return next;
  next.emails = merged(facts.emails, extractEmails(text, meter));
  next.phones = merged(facts.phones, extractPhones(text, meter));
  const city = extractCity(text, meter);
  const budget = extractBudget(text, meter);
  const bedrooms = extractBedrooms(text, meter);
  if (city !== undefined) next.city = city;
  if (budget !== undefined) next.budget = budget;
  if (bedrooms !== undefined) next.bedrooms = bedrooms;
  return next;
}

/** The summary a ticket shows: the facts, the user's name and the listings they opened as cards. */
export function leadSummary(name: string, facts: LeadFacts, openedListings: string[] = []): LeadSummary {
  const summary: LeadSummary = {
    name,
    emails: facts.emails,
    phones: facts.phones,
    listings: uniq([...facts.listings, ...openedListings]),
  };
  if (facts.city !== undefined) summary.city = facts.city;
  if (facts.budget !== undefined) summary.budget = facts.budget;
  if (facts.bedrooms !== undefined) summary.bedrooms = facts.bedrooms;
  return summary;
}

/** The summary of a whole conversation given at once (the user's messages, then the answers). */
export function extractLead(input: LeadInput, meter?: StepMeter): LeadSummary {
  let facts = noFacts();
  for (const text of input.userTexts) facts = withMessage(facts, 'user', text, meter);
  for (const text of input.answerTexts) facts = withMessage(facts, 'answer', text, meter);
  return leadSummary(input.name, facts, input.openedListings);
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
