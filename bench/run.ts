/**
 * `npm run bench`: the relay under load (ours, naive, fixed interval, the Chat SDK), memory per 1,000 live
 * conversations, state store operations per second (SQLite, Redis), and the local service figures.
 * Prints a table and writes the same figures to bench-results.json in the project root.
 *
 * Environment: BENCH_CONCURRENCY (e.g. "1,30,50"), BENCH_RELAYS (e.g. "ours-update,naive"),
 * BENCH_SERVICE_MS (local service load duration), BENCH_REDIS_URL (store bench).
 * `npm run bench -- --native`: only the relay table, with Slack's native streaming offered (our
 * relay's native rows, next to the 1-second relay for the calls comparison).
 * `npm run bench -- --relay`: only the relay table (with BENCH_CONCURRENCY / BENCH_RELAYS, one case).
 * `npm run bench -- --native --unknown`: native streaming under load, answers of unknown length
 * (bench/native-unknown.ts: 30 answers in 30 channels, next to the fixed-interval, naive and Chat SDK relays).
 * `npm run bench -- --workspaces 2`: two workspaces installed by OAuth, 30 concurrent answers each, next
 * to each alone (bench/workspaces.ts).
 * `npm run bench -- --hostile`: only the hostile-input table (worst event-loop delay, other users'
 * answer times, quiet against hostile; BENCH_HOSTILE_USERS, BENCH_HOSTILE_ROUNDS).
 * `npm run bench -- --scale-out`: three bridge processes on one Redis behind one address, one killed
 * halfway (bench/scale-out/; BENCH_SCALE_* settings there).
 * `npm run bench -- --tenants 1000`: 1,000 installed workspaces and a year of leads, idle then answering,
 * beside the same run with 10 workspaces (bench/tenants/; BENCH_TENANTS_* settings there).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { formatHostileTable, runHostileBench } from './hostile/hostile-bench';
import { runMemoryBench } from './memory-bench';
import { runNativeUnknown } from './native-unknown';
import { RELAY_KINDS, runRelayBench, type RelayKind } from './relay-bench';
import { evaluateTargets, formatRelayTable, formatReport, type BenchReport } from './report';
import { runServiceBench } from './service-bench';
import { scaleOutCli } from './scale-out/cli';
import { tenantsCli } from './tenants/cli';
import { runStoreBench } from './store-bench';
import { runWorkspacesBench } from './workspaces';

function listEnv(name: string): string[] | undefined {
  const v = process.env[name];
  return v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
}

async function hostile(): Promise<void> {
  console.error('hostile bench: quiet run, then hostile run ...');
  const report = await runHostileBench({
    users: Number(process.env.BENCH_HOSTILE_USERS ?? 6),
    rounds: Number(process.env.BENCH_HOSTILE_ROUNDS ?? 4),
  });
  console.log(formatHostileTable(report));
  const file = join(process.cwd(), 'bench-results-hostile.json');
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, cpus: cpus().length, ...report }, null, 2)}\n`,
  );
  console.error(`wrote ${file}`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--hostile')) return hostile();
  const workspaces = process.argv.indexOf('--workspaces');
  if (workspaces >= 0) return runWorkspacesBench(Number(process.argv[workspaces + 1] ?? 2) || 2);
  if (process.argv.includes('--native') && process.argv.includes('--unknown')) return runNativeUnknown();
  if (process.argv.includes('--scale-out')) return scaleOutCli();
  const tenants = process.argv.indexOf('--tenants');
  if (tenants >= 0) return tenantsCli(Number(process.argv[tenants + 1] ?? 1000) || 1000);
  const started = Date.now();
  const settings = { channels: 10, answerChars: 1_500, streamMs: 6_000, arrivalWindowMs: 6_000, graceMs: 15_000 };
  const native = process.argv.includes('--native');
  // Answers of different lengths, not known in advance (see RelayBenchOptions.unknownLengths).
  const unknownLengths = process.argv.includes('--unknown');
  // The relay table alone: memory, store and service benches are skipped.
  const relayOnly = native || process.argv.includes('--relay');
  const concurrency = (listEnv('BENCH_CONCURRENCY') ?? ['1', '30', '50']).map(Number);
  const defaultRelays: RelayKind[] = native ? ['ours-native', 'fixed-interval'] : [...RELAY_KINDS];
  const relays = (listEnv('BENCH_RELAYS') ?? defaultRelays).filter((k): k is RelayKind =>
    (RELAY_KINDS as readonly string[]).includes(k),
  );
  const skipped: string[] = [];

  // Memory first, in a fresh process: what the relay runs leave behind would blur the heap delta.
  if (!relayOnly) console.error('memory bench ...');
  const memory = relayOnly
    ? undefined
    : await runMemoryBench(1_000).catch((err: unknown) => {
        skipped.push(`memory: ${String(err)}`);
        return undefined;
      });

  console.error(`relay bench: ${relays.join(', ')} at ${concurrency.join(' and ')} concurrent answers ...`);
  const relay = await runRelayBench({ ...settings, concurrency, relays, unknownLengths }, (f) =>
    console.error(
      `  ${f.name} x ${f.concurrent}: ${f.exactPct}% exact, ${f.rateLimited} 429s (${Math.round(f.runMs / 1000)} s)`,
    ),
  );
  if (!relayOnly) console.error('store bench ...');
  const store = relayOnly
    ? undefined
    : await runStoreBench({ ops: 2_000 }).catch((err: unknown) => {
        skipped.push(`store: ${String(err)}`);
        return undefined;
      });
  if (!relayOnly) console.error('local service bench ...');
  const service = relayOnly
    ? undefined
    : await runServiceBench({ durationMs: Number(process.env.BENCH_SERVICE_MS ?? 4_000) }).catch((err: unknown) => {
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
  const file = join(
    process.cwd(),
    unknownLengths
      ? 'bench-results-unknown.json'
      : native
        ? 'bench-results-native.json'
        : relayOnly
          ? 'bench-results-relay.json'
          : 'bench-results.json',
  );
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
