/**
 * The one address Slack's requests go to, in front of several bridge instances: round robin, as a
 * platform router or load balancer spreads requests. A request to an instance that refuses the
 * connection (killed) goes to the next one, as a load balancer's health check would send it; every
 * routing is recorded, so the bench knows which instance took each `/ask`.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Routed {
  /** The instance's index in the proxy's list. */
  instance: number;
  body: string;
  status: number;
}

export class RoundRobinProxy {
  readonly routed: Routed[] = [];
  /** Requests no instance took (every one refused the connection). */
  failed = 0;
  private next = 0;
  private readonly down = new Set<number>();
  private server: Server | undefined;
  url = '';

  constructor(private readonly targets: () => string[]) {}

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const targets = this.targets();
    for (let tries = 0; tries < targets.length; tries++) {
      const i = this.pick(targets.length);
      if (i === undefined) break;
      try {
        const answer = await forward(`${targets[i]}${req.url ?? '/'}`, req, body);
        this.routed.push({ instance: i, body: body.toString('utf8'), status: answer.status });
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
        return;
      } catch {
        // Connection refused or reset: the instance is gone; the next one takes the request.
        this.down.add(i);
      }
    }
    this.failed++;
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('no instance answered');
  }

  private pick(n: number): number | undefined {
    for (let k = 0; k < n; k++) {
      const i = this.next % n;
      this.next++;
      if (!this.down.has(i)) return i;
    }
    return undefined;
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function forward(url: string, req: IncomingMessage, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    }
    headers['content-length'] = String(body.length);
    const out = request(url, { method: req.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        // What a browser needs of the install pages too: the redirect and the state's cookie.
        const h: Record<string, string | string[]> = {};
        for (const name of ['content-type', 'location', 'set-cookie']) {
          const v = res.headers[name];
          if (v !== undefined) h[name] = v;
        }
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
      });
    });
    out.on('error', reject);
    out.end(body);
  });
}
