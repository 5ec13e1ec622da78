import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCompletion {
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    temperature?: number;
    stream?: boolean;
    messages: { role: string; content: string }[];
  };
}

export interface FakeOpenAi {
  /** Base URL as an OpenAI client takes it, ending in /v1. */
  baseUrl: string;
  requests: RecordedCompletion[];
  /**
   * What the next completions answer: split into `chunks` streamed deltas. `gates[i]`, when given, is
   * waited for before chunk i + 1 goes out (a test releases them to stream the answer step by step).
   */
  reply: { chunks: string[]; totalTokens?: number; status?: number; gates?: Promise<void>[] };
  close(): Promise<void>;
}

/**
 * A minimal OpenAI-compatible /v1/chat/completions: records each request and answers
 * `reply.chunks` as streamed deltas (or one message when stream is false), then usage and [DONE].
 */
export async function startFakeOpenAi(chunks: string[] = ['Hello ', 'from ', 'the model.']): Promise<FakeOpenAi> {
  const fake: Omit<FakeOpenAi, 'baseUrl' | 'close'> = { requests: [], reply: { chunks } };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as RecordedCompletion['body'];
      fake.requests.push({ headers: req.headers, body });
      const { chunks: parts, totalTokens, status } = fake.reply;
      if (status !== undefined && status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream failure"}}');
        return;
      }
      const id = `chatcmpl-${fake.requests.length}`;
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            choices: [{ index: 0, message: { role: 'assistant', content: parts.join('') }, finish_reason: 'stop' }],
            usage: { total_tokens: totalTokens ?? 42 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const frame = (o: unknown): void => void res.write(`data: ${JSON.stringify(o)}\n\n`);
      frame({ id, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
      const gates = fake.reply.gates ?? [];
      void (async () => {
        for (const [i, p] of parts.entries()) {
          if (i > 0 && i - 1 < gates.length) await gates[i - 1];
          frame({ id, choices: [{ index: 0, delta: { content: p } }] });
        }
        frame({ id, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        if (totalTokens !== undefined) frame({ id, choices: [], usage: { total_tokens: totalTokens } });
        res.end('data: [DONE]\n\n');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
