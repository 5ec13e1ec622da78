/** Streamed answers: framings, casing, byte splits, interruption, idle timeout, abort, errors. */
import { ChatbotClient } from '../../src/service/client';
import type { AnswerEvent } from '../../src/service/answer-events';
import { InterruptedStreamError, RateLimitedError, TimeoutError } from '../../src/service/errors';
import { readAnswerStream } from '../../src/service/stream';
import { controlledStream, fail, json, ndjson, sse, streamOf, useScriptedClient } from '../support/fake-chatbot-server';

const ASK = '/chat/Chat/ClientAsk';
const ANSWER = 'Prix: 1 250 000 € — maison 🏡 à Montréal.';
const FRAGMENTS = ['Prix: 1 250 000 € ', '— maison 🏡 ', 'à Montréal.'];
const FINAL = { QuestionID: 11, AnswerID: 12, Answer: ANSWER, TotalToken: 42 };

const scripted = useScriptedClient({ secretKey: 'sk', apiKey: 'ak', timeoutMs: 2000, idleTimeoutMs: 2000 });

async function collect(it: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const expected: AnswerEvent[] = [
  ...FRAGMENTS.map((text) => ({ type: 'delta' as const, text })),
  { type: 'final', questionId: 11, answerId: 12, answer: ANSWER, totalTokens: 42 },
];

describe('framings over HTTP', () => {
  test('NDJSON (no prefix), request carries stream: true and raw Authorization', async () => {
    scripted.server.on(
      'POST',
      ASK,
      streamOf(ndjson([...FRAGMENTS.map((content) => ({ content })), FINAL]), { contentType: 'text/event-stream' }),
    );
    await expect(collect(scripted.client.askStream({ sessionId: 3, content: 'prix?' }))).resolves.toEqual(expected);
    expect(scripted.server.requests[0].json).toEqual({ sessionID: 3, content: 'prix?', stream: true });
    expect(scripted.server.requests[0].headers.authorization).toBe('sk');
  });

  test('NDJSON with blank lines between objects and CRLF endings', async () => {
    const body = [...FRAGMENTS.map((content) => ({ content })), FINAL]
      .map((o) => `${JSON.stringify(o)}\r\n\r\n`)
      .join('');
    scripted.server.on('POST', ASK, streamOf([body]));
    await expect(collect(scripted.client.askStream({ sessionId: 3, content: 'q' }))).resolves.toEqual(expected);
  });

  test('SSE with event:/id: lines and a comment', async () => {
    const frames = [...FRAGMENTS.map((content) => ({ content })), FINAL].map(
      (o, i) => `: keep-alive\nevent: message\nid: ${i}\ndata: ${JSON.stringify(o)}\n\n`,
    );
    scripted.server.on('POST', ASK, streamOf(frames));
    await expect(collect(scripted.client.askStream({ sessionId: 3, content: 'q' }))).resolves.toEqual(expected);
  });

  test('member names in other casings (questionid, AnswerId, answer, totaltoken, noAnswer)', async () => {
    const final = { questionid: 11, AnswerId: 12, answer: ANSWER, totaltoken: 42, noAnswer: true };
    scripted.server.on('POST', ASK, streamOf(sse([...FRAGMENTS.map((c) => ({ Content: c })), final])));
    const events = await collect(scripted.client.askStream({ sessionId: 3, content: 'q' }));
    expect(events.slice(0, 3)).toEqual(expected.slice(0, 3));
    expect(events[3]).toEqual({
      type: 'final',
      questionId: 11,
      answerId: 12,
      answer: ANSWER,
      totalTokens: 42,
      noAnswer: true,
    });
  });

  test('messageid is accepted as the answer id', async () => {
    scripted.server.on(
      'POST',
      ASK,
      streamOf(ndjson([{ content: 'ok' }, { QuestionID: 1, messageid: 99, Answer: 'ok', TotalToken: 1 }])),
    );
    const events = await collect(scripted.client.askStream({ sessionId: 3, content: 'q' }));
    expect(events[1]).toMatchObject({ type: 'final', answerId: 99 });
  });

  test('a chunk split inside a multi-byte character', async () => {
    const { handler, control } = controlledStream('application/x-ndjson');
    scripted.server.on('POST', ASK, handler);
    const it = scripted.client.askStream({ sessionId: 3, content: 'q' })[Symbol.asyncIterator]();
    const first = it.next();
    const stream = await control;
    const second = Buffer.from(`${JSON.stringify({ content: '🏡 maison' })}\n`, 'utf8');
    const cut = second.indexOf(Buffer.from('🏡')) + 2; // two of the emoji's four bytes
    await stream.write(
      Buffer.concat([Buffer.from(`${JSON.stringify({ content: 'Une ' })}\n`), second.subarray(0, cut)]),
    );
    // The first fragment is delivered while half of the emoji is still in flight.
    await expect(first).resolves.toEqual({ done: false, value: { type: 'delta', text: 'Une ' } });
    await stream.write(second.subarray(cut));
    await expect(it.next()).resolves.toEqual({ done: false, value: { type: 'delta', text: '🏡 maison' } });
    await stream.write(`${JSON.stringify({ QuestionID: 1, AnswerID: 2, Answer: 'Une 🏡 maison', TotalToken: 3 })}\n`);
    stream.end();
    await expect(it.next()).resolves.toMatchObject({ value: { type: 'final', answer: 'Une 🏡 maison' } });
    await expect(it.next()).resolves.toEqual({ done: true, value: undefined });
  });

  test('v1 sendMessageStream: SSE deltas then the {message_id, conversation_id, response} final', async () => {
    const final = {
      message_id: 'm1',
      conversation_id: 'c1',
      response: { id: 'm2', content: ANSWER, timestamp: '2024-01-01T00:00:00Z' },
    };
    scripted.server.on(
      'POST',
      '/v1/conversations/c1/messages',
      streamOf(sse([...FRAGMENTS.map((content) => ({ content })), final])),
    );
    const events = await collect(scripted.client.v1.sendMessageStream('c1', 'prix?'));
    expect(events).toEqual([
      ...expected.slice(0, 3),
      { type: 'final', questionId: 'm1', answerId: 'm2', answer: ANSWER, totalTokens: 0 },
    ]);
    const req = scripted.server.requests[0];
    expect(req.json).toEqual({ content: 'prix?', stream: true });
    expect(req.headers.authorization).toBe('Bearer ak');
  });
});

describe('broken streams', () => {
  test('ends without a final object: InterruptedStreamError with the partial text', async () => {
    scripted.server.on('POST', ASK, streamOf(ndjson(FRAGMENTS.slice(0, 2).map((content) => ({ content })))));
    const seen: AnswerEvent[] = [];
    const err = await (async () => {
      for await (const e of scripted.client.askStream({ sessionId: 1, content: 'q' })) seen.push(e);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedStreamError);
    expect(err).toMatchObject({ reason: 'ended', partialText: FRAGMENTS[0] + FRAGMENTS[1] });
    expect(seen).toHaveLength(2);
  });

  test('connection broken mid-stream: InterruptedStreamError (connection-lost)', async () => {
    const { handler, control } = controlledStream();
    scripted.server.on('POST', ASK, handler);
    const it = scripted.client.askStream({ sessionId: 1, content: 'q' })[Symbol.asyncIterator]();
    const first = it.next();
    const stream = await control;
    await stream.write(sse([{ content: 'Hal' }])[0]);
    await expect(first).resolves.toMatchObject({ value: { text: 'Hal' } });
    stream.destroy();
    await expect(it.next()).rejects.toMatchObject({ name: 'InterruptedStreamError', partialText: 'Hal' });
  });

  test('idle timeout between fragments: InterruptedStreamError (idle-timeout, cause TimeoutError)', async () => {
    const { handler, control } = controlledStream();
    scripted.server.on('POST', ASK, handler);
    const it = scripted.client
      .askStream({ sessionId: 1, content: 'q' }, { idleTimeoutMs: 250 })
      [Symbol.asyncIterator]();
    const first = it.next();
    const stream = await control;
    await stream.write(sse([{ content: 'Hello' }])[0]);
    await expect(first).resolves.toMatchObject({ value: { text: 'Hello' } });
    const err = await it.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedStreamError);
    expect(err).toMatchObject({ reason: 'idle-timeout', partialText: 'Hello' });
    expect((err as Error).cause).toBeInstanceOf(TimeoutError);
  });

  test('the idle timeout is per fragment, not for the whole answer', async () => {
    const { handler, control } = controlledStream();
    scripted.server.on('POST', ASK, handler);
    const it = scripted.client
      .askStream({ sessionId: 1, content: 'q' }, { idleTimeoutMs: 400 })
      [Symbol.asyncIterator]();
    const pending = it.next();
    const stream = await control;
    // Six fragments 100 ms apart: the whole answer takes longer than the 400 ms idle timeout (six gaps
    // of 100 ms), each gap stays well under it.
    let next = pending;
    for (let i = 0; i < 6; i++) {
      await stream.write(sse([{ content: `${i}` }])[0]);
      await expect(next).resolves.toMatchObject({ value: { text: `${i}` } });
      await new Promise<void>((r) => setTimeout(r, 100)); // the gap under test, not synchronisation
      next = it.next();
    }
    await stream.write(sse([{ QuestionID: 1, AnswerID: 2, Answer: '012345', TotalToken: 6 }])[0]);
    await expect(next).resolves.toMatchObject({ value: { type: 'final', answer: '012345' } });
  });

  test('AbortSignal cancels the stream', async () => {
    const { handler, control } = controlledStream();
    scripted.server.on('POST', ASK, handler);
    const ac = new AbortController();
    const it = scripted.client.askStream({ sessionId: 1, content: 'q' }, { signal: ac.signal })[Symbol.asyncIterator]();
    const first = it.next();
    const stream = await control;
    await stream.write(sse([{ content: 'Hi' }])[0]);
    await first;
    const second = it.next();
    ac.abort();
    await expect(second).rejects.toMatchObject({
      name: 'InterruptedStreamError',
      reason: 'aborted',
      partialText: 'Hi',
    });
  });

  test('no response headers within timeoutMs: TimeoutError', async () => {
    scripted.server.on('POST', ASK, () => undefined);
    const c = new ChatbotClient({ baseUrl: scripted.server.baseUrl, secretKey: 'sk', timeoutMs: 200 });
    await expect(collect(c.askStream({ sessionId: 1, content: 'q' }))).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('errors in place of a stream', () => {
  test('rate-limit envelope (HTTP 200, JSON) throws RateLimitedError with the message', async () => {
    scripted.server.on('POST', ASK, fail(429, 'Too many messages. Wait a minute.'));
    const err = await collect(scripted.client.askStream({ sessionId: 1, content: 'q' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as Error).message).toBe('Too many messages. Wait a minute.');
  });

  test('error envelope as an SSE data line throws the typed error', async () => {
    scripted.server.on(
      'POST',
      ASK,
      streamOf(sse([{ Data: null, Version: '1.0.0', Success: false, Code: 500, Message: 'model offline' }])),
    );
    await expect(collect(scripted.client.askStream({ sessionId: 1, content: 'q' }))).rejects.toMatchObject({
      name: 'ServiceError',
      code: 500,
      message: 'model offline',
    });
  });

  test('HTTP 429 with a pretty-printed envelope body', async () => {
    scripted.server.on('POST', ASK, (_req, res) => {
      res.writeHead(429, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ Data: null, Version: '1.0.0', Success: false, Code: 429, Message: 'Slow down' }, null, 2),
      );
    });
    await expect(collect(scripted.client.askStream({ sessionId: 1, content: 'q' }))).rejects.toBeInstanceOf(
      RateLimitedError,
    );
  });

  test('a non-stream success envelope is turned into delta + final', async () => {
    scripted.server.on(
      'POST',
      ASK,
      json({
        Data: { messageid: 5, content: 'whole', totalToken: 2, noAnswer: false },
        Version: '1.0.0',
        Success: true,
        Code: 200,
        Message: '',
      }),
    );
    await expect(collect(scripted.client.askStream({ sessionId: 1, content: 'q' }))).resolves.toEqual([
      { type: 'delta', text: 'whole' },
      { type: 'final', questionId: 0, answerId: 5, answer: 'whole', totalTokens: 2, noAnswer: false },
    ]);
  });

  test('v1 error body on a stream is typed', async () => {
    scripted.server.on(
      'POST',
      '/v1/conversations/c1/messages',
      json({ success: false, error: { code: 'rate_limited', message: 'easy' } }, 429),
    );
    await expect(collect(scripted.client.v1.sendMessageStream('c1', 'x'))).rejects.toBeInstanceOf(RateLimitedError);
  });
});

describe('readAnswerStream at every byte split', () => {
  const objects = [...FRAGMENTS.map((content) => ({ content })), FINAL];
  const bodies: Array<[string, Buffer]> = [
    ['ndjson', Buffer.from(ndjson(objects).join(''), 'utf8')],
    ['sse', Buffer.from(sse(objects).join(''), 'utf8')],
  ];
  async function* pieces(buf: Buffer, cuts: number[]): AsyncGenerator<Uint8Array> {
    let start = 0;
    for (const cut of cuts) {
      yield buf.subarray(start, cut);
      start = cut;
    }
    yield buf.subarray(start);
  }
  test.each(bodies)('%s: every two-piece split gives the same events', async (_name, buf) => {
    for (let cut = 1; cut < buf.length; cut++) {
      const events: AnswerEvent[] = [];
      for await (const e of readAnswerStream(pieces(buf, [cut]), {
        operation: 't',
        idleTimeoutMs: 1000,
        cancel: () => undefined,
      }))
        events.push(e);
      expect(events).toEqual(expected);
    }
  });
  test.each(bodies)('%s: one byte at a time', async (_name, buf) => {
    const cuts = Array.from({ length: buf.length - 1 }, (_, i) => i + 1);
    const events: AnswerEvent[] = [];
    for await (const e of readAnswerStream(pieces(buf, cuts), {
      operation: 't',
      idleTimeoutMs: 1000,
      cancel: () => undefined,
    }))
      events.push(e);
    expect(events).toEqual(expected);
  });
  test('a final line without a trailing newline still completes the answer', async () => {
    const buf = Buffer.from(
      `${JSON.stringify({ content: 'a' })}\n${JSON.stringify({ Answer: 'a', AnswerID: 1, QuestionID: 1, TotalToken: 1 })}`,
    );
    const events: AnswerEvent[] = [];
    for await (const e of readAnswerStream(pieces(buf, []), {
      operation: 't',
      idleTimeoutMs: 1000,
      cancel: () => undefined,
    }))
      events.push(e);
    expect(events.map((e) => e.type)).toEqual(['delta', 'final']);
  });
  test('stops reading and cancels after the final object', async () => {
    let cancelled = 0;
    const buf = Buffer.from(
      ndjson([{ content: 'a' }, { Answer: 'a', AnswerID: 1, QuestionID: 1, TotalToken: 1 }, { content: 'late' }]).join(
        '',
      ),
    );
    const events: AnswerEvent[] = [];
    for await (const e of readAnswerStream(pieces(buf, []), {
      operation: 't',
      idleTimeoutMs: 1000,
      cancel: () => void cancelled++,
    }))
      events.push(e);
    expect(events.map((e) => e.type)).toEqual(['delta', 'final']);
    expect(cancelled).toBe(1);
  });
});
