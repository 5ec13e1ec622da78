/**
 * A scripted chatbot service for fault tests: the FakeChatbotServer in front of the real local
 * service. Every request is recorded and forwarded as is (streams piped through), except ClientAsk,
 * which the test may answer itself for a while (5xx, silence, a stream cut mid-answer).
 */
import http, { type ServerResponse } from 'node:http';
import { FakeChatbotServer, sendJson, type Handler, type RecordedRequest } from '../../support/fake-chatbot-server';

export const CLIENT_ASK = '/chat/Chat/ClientAsk';

export interface ServiceProxy {
  server: FakeChatbotServer;
  url: string;
  /** Where requests go when not scripted (the local service), set once it listens. */
  setTarget(url: string): void;
  /** The next ClientAsk requests are answered by these handlers, one each; then forwarding resumes. */
  scriptAsk(...handlers: Handler[]): void;
  /** ClientAsk requests recorded so far (forwarded or scripted). */
  asks(): RecordedRequest[];
  close(): Promise<void>;
}

function forward(target: string, req: RecordedRequest, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const headers = { ...req.headers };
    delete headers.host;
    headers['content-length'] = String(req.body.length);
    const query = req.query.toString();
    const upstream = http.request(
      `${target}${req.path}${query ? `?${query}` : ''}`,
      { method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on('end', () => resolve());
        up.on('error', () => {
          res.destroy();
          resolve();
        });
      },
    );
    // The bridge gave up (idle timeout, shutdown): stop the answer upstream too.
    res.on('close', () => upstream.destroy());
    upstream.on('error', () => {
      if (!res.headersSent) sendJson(res, 502, { error: 'proxy: upstream unreachable' });
      else res.destroy();
      resolve();
    });
    upstream.end(req.body);
  });
}

export async function startServiceProxy(): Promise<ServiceProxy> {
  const server = await FakeChatbotServer.start();
  let target = '';
  const scripted: Handler[] = [];
  server.fallback(async (req, res) => {
    await forward(target, req, res);
    return true;
  });
  server.on('POST', CLIENT_ASK, async (req, res, raw) => {
    const next = scripted.shift();
    if (next) await next(req, res, raw);
    else await forward(target, req, res);
  });
  return {
    server,
    url: server.baseUrl,
    setTarget(url) {
      target = url;
    },
    scriptAsk(...handlers) {
      scripted.push(...handlers);
    },
    asks: () => server.requestsTo(CLIENT_ASK),
    close: () => server.close(),
  };
}

/** What `behindServiceProxy` starts: an app that embeds its own local service. */
interface WithService {
  service: { app: { server: { address(): ReturnType<import('node:net').Server['address']> } } };
  close(): Promise<void>;
}

/**
 * An app that asks its chatbot service through a proxy the test scripts: `start` is given the proxy's
 * URL (for CHATBOT_API_URL), the proxy forwards to the app's own local service once it listens, and
 * both close together, the app first.
 */
export async function behindServiceProxy<E extends WithService>(
  start: (serviceUrl: string) => Promise<E>,
): Promise<{ e: E; proxy: ServiceProxy; close(): Promise<void> }> {
  const proxy = await startServiceProxy();
  const e = await start(proxy.url);
  const addr = e.service.app.server.address();
  proxy.setTarget(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`);
  return {
    e,
    proxy,
    async close() {
      await e.close();
      await proxy.close();
    },
  };
}
