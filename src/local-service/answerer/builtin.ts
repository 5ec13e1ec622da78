import { DEFAULT_TALK_TO_HUMAN } from '../chatbots/settings';
import type { StoredListing } from '../listings/listings-repo';
import { describeFilter, listingLine, listingParagraph, wordGroups } from './format';
import { hasCriteria, parseIntent } from './intent';
import { type AnswerOutcome, type AnswerRequest, type Answerer, estimateTokens } from './types';

/** How many listings a list answer shows (the long answer shows every match). */
const SHOWN = 5;
const SEARCH_CAP = 1000;

interface Composed {
  text: string;
  noAnswer: boolean;
}

/**
 * The answerer used without an LLM: deterministic, grounded in the chatbot's listings and settings.
 * Same question + same data = same answer, so tests can assert on it.
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

export function compose(req: AnswerRequest): Composed {
  const { chatbot, listings } = req;
  const s = chatbot.settings;
  const talkToHuman: Composed = { text: s.TalkToHumanResponseMessage.trim() || DEFAULT_TALK_TO_HUMAN, noAnswer: true };
  const intro = mediaIntro(req);
  const question = req.question.trim();
  if (question === '') {
    return intro
      ? { text: `${intro} I can't look inside media files yet, but I can help with our listings: ask me about a city, a price range, bedrooms or an MLS number.`, noAnswer: false }
      : talkToHuman;
  }
  const prefix = intro ? `${intro} ` : '';
  const intent = parseIntent(question, listings.cities(chatbot.id));

  for (const candidate of intent.mlsCandidates) {
    const found = listings.search(chatbot.id, { mlsNumber: candidate }, 5);
    if (found.length > 0) return { text: prefix + found.map(listingParagraph).join('\n\n'), noAnswer: false };
  }

  if (hasCriteria(intent.filter) || intent.wantsAll || intent.aboutListings) {
    const found = listings.search(chatbot.id, intent.filter, SEARCH_CAP);
    if (found.length === 0) return talkToHuman;
    const what = describeFilter(intent.filter, found[0].data.CurrencySymbol);
    return { text: prefix + (intent.wantsAll ? longAnswer(found, what) : listAnswer(found, what)), noAnswer: false };
  }

  if (intent.greeting) return { text: prefix + s.WelcomeMessage, noAnswer: false };
  return talkToHuman;
}

function mediaIntro(req: AnswerRequest): string {
  if (req.files.length === 0) return '';
  const kind = req.files[0].kind.toLowerCase();
  const names = req.files.map((f) => f.fileName).join(', ');
  return `Thanks, I received your ${kind}${req.files.length > 1 ? 's' : ''} (${names}).`;
}

function listAnswer(found: StoredListing[], what: string): string {
  const shown = found.slice(0, SHOWN);
  const head =
    found.length === 1
      ? `I found 1 listing${what ? ` ${what}` : ''}:`
      : found.length > shown.length
        ? `I found ${found.length} listings${what ? ` ${what}` : ''}. Here are the first ${shown.length}:`
        : `I found ${found.length} listings${what ? ` ${what}` : ''}:`;
  const lines = shown.map((l, i) => listingLine(i + 1, l));
  return `${head}\n\n${lines.join('\n')}\n\nWould you like more details on any of these, or to schedule a viewing?`;
}

function longAnswer(found: StoredListing[], what: string): string {
  const head = `Here is every listing${what ? ` ${what}` : ''} we have right now (${found.length} in total), with the details of each.`;
  const body = found.map((l, i) => `${i + 1}. ${listingParagraph(l)}`);
  return `${head}\n\n${body.join('\n\n')}\n\nTell me which ones you would like to see in person and I'll arrange a viewing.`;
}
