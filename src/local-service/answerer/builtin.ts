import { DEFAULT_TALK_TO_HUMAN } from '../chatbots/settings';
import { listingPrice } from '../listings/listing-data';
import type { StoredListing } from '../listings/listings-repo';
import { previousTurn } from './context';
import { describe, listingLine, listingParagraph, wordGroups } from './format';
import { type Criteria, hasCriteria, type Intent, parseIntent, type Vocabulary } from './intent';
import { type Phrases, phrasesFor, type SortKind } from './phrases';
import { filter, isHouseAddress, nearest, onStreet, soldLeftOut, sortBy, vocabulary } from './query';
import { type AnswerOutcome, type AnswerRequest, type Answerer, estimateTokens } from './types';

/** How many listings a list answer shows (the long answer shows every match). */
const SHOWN = 5;
/** How many near matches a "nothing matches" answer offers. */
const NEAREST = 3;
/** The most listings of one chatbot the answerer reads per question. */
const READ_CAP = 5000;

interface Composed {
  text: string;
  noAnswer: boolean;
}

/**
 * The answerer used without an LLM: deterministic, grounded in the chatbot's listings and settings.
 * Same question + same data + same session history = same answer, so tests can assert on it.
 */
export class BuiltinAnswerer implements Answerer {
  constructor(private readonly opts: { fragmentDelayMs?: number } = {}) {}

