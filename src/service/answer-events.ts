/**
 * What a streamed answer yields, whichever API family or wire framing produced it: any number of
 * `delta` events, then exactly one `final` event. A stream that ends without `final` raises
 * `InterruptedStreamError` (see errors.ts) carrying the partial text instead.
 */
export interface DeltaEvent {
  type: 'delta';
  /** The next fragment of the answer text. */
  text: string;
}

export interface FinalEvent {
  type: 'final';
  questionId: number | string;
  answerId: number | string;
  /** The whole answer, authoritative: what the user must end up seeing. */
  answer: string;
  totalTokens: number;
  /** The service had nothing to say (offer a human). Only some answers carry it. */
  noAnswer?: boolean;
}

export type AnswerEvent = DeltaEvent | FinalEvent;
