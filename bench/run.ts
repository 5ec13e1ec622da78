/**
 * `npm run bench`: the relay under load (ours, naive, fixed interval), memory per 1,000 live
 * conversations, state store operations per second (SQLite, Redis), and the local service figures.
 * Prints a table and writes the same figures to bench-results.json in the project root.
 *
 * Environment: BENCH_CONCURRENCY (e.g. "30,50"), BENCH_RELAYS (e.g. "ours-update,naive"),
 * BENCH_SERVICE_MS (local service load duration), BENCH_REDIS_URL (store bench).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { runMemoryBench } from './memory-bench';
import { RELAY_KINDS, runRelayBench, type RelayKind } from './relay-bench';
import { evaluateTargets, formatRelayTable, formatReport, type BenchReport } from './report';
import { runServiceBench } from './service-bench';
import { runStoreBench } from './store-bench';

function listEnv(name: string): string[] | undefined {
  const v = process.env[name];
  return v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

async function main(): Promise<void> {
  const started = Date.now();
  const settings = { channels: 10, answerChars: 2_000, streamMs: 8_000, arrivalWindowMs: 6_000, graceMs: 15_000 };
  const concurrency = (listEnv('BENCH_CONCURRENCY') ?? ['30', '50']).map(Number);
  const relays = (listEnv('BENCH_RELAYS') ?? [...RELAY_KINDS]).filter((k): k is RelayKind => (RELAY_KINDS as readonly string[]).includes(k));
  const skipped: string[] = [];

  // Memory first, in a fresh process: what the relay runs leave behind would blur the heap delta.
  console.error('memory bench ...');
  const memory = await runMemoryBench(1_000).catch((err: unknown) => {
    skipped.push(`memory: ${String(err)}`);
    return undefined;
  });

  console.error(`relay bench: ${relays.join(', ')} at ${concurrency.join(' and ')} concurrent answers ...`);
  const relay = await runRelayBench({ ...settings, concurrency, relays }, (f) =>
    console.error(`  ${f.name} x ${f.concurrent}: ${f.exactPct}% exact, ${f.rateLimited} 429s (${Math.round(f.runMs / 1000)} s)`),
  );
  console.error('store bench ...');
  const store = await runStoreBench({ ops: 2_000 }).catch((err: unknown) => {
    skipped.push(`store: ${String(err)}`);
    return undefined;
  });
  console.error('local service bench ...');
  const service = await runServiceBench({ durationMs: Number(process.env.BENCH_SERVICE_MS ?? 4_000) }).catch((err: unknown) => {
    skipped.push(`local service: ${String(err)}`);
    return undefined;
  });

  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    settings,
    relay,
    targets: evaluateTargets(relay),
    ...(memory ? { memory } : {}),
    ...(store ? { store } : {}),
    ...(service ? { service } : {}),
    skipped,
    runMs: Date.now() - started,
  };
  console.log(formatReport(report));
  const file = join(process.cwd(), 'bench-results.json');
  writeFileSync(file, `${JSON.stringify({ ...report, table: formatRelayTable(relay, settings.graceMs) }, null, 2)}\n`);
  console.error(`wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
