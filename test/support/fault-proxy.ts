/**
 * An HTTP proxy in front of a fake platform API (Slack's Web API, Discord's REST) that a test arms
 * with network failures: the next matching requests get a connection reset, no answer at all (the
 * client's timeout fires), or HTTP 500; everything else is forwarded unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'reset' | 'hang' | '500';

export interface FaultProxy {
  url: string;
  /** The next `count` requests whose path matches get `fault`. */
  arm(fault: Fault, match: RegExp, count?: number): void;
  /** Where requests are forwarded (an origin, e.g. http://127.0.0.1:1234). */
  setTarget(origin: string): void;
  /** Requests that got a fault so far. */
  faulted: Array<{ fault: Fault; path: string }>;
  close(): Promise<void>;
}

export async function startFaultProxy(target = 'http://127.0.0.1:9'): Promise<FaultProxy> {
  const armed: Array<{ fault: Fault; match: RegExp; left: number }> = [];
  const faulted: FaultProxy['faulted'] = [];
  const hanging = new Set<http.ServerResponse>();
  let base = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const rule = armed.find((a) => a.left > 0 && a.match.test(path));
      if (rule) {
        rule.left--;
        faulted.push({ fault: rule.fault, path });
        if (rule.fault === 'reset') {
          req.socket.destroy();
          return;
        }
        if (rule.fault === 'hang') {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'internal_error', message: 'Internal Server Error' }));
        return;
      }
      const headers = { ...req.headers, host: base.host };
      const up = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: `${base.pathname.replace(/\/$/, '')}${path}`,
          headers,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    faulted,
    setTarget(origin) {
      base = new URL(origin);
    },
    arm(fault, match, count = 1) {
      armed.push({ fault, match, left: count });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
