/**
 * Reading one answer's event stream: its deltas and its final in order, and the ways it ends early
 * (a stop signal, a stream that breaks or ends without its final; silence is the stream's to end:
 * the service client ends one that goes quiet past its idle timeout with an error),
 * each handed to the reader's sink once. The relay knows no service: the words for an error come
 * from its caller (`explain`).
 */
import type { AnswerEvent, FinalEvent } from '../../service/answer-events';

export interface AnswerSink {
  delta(text: string): void;
  final(event: FinalEvent): void;
  /** The answer stopped early. `partial`: the text an error carried (it may continue the deltas). */
  interrupted(reason: string, error: unknown, partial?: string): void;
}

export interface ReadOptions {
  /** Any of these aborting stops the answer (reason: a RelayInterrupt, a string, or anything). */
  stops: AbortSignal[];
  /** The words for an error of the stream; a generic sentence when absent or when it throws. */
  explain?: (err: unknown) => string;
}

/** The reason a relay gives when it stops an answer itself (`AbortController.abort(new RelayInterrupt(...))`). */
export class RelayInterrupt extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RelayInterrupt';
  }
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return String(s >= 10 ? Math.round(s) : Math.round(s * 10) / 10);
}

/** The interruption notice's words for an answer whose stream went silent. */
export function stoppedAnswering(ms: number): string {
  return `the chatbot service stopped answering (no new text for ${seconds(ms)} s)`;
}

function partialTextOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('partialText' in err)) return undefined;
  const text = (err as { partialText?: unknown }).partialText;
  return typeof text === 'string' ? text : undefined;
}

const GENERIC = 'the answer could not be completed';

type Outcome =
  | { kind: 'event'; result: IteratorResult<AnswerEvent> }
  | { kind: 'error'; error: unknown }
  | { kind: 'stopped'; reason: string };

/** Reads `events` into `sink` until the final or an early end; never throws. */
export async function readAnswer(
  events: AsyncIterable<AnswerEvent>,
  opts: ReadOptions,
  sink: AnswerSink,
): Promise<void> {
  const explain = (err: unknown): string => {
    try {
      return opts.explain?.(err) ?? GENERIC;
    } catch {
      return GENERIC;
    }
  };
  const iterator = events[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = iterator.next();
      next.catch(() => undefined);
      const outcome = await raceNext(next, opts);
      if (outcome.kind === 'event') {
        if (outcome.result.done) {
          sink.interrupted('the answer stream ended before it was complete', undefined);
          return;
        }
        const ev = outcome.result.value;
        if (ev.type !== 'delta') {
          sink.final(ev);
          return;
        }
        sink.delta(ev.text);
        continue;
      }
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
      if (outcome.kind === 'stopped') sink.interrupted(outcome.reason, undefined);
      else sink.interrupted(explain(outcome.error), outcome.error, partialTextOf(outcome.error));
      return;
    }
  } catch (err) {
    sink.interrupted(explain(err), err);
  }
}

/** The next event, or a stop, whichever comes first. */
function raceNext(next: Promise<IteratorResult<AnswerEvent>>, opts: ReadOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const settle = (v: Outcome): void => {
      for (const c of cleanups) c();
      resolve(v);
    };
    for (const s of opts.stops) {
      const onAbort = (): void => {
        const r: unknown = s.reason;
        const reason = r instanceof RelayInterrupt ? r.reason : typeof r === 'string' ? r : 'the bridge stopped';
        settle({ kind: 'stopped', reason });
      };
      if (s.aborted) {
        onAbort();
        return;
      }
      s.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => s.removeEventListener('abort', onAbort));
    }
    next.then(
      (result) => settle({ kind: 'event', result }),
      (error: unknown) => settle({ kind: 'error', error }),
    );
  });
}
