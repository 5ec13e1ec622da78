/**
 * Local chatbot service under load: RealEstateList over 100,000 listings (filtered by city and sale
 * type, pages of 20) against a bare fastify route answering a constant, same request, same
 * concurrency. The servers run in a worker thread so the load generator never shares their event loop.
 */
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface LoadFigures {
  requests: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ServiceBenchResult {
  listings: number;
  concurrency: number;
  durationMs: number;
  service: LoadFigures;
  bare: LoadFigures;
  /** service.rps / bare.rps */
  ratio: number;
  targets: { ratioAtLeast: number; p99BelowMs: number; met: boolean };
}

export interface ServiceBenchOptions {
  durationMs?: number;
  concurrency?: number;
  listings?: number;
}

const CHATBOT = 'bench';
const SESSION_KEY = 'bench-session-key';
const CITIES = ['Austin', 'Denver', 'Seattle', 'Miami'];
const ROLE = 'chatbot-service-bench-server';

interface ServerReady {
  servicePort: number;
  barePort: number;
}

/** Worker side: the local service with `n` listings, and the bare route, both listening. */
async function serveInWorker(n: number): Promise<void> {
  const [{ buildLocalService }, { syntheticListings }, { default: Fastify }] = await Promise.all([
    import('../src/local-service/index'),
    import('../src/local-service/demo/demo-listings'),
    import('fastify'),
  ]);
  const svc = buildLocalService({ dbPath: ':memory:', chatbotId: CHATBOT, sessionKey: SESSION_KEY });
  const repo = svc.context.listings;
  // The demo chatbot's 24 listings are replaced by the synthetic set.
  repo.delete(
    CHATBOT,
    'ListingId',
    repo.search(CHATBOT, {}, 1000).map((l) => String(l.id)),
  );
  repo.createMany(CHATBOT, syntheticListings(n));
  await svc.app.listen({ port: 0, host: '127.0.0.1' });

  // The constant is a real page of the same query, captured once: both routes move the same bytes,
  // so the ratio measures the service's own work (auth, validation, SQLite), not the transport.
  const page = await svc.app.inject({
    method: 'POST',
    url: '/chat/Chatbot/RealEstateList',
    headers: { 'content-type': 'application/json', 'chatrobot-sessionkey': SESSION_KEY },
    payload: JSON.stringify({
      SerialNumber: CHATBOT,
      CityName: 'Denver',
      SaleType: 'for_rent',
      PageNumber: 1,
      PageSize: 20,
    }),
  });
  const constant = page.body;
  const bare = Fastify({ logger: false });
  bare.post('/chat/Chatbot/RealEstateList', (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(constant),
  );
  await bare.listen({ port: 0, host: '127.0.0.1' });

  const port = (s: http.Server): number => {
    const a = s.address();
    return typeof a === 'object' && a ? a.port : 0;
  };
  parentPort?.postMessage({ servicePort: port(svc.app.server), barePort: port(bare.server) } satisfies ServerReady);
  parentPort?.on('message', (m: unknown) => {
    if (m === 'stop') void Promise.all([svc.app.close(), bare.close()]).then(() => process.exit(0));
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function postOnce(agent: http.Agent, port: number, body: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/chat/Chatbot/RealEstateList',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'chatrobot-sessionkey': SESSION_KEY,
        },
      },
      (res) => {
        // The whole answer is read (part of the cost measured) and discarded.
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

/** `concurrency` loops on keep-alive connections, each sending its next request when one returns. */
async function load(port: number, concurrency: number, durationMs: number): Promise<LoadFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const bodies = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({
      SerialNumber: CHATBOT,
      CityName: CITIES[i % CITIES.length],
      SaleType: i % 2 === 0 ? 'for_sale' : 'for_rent',
      PageNumber: 1 + (i % 50),
      PageSize: 20,
    }),
  );
  const run = async (ms: number, record: boolean): Promise<{ lat: number[]; errors: number; elapsed: number }> => {
    const lat: number[] = [];
    let errors = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(ms) * 1_000_000n;
    let k = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (process.hrtime.bigint() < end) {
          const t0 = process.hrtime.bigint();
          const ok = await postOnce(agent, port, bodies[k++ % bodies.length]);
          if (record) lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (!ok) errors++;
        }
      }),
    );
    return { lat, errors, elapsed: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  await run(Math.min(1000, durationMs / 4), false); // warm-up: JIT, connections, SQLite page cache
  const { lat, errors, elapsed } = await run(durationMs, true);
  agent.destroy();
  const sorted = Float64Array.from(lat).sort();
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return {
    requests: lat.length,
    errors,
    rps: Math.round((lat.length / elapsed) * 1000),
    p50Ms: r2(percentile(sorted, 50)),
    p99Ms: r2(percentile(sorted, 99)),
  };
}

export async function runServiceBench(opts: ServiceBenchOptions = {}): Promise<ServiceBenchResult> {
  const durationMs = opts.durationMs ?? 5000;
  const concurrency = opts.concurrency ?? 32;
  const listings = opts.listings ?? 100_000;
  const worker = new Worker(__filename, { workerData: { role: ROLE, listings } });
  try {
    const ready = await new Promise<ServerReady>((resolve, reject) => {
      worker.once('message', (m: ServerReady) => resolve(m));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`bench server exited with code ${code}`)));
    });
    const bare = await load(ready.barePort, concurrency, durationMs);
    const service = await load(ready.servicePort, concurrency, durationMs);
    const ratio = Math.round((service.rps / Math.max(1, bare.rps)) * 100) / 100;
    return {
      listings,
      concurrency,
      durationMs,
      service,
      bare,
      ratio,
      targets: { ratioAtLeast: 0.5, p99BelowMs: 20, met: ratio >= 0.5 && service.p99Ms < 20 && service.errors === 0 },
    };
  } finally {
    worker.postMessage('stop');
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => void worker.terminate().then(() => resolve()), 2000);
      worker.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

export function formatServiceBench(r: ServiceBenchResult): string {
  const row = (name: string, f: LoadFigures): string =>
    `${name.padEnd(34)} ${String(f.rps).padStart(8)} ${f.p50Ms.toFixed(2).padStart(8)} ${f.p99Ms.toFixed(2).padStart(8)} ${String(f.errors).padStart(7)}`;
  return [
    `Local chatbot service: RealEstateList, ${r.listings.toLocaleString('en-US')} listings, city + sale type filter, page of 20, ${r.concurrency} keep-alive connections, ${r.durationMs / 1000} s`,
    `${'route'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`,
    row('RealEstateList (local service)', r.service),
    row('bare fastify route (constant)', r.bare),
    `ratio ${r.ratio} (target >= ${r.targets.ratioAtLeast}); p99 ${r.service.p99Ms} ms (target < ${r.targets.p99BelowMs} ms): ${r.targets.met ? 'met' : 'NOT met'}`,
  ].join('\n');
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  void serveInWorker((workerData as { listings: number }).listings);
} else if (require.main === module) {
  runServiceBench().then(
    (r) => {
      console.log(formatServiceBench(r));
      console.log(JSON.stringify(r));
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