  async *answer(req: AnswerRequest): AsyncGenerator<string, AnswerOutcome, void> {
    const composed = compose(req);
    const suffix = req.chatbot.settings.AnswerSuffix;
    const text = suffix ? `${composed.text}\n\n${suffix}` : composed.text;
    for (const fragment of wordGroups(text)) {
      if (req.signal?.aborted) break;
      // Yield to the event loop between fragments so each one is flushed before the next exists.
      await pause(this.opts.fragmentDelayMs ?? 0);
      yield fragment;
    }
    return { noAnswer: composed.noAnswer, totalTokens: estimateTokens(req.question, text) };
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

const answered = (text: string): Composed => ({ text, noAnswer: false });

export function compose(req: AnswerRequest): Composed {
  const { chatbot } = req;
  const s = chatbot.settings;
  const p = phrasesFor(s.AIResponseLanguage);
  const talkToHuman: Composed = { text: s.TalkToHumanResponseMessage.trim() || DEFAULT_TALK_TO_HUMAN, noAnswer: true };
  const intro =
    req.files.length > 0 ? p.media(req.files[0].kind.toLowerCase(), req.files.map((f) => f.fileName).join(', ')) : '';
  const question = req.question.trim();
  if (question === '') return intro ? answered(`${intro} ${p.mediaOnly}`) : talkToHuman;
  const prefix = intro ? `${intro} ` : '';

  const all = req.listings.search(chatbot.id, {}, READ_CAP);
  const vocab = vocabulary(all);
  const intent = parseIntent(question, vocab);
  const body = answerListings(intent, all, vocab, req, p);
  if (body !== undefined) return answered(prefix + body);
  if (intent.greeting) return answered(prefix + s.WelcomeMessage);
  if (intent.thanks) return answered(prefix + p.thanks);
  if (intent.privacy && s.ChatbotPrivacyPolicyUrl)
    return answered(prefix + p.privacy(s.ChatbotPrivacyPolicyName || 'Privacy policy', s.ChatbotPrivacyPolicyUrl));
  if (intent.contact) {
    const how = [s.TalkToHumanEmail, s.MessagingContactUrl].filter((v) => v.trim() !== '');
    return answered(prefix + (how.length > 0 ? p.contact(p.joinAnd(how)) : p.noContact));
  }
  return intro ? answered(`${intro} ${p.mediaOnly}`) : talkToHuman;
}

/** The answer about listings, or undefined when the question is not about them. */
function answerListings(
  intent: Intent,
  all: StoredListing[],
  vocab: Vocabulary,
  req: AnswerRequest,
  p: Phrases,
): string | undefined {
  const currency = all[0]?.data.CurrencySymbol ?? '$';

  // A listing named outright: MLS number, listing id, a house's address.
  for (const mls of intent.mlsCandidates) {
    const found = all.filter((l) => l.data.MLSNumber.toUpperCase() === mls);
    if (found.length > 0) return details(found, p);
  }
  if (intent.listingId !== undefined) {
    const found = all.filter((l) => l.id === intent.listingId);
    return found.length > 0 ? details(found, p) : p.notFoundKey(`listing ${intent.listingId}`);
  }
  const street = intent.criteria.street;
  if (street && isHouseAddress(street) && !intent.count && !intent.sort) {
    // Any status: someone asking about a house by its address wants it even if it has sold.
    const found = all.filter((l) => onStreet(l.data, street));
    if (found.length > 0) return details(found, p);
  }

  if (intent.wantsAll) {
    const found = hasCriteria(intent.criteria) ? filter(all, intent.criteria) : all;
    const what = hasCriteria(intent.criteria) ? describe(intent.criteria, p, found.length, currency) : '';
    const paragraphs = found.map((l, i) => `${i + 1}. ${listingParagraph(l, p)}`);
    return `${p.everything(found.length, what)}\n\n${paragraphs.join('\n\n')}\n\n${p.arrange}`;
  }

  // Follow-ups lean on the previous answer of the session.
  let criteria: Criteria = intent.criteria;
  const f = intent.followUp;
  if (f && (f.kind === 'ordinal' || (f.kind === 'it' && !hasCriteria(intent.criteria)))) {
    const prev = previousTurn(req.history, all, vocab);
    // "the first homes in Austin" with nothing before it is a search, not a reference.
    if (prev.shown.length === 0 && hasCriteria(intent.criteria))
      return searchAnswer(intent, intent.criteria, all, vocab, p, currency);
    if (prev.shown.length === 0) return p.noPrevious;
    if (f.kind === 'it') return details(prev.shown.slice(0, SHOWN), p);
    const index = f.index === -1 ? prev.shown.length : f.index;
    const chosen = prev.shown[index - 1];
    return chosen ? details([chosen], p) : p.noOrdinal(index, prev.shown.length);
  }
  if (f && f.kind !== 'it') {
    const prev = previousTurn(req.history, all, vocab);
    if (prev.shown.length === 0 && !hasCriteria(prev.criteria) && !hasCriteria(intent.criteria)) return p.noPrevious;
    criteria = { ...prev.criteria, ...intent.criteria };
    const prices = prev.shown.map((l) => listingPrice(l.data)).filter((v): v is number => v !== undefined);
    if (f.kind === 'cheaper' && prices.length > 0) {
      criteria = { ...criteria, maxPrice: Math.min(...prices) - 1 };
      delete criteria.minPrice;
    }
    if (f.kind === 'pricier' && prices.length > 0) {
      criteria = { ...criteria, minPrice: Math.max(...prices) + 1 };
      delete criteria.maxPrice;
    }
    if (f.kind === 'larger' && prev.shown.length > 0)
      criteria = { ...criteria, minArea: Math.max(...prev.shown.map((l) => l.data.BuildingArea)) };
    const found = filter(all, criteria);
    if (found.length === 0) {
      const none = f.kind === 'cheaper' ? p.nothingCheaper : f.kind === 'larger' ? p.nothingLarger : p.nothingPricier;
      return none;
    }
    const sorted = sortBy(found, f.kind === 'cheaper' ? 'priciest' : f.kind === 'larger' ? 'smallest' : 'cheapest');
    return listAnswer(sorted, describe(criteria, p, found.length, currency), p, all, criteria);
  } else if (intent.continues) {
    const prev = previousTurn(req.history, all, vocab);
    criteria = { ...prev.criteria, ...intent.criteria };
  }

  return searchAnswer(intent, criteria, all, vocab, p, currency);
}

/** The listings matching `criteria`: sorted, counted or listed, or the nearest when none match. */
function searchAnswer(
  intent: Intent,
  criteria: Criteria,
  all: StoredListing[],
  vocab: Vocabulary,
  p: Phrases,
  currency: string,
): string | undefined {
  if (intent.unknownPlace && !criteria.city && !criteria.area) return p.noPlace(intent.unknownPlace, vocab.cities);
  if (!hasCriteria(criteria) && !intent.aboutListings && !intent.sort && !intent.count) return undefined;

  const what = (n: number) => describe(criteria, p, n, currency);
  const found = filter(all, criteria);
  if (found.length === 0) return noMatch(all, criteria, what(2), p);
  if (intent.sort) {
    const top = topOf(found, intent.sort, intent.top ?? 1, criteria);
    const lines = top.map((l, i) => listingLine(i + 1, l, p));
    return `${p.superlative(intent.sort, what(2))}\n\n${lines.join('\n')}\n\n${p.offer}`;
  }
  if (intent.count) {
    const lines = found.slice(0, SHOWN).map((l, i) => listingLine(i + 1, l, p));
    const more = found.length > SHOWN ? `\n…${found.length - SHOWN} more.` : '';
    return withSold(`${p.count(found.length, what(found.length))}\n\n${lines.join('\n')}${more}`, all, criteria, p);
  }
  return listAnswer(found, what(found.length), p, all, criteria);
}

/**
 * The first `n` by `kind`. A price ranking with no sale type asked ranks sales and rentals apart
 * (a monthly rent is not "cheaper" than a purchase price): the top of each, sales first.
 */
function topOf(found: StoredListing[], kind: SortKind, n: number, c: Criteria): StoredListing[] {
  const byPrice = kind === 'cheapest' || kind === 'priciest';
  const types = [...new Set(found.map((l) => l.data.SaleType))].sort(
    (a, b) => Number(b === 'for_sale') - Number(a === 'for_sale'),
  );
  if (!byPrice || c.saleType || types.length < 2) return sortBy(found, kind).slice(0, n);
  return types.flatMap((t) =>
    sortBy(
      found.filter((l) => l.data.SaleType === t),
      kind,
    ).slice(0, n),
  );
}

function details(found: StoredListing[], p: Phrases): string {
  return `${found.map((l) => listingParagraph(l, p)).join('\n\n')}\n\n${found.length === 1 ? p.offerOne : p.offer}`;
}

function withSold(text: string, all: StoredListing[], c: Criteria, p: Phrases): string {
  const sold = soldLeftOut(all, c);
  return sold > 0 ? `${text}\n\n${p.soldHidden(sold)}` : text;
}

function listAnswer(found: StoredListing[], what: string, p: Phrases, all: StoredListing[], c: Criteria): string {
  const shown = found.slice(0, SHOWN);
  const head = found.length > shown.length ? p.firstOf(found.length, shown.length, what) : p.found(found.length, what);
  const lines = shown.map((l, i) => listingLine(i + 1, l, p));
  return withSold(`${head}\n\n${lines.join('\n')}`, all, c, p) + `\n\n${p.offer}`;
}

/** Nothing matches: say so, then offer the nearest homes and what was relaxed to find them. */
function noMatch(all: StoredListing[], c: Criteria, what: string, p: Phrases): string {
  // A sold home that would match is said to exist: "none" is about homes on offer.
  const sold = soldLeftOut(all, c);
  const none = sold > 0 ? `${p.none(what)}\n\n${p.soldHidden(sold)}\n\n` : `${p.none(what)} `;
  const near = nearest(all, c, p, NEAREST);
  if (near.found.length === 0) return none.trim();
  const lines = near.found.map((l, i) => listingLine(i + 1, l, p));
  return `${none}${p.nearest(p.joinAnd(near.relaxed))}\n\n${lines.join('\n')}\n\n${p.offer}`;
}
