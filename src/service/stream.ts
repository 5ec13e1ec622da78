/**
 * Reads a streamed answer body (bytes) into AnswerEvents. Accepts NDJSON and SSE framing (detected
 * from the first non-blank character), member names in any casing, both API families' final
 * objects, and an error envelope in place of a stream.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { AnswerEvent, FinalEvent } from './answer-events';
import { InterruptedStreamError, ServiceError, TimeoutError } from './errors';
import { errorFromBody, isRecord, lowerKeys } from './failures';
import type { CallSpec, HttpCore } from './http';

export interface ReadStreamOptions {
  operation: string;
  /** Silence allowed between two chunks of the body. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  /** Stops the underlying request (called on idle timeout, abort, early exit, after final). */
  cancel(): void;
}

type Parsed =
  | { kind: 'delta'; text: string }
  | { kind: 'final'; event: Omit<FinalEvent, 'answer'> & { answer?: string } }
  | { kind: 'skip' };

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function idOf(v: unknown): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return /^\d+$/.test(v) && v.length < 16 ? Number(v) : v;
  return 0;
}

/** One JSON object of the stream. Throws the typed error for a failure envelope. */
export function interpretObject(operation: string, obj: unknown): Parsed {
  if (!isRecord(obj)) return { kind: 'skip' };
  const failure = errorFromBody(operation, obj);
  if (failure) throw failure;
  const o = lowerKeys(obj);
  // A whole non-stream answer wrapped in an envelope (a service that ignored stream: true).
  if (o.success === true && 'data' in o) return interpretObject(operation, o.data);

  const response = isRecord(o.response) ? lowerKeys(o.response) : undefined;
  if (response && typeof response.content === 'string') {
    // /v1 final: {message_id, conversation_id, response: {id, content, timestamp}}
    return {
      kind: 'final',
      event: {
        type: 'final',
        questionId: str(o.message_id) ?? '',
        answerId: str(response.id) ?? '',
        answer: response.content,
        totalTokens: typeof o.total_tokens === 'number' ? o.total_tokens : 0,
      },
    };
  }
  const isFinal = ['answer', 'answerid', 'questionid', 'totaltoken', 'messageid'].some((k) => k in o);
  if (isFinal) {
    const answer = str(o.answer) ?? ('messageid' in o ? str(o.content) : undefined);
    const tokens = o.totaltoken;
    return {
      kind: 'final',
      event: {
        type: 'final',
        questionId: idOf(o.questionid),
        answerId: idOf(o.answerid ?? o.messageid),
        answer,
        totalTokens:
          typeof tokens === 'number' ? tokens : typeof tokens === 'string' && /^\d+$/.test(tokens) ? Number(tokens) : 0,
        ...(typeof o.noanswer === 'boolean' ? { noAnswer: o.noanswer } : {}),
      },
    };
  }
  if (typeof o.content === 'string') return { kind: 'delta', text: o.content };
  return { kind: 'skip' };
}

/** Splits decoded text into JSON values, by framing; each object is parsed once, here. */
class Framer {
  private framing: 'sse' | 'ndjson' | undefined;
  private pending = '';
  private carry = '';
  private readonly sse: EventSourceParser;
  private readonly out: unknown[] = [];

  constructor() {
    this.sse = createParser({
      onEvent: (event) => {
        const data = event.data.trim();
        // `[DONE]` and other non-JSON payloads carry nothing to show.
        if (data === '' || data === '[DONE]') return;
        try {
          this.out.push(JSON.parse(data));
        } catch {
          // not a JSON object: skipped
        }
      },
    });
  }

  /** Feeds text; returns the complete JSON values found so far. */
  feed(text: string): unknown[] {
    if (this.framing === undefined) {
      this.pending += text;
      const start = this.pending.trimStart();
      if (start === '') return [];
      this.framing = start.startsWith('{') || start.startsWith('[') ? 'ndjson' : 'sse';
      text = this.pending;
      this.pending = '';
    }
    if (this.framing === 'sse') this.sse.feed(text);
    else this.feedLines(text);
    return this.out.splice(0);
  }

  /** End of body: flushes a last event/line that had no terminator. */
  end(): unknown[] {
    if (this.framing === 'sse') this.sse.reset({ consume: true });
    else if (this.framing === 'ndjson') {
      this.feedLines('\n');
      // A trailing fragment that never became JSON is dropped.
      this.carry = '';
    }
    return this.out.splice(0);
  }

  private feedLines(text: string): void {
    this.pending += text;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      // A JSON value may span lines (a pretty-printed error envelope): join until it parses.
      const candidate = this.carry === '' ? line : `${this.carry}\n${line}`;
      try {
        this.out.push(JSON.parse(candidate));
        this.carry = '';
      } catch {
        this.carry = candidate;
      }
    }
  }
}

