import { DEFAULT_TALK_TO_HUMAN } from '../chatbots/settings';
import { previousResult } from './context';
import { evaluate } from './evaluate';
import { wordGroups } from './format';
import { parseIntent } from './intent';
import { parseQuery } from './parse-query';
import { type Phrases, phrasesFor } from './phrases';
import { isHouseAddress, vocabulary } from './query';
import { reasonPhrasesFor } from './reason-phrases';
import { type AnswerOutcome, type AnswerRequest, type Answerer, estimateTokens } from './types';
import { write } from './write';
import { writeSearched } from './write-searched';
import { grammarPhrasesFor } from './grammar-phrases';
import { textWordsOf } from './coverage';
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

  const body = answerListings(question, req, p);
  if (body !== undefined) return answered(prefix + body);
  const intent = parseIntent(question, { cities: [], streets: [], areas: [] });
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

/**
 * The answer about listings, or undefined when the question is not about them: the question is
 * parsed against the conversation's previous result into a query, the query evaluated over the
 * listings, and the evaluation written by its operation's writer.
 */
function answerListings(question: string, req: AnswerRequest, p: Phrases): string | undefined {
  const all = req.listings.search(req.chatbot.id, {}, READ_CAP);
  const vocab = vocabulary(all);
  const ctx = {
    vocab,
    mls: new Set(all.map((l) => l.data.MLSNumber.toUpperCase())),
    houses: new Set(vocab.streets.filter(isHouseAddress)),
    fieldNames: [...new Set(all.flatMap((l) => (l.data.ExtensionColumn ?? []).map((e) => e.Key)))],
    all,
    textWords: textWordsOf(
      all.flatMap((l) => [l.data.Description ?? '', ...(l.data.ExtensionColumn ?? []).map((e) => e.value)]),
    ),
  };
  const previous = previousResult(req.history, all, ctx);
  const query = parseQuery(question, { ...ctx, previous });
  if (query.op.kind === 'none') return undefined;
  const evaluation = evaluate(query, all, previous);
  const language = req.chatbot.settings.AIResponseLanguage;
  const w = {
    p,
    rp: reasonPhrasesFor(language),
    gp: grammarPhrasesFor(language),
    currency: all[0]?.data.CurrencySymbol ?? '$',
    all,
  };
  const body = write(evaluation, w, vocab.cities);
  // The line of what was searched (and not understood) closes the answer: first lines stay as they were.
  const searched = writeSearched(evaluation, w);
  return searched ? `${body}\n\n${searched}` : body;
}
