/**
 * What conversations need of the relay (src/core/relay). Kept structural so the conversation engine
 * depends on the relay's behaviour, not its construction.
 */
import type { AnswerEvent, FinalEvent } from '../../service/answer-events';
import type { Button, MessageRef, Place, SurfacePort } from '../surface';

export interface RelayRunOptions {
  surface: SurfacePort;
  place: Place;
  events: AsyncIterable<AnswerEvent>;
  placeholder?: MessageRef;
  finalButtons: Button[];
  retry: { action: string; value: string };
  idleTimeoutMs: number;
  signal?: AbortSignal;
  answerKey: string;
}

export interface RelayRunResult {
  status: 'complete' | 'interrupted';
  text: string;
  messages: MessageRef[];
  final?: FinalEvent;
  error?: unknown;
}

export interface AnswerRelay {
  run(options: RelayRunOptions): Promise<RelayRunResult>;
}