const IDLE = Symbol('idle');
const ABORTED = Symbol('aborted');

/** Reads `body` until the final object; see the module comment. */
export async function* readAnswerStream(
  body: AsyncIterable<Uint8Array | string>,
  opts: ReadStreamOptions,
): AsyncGenerator<AnswerEvent, void, undefined> {
  const { operation } = opts;
  const decoder = new TextDecoder('utf-8');
  const framer = new Framer();
  const iterator = body[Symbol.asyncIterator]();
  const read: ReadSoFar = { partial: '' };
  const abort = whenAborted(opts.signal);
  try {
    for (;;) {
      const step = await nextChunk(iterator, opts, abort.aborted, read.partial);
      if (step.done) break;
      const chunk = step.value;
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      if (yield* eventsOf(operation, framer.feed(text), read)) return;
    }
    if (yield* eventsOf(operation, framer.feed(decoder.decode()), read)) return;
    if (yield* eventsOf(operation, framer.end(), read)) return;
    throw new InterruptedStreamError(operation, read.partial, 'ended');
  } finally {
    abort.dispose();
    // Stop the request whether we finished, failed, or the consumer stopped early.
    opts.cancel();
    // Let the source release its resources; ignore errors from an already-destroyed body.
    void iterator.return?.().catch(() => undefined);
  }
}

/** The answer's text so far (what an interrupted answer keeps). */
interface ReadSoFar {
  partial: string;
}

/** Resolves when `signal` aborts (never without one); `dispose` removes the listener. */
function whenAborted(signal: AbortSignal | undefined): { aborted: Promise<typeof ABORTED>; dispose(): void } {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    if (!signal) return;
    onAbort = () => resolve(ABORTED);
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return {
    aborted,
    dispose: () => {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** The body's next chunk, or why the answer stops there: idle timeout, abort, a broken connection. */
async function nextChunk(
  iterator: AsyncIterator<Uint8Array | string>,
  opts: ReadStreamOptions,
  aborted: Promise<typeof ABORTED>,
  partial: string,
): Promise<IteratorResult<Uint8Array | string>> {
  const { operation } = opts;
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => {
    timer = setTimeout(() => resolve(IDLE), opts.idleTimeoutMs);
  });
  let step: IteratorResult<Uint8Array | string> | typeof IDLE | typeof ABORTED;
  try {
    step = await Promise.race([iterator.next(), idle, aborted]);
  } catch (err) {
    if (opts.signal?.aborted)
      throw new InterruptedStreamError(operation, partial, 'aborted', undefined, { cause: err });
    if (err instanceof ServiceError) throw err;
    throw new InterruptedStreamError(operation, partial, 'connection-lost', undefined, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  if (step === IDLE) {
    const cause = new TimeoutError(
      operation,
      opts.idleTimeoutMs,
      `${operation}: no part of the answer arrived for ${opts.idleTimeoutMs} ms`,
    );
    throw new InterruptedStreamError(operation, partial, 'idle-timeout', undefined, { cause });
  }
  if (step === ABORTED) throw new InterruptedStreamError(operation, partial, 'aborted');
  return step;
}

/** The events of the JSON values read so far; true once the final object was among them. */
function* eventsOf(operation: string, values: unknown[], read: ReadSoFar): Generator<AnswerEvent, boolean, undefined> {
  for (const value of values) {
    const parsed = interpretObject(operation, value);
    if (parsed.kind === 'delta') {
      if (parsed.text === '') continue;
      read.partial += parsed.text;
      yield { type: 'delta', text: parsed.text };
    } else if (parsed.kind === 'final') {
      const answer = parsed.event.answer ?? read.partial;
      if (read.partial === '' && answer !== '') yield { type: 'delta', text: answer };
      yield { ...parsed.event, answer };
      return true;
    }
  }
  return false;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Overrides the client's idle timeout for this answer. */
  idleTimeoutMs?: number;
}

/** Opens a streamed call lazily (on first iteration) and reads it; shared by both families. */
export async function* streamFrom(
  http: HttpCore,
  makeSpec: () => CallSpec,
  opts: StreamOptions,
  defaultIdleMs: number,
): AsyncGenerator<AnswerEvent, void, undefined> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? defaultIdleMs;
  const base = makeSpec();
  // Waiting for the headers is silence too: the answer's idle timeout bounds it when shorter.
  const spec = { ...base, timeoutMs: Math.min(base.timeoutMs ?? http.timeoutMs, idleTimeoutMs) };
  const { body, cancel } = await http.stream(spec, opts.signal);
  yield* readAnswerStream(body, {
    operation: spec.operation,
    idleTimeoutMs,
    signal: opts.signal,
    cancel,
  });
}
