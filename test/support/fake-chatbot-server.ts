/**
 * A small scripted HTTP server standing in for the chatbot service in client tests: records every
 * request (method, path, headers, body) and answers with whatever the test scripted for that route.
 */
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatbotClient, type ChatbotClientOptions } from '../../src/service/client';
import { errorEnvelope, okEnvelope } from '../../src/service/schemas/envelope';
import { useStarted } from './server-setup';

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, raw: http.IncomingMessage) => void | Promise<void>;
/** Answers requests no route matched; returns false to pass the request on. */
export type Fallback = (req: RecordedRequest, res: ServerResponse) => boolean | void | Promise<boolean | void>;

/** A response body written piece by piece under the test's control. */
export interface StreamControl {
  write(chunk: string | Buffer): Promise<void>;
  end(): void;
  /** Breaks the connection mid-body. */
  destroy(): void;
}

export class FakeChatbotServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, Handler[]>();
  private readonly fallbacks: Fallback[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeChatbotServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeChatbotServer(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => void fake.dispatch(req, res));
    return fake;
  }

  /**
   * Scripts a route. Several handlers answer consecutive requests in order; the last one repeats.
   * Replaces any earlier script of the same route.
   */
  on(method: string, path: string, ...handlers: Handler[]): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, handlers);
    return this;
  }

  /** Adds a handler for requests no route matches (tried in order). */
  fallback(handler: Fallback): this {
    this.fallbacks.push(handler);
    return this;
  }

  /** Requests to one path (any method), in arrival order. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  reset(): void {
    this.requests.length = 0;
    this.routes.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async dispatch(req: http.IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    let json: unknown;
    try {
      json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json,
    };
    this.requests.push(recorded);
    const handlers = this.routes.get(`${recorded.method} ${recorded.path}`);
    if (!handlers || handlers.length === 0) {
      for (const f of this.fallbacks) if ((await f(recorded, res)) !== false) return;
      sendJson(res, 404, errorEnvelope(404, `no route ${recorded.method} ${recorded.path}`));
      return;
    }
    const count = this.requests.filter((r) => r.method === recorded.method && r.path === recorded.path).length;
    const handler = handlers[Math.min(count - 1, handlers.length - 1)];
    try {
      await handler(recorded, res, req);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, errorEnvelope(500, String(err)));
      else res.destroy();
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

// ---- handler builders ----------------------------------------------------------------------------

export const ok =
  (data: unknown): Handler =>
  (_req, res) =>
    sendJson(res, 200, okEnvelope(data));

export const fail =
  (code: number, message: string, httpStatus = 200): Handler =>
  (_req, res) =>
    sendJson(res, httpStatus, errorEnvelope(code, message));

export const status =
  (httpStatus: number, body: unknown = { error: 'unavailable' }): Handler =>
  (_req, res) =>
    sendJson(res, httpStatus, body);

export const json =
  (body: unknown, httpStatus = 200): Handler =>
  (_req, res) =>
    sendJson(res, httpStatus, body);

/** Reads the whole request, then drops the connection without answering. */
export const drop: Handler = (_req, res) => {
  res.socket?.destroy();
};

/** Never answers (for timeouts); the connection is closed by the client or by close(). */
export const hang: Handler = () => undefined;

/** Streams the given pieces in order, then ends (or not, when `end` is false). */
export function streamOf(pieces: Array<string | Buffer>, opts: { contentType?: string; end?: boolean } = {}): Handler {
  return async (_req, res) => {
    const control = openStream(res, opts.contentType);
    for (const p of pieces) await control.write(p);
    if (opts.end !== false) control.end();
  };
}

/** Hands the test a StreamControl for the next request of the route (via the returned promise). */
export function controlledStream(contentType = 'text/event-stream'): {
  handler: Handler;
  control: Promise<StreamControl>;
} {
  let resolve!: (c: StreamControl) => void;
  const control = new Promise<StreamControl>((r) => {
    resolve = r;
  });
  return { handler: (_req, res) => resolve(openStream(res, contentType)), control };
}

export function openStream(res: ServerResponse, contentType = 'text/event-stream'): StreamControl {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  res.flushHeaders();
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        res.write(chunk, (err) => (err ? reject(err) : resolve()));
      }),
    end: () => res.end(),
    destroy: () => res.socket?.destroy(),
  };
}

/** SSE framing of JSON objects. */
export function sse(objects: unknown[]): string[] {
  return objects.map((o) => `data: ${JSON.stringify(o)}\n\n`);
}

/** NDJSON framing of JSON objects. */
export function ndjson(objects: unknown[]): string[] {
  return objects.map((o) => `${JSON.stringify(o)}\n`);
}

/**
 * The client tests' setup: one scripted server for the file, reset before each test, and before
 * each a fresh client on it made with `options`. Read both through the returned object in tests.
 */
export function useScriptedClient(options: Omit<ChatbotClientOptions, 'baseUrl'>): {
  readonly server: FakeChatbotServer;
  readonly client: ChatbotClient;
} {
  const server = useStarted(() => FakeChatbotServer.start());
  let client: ChatbotClient | undefined;
  beforeEach(() => {
    server.reset();
    client = new ChatbotClient({ baseUrl: server.baseUrl, ...options });
  });
  return {
    server,
    get client(): ChatbotClient {
      if (!client) throw new Error('the scripted client is made before each test: read it inside one');
      return client;
    },
  };
}
