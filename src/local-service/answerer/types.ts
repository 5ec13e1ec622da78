import type { ChatAskType } from '../../service/schemas';
import type { MessageRecord } from '../chat/chat-repo';
import type { ChatbotRecord } from '../chatbots/chatbots-repo';
import type { ListingsRepo } from '../listings/listings-repo';

export interface AttachedFile {
  id: number;
  fileName: string;
  kind: 'Image' | 'Audio' | 'Video';
}

export interface AnswerRequest {
  chatbot: ChatbotRecord;
  question: string;
  mode: ChatAskType;
  files: readonly AttachedFile[];
  /** Earlier messages of the session, oldest first (without the question). */
  history: readonly MessageRecord[];
  listings: ListingsRepo;
  signal?: AbortSignal;
}

export interface AnswerOutcome {
  noAnswer: boolean;
  totalTokens: number;
}

/**
 * Produces an answer fragment by fragment (the generator's yields, in order, concatenated are the
 * answer) and returns its outcome. Fragments are yielded as soon as they exist, so a stream can
 * forward them as they come.
 */
export interface Answerer {
  answer(req: AnswerRequest): AsyncGenerator<string, AnswerOutcome, void>;
}

/** Rough token count (about four characters a token), deterministic. */
export function estimateTokens(...texts: string[]): number {
  return Math.max(1, Math.ceil(texts.reduce((n, t) => n + t.length, 0) / 4));
}
