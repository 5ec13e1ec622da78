/**
 * `npm run bench -- --native --unknown`: native streaming under load with answers of unknown length.
 * 30 concurrent answers in 30 channels of one workspace, each of 500 to 1,250 characters streamed
 * over 2 to 5 s (a third to five sixths of 1,500 characters over 6 s, seeded; the bridge knows none
 * of it in advance), starting evenly over 6 s. Ours with native streaming offered (at most 20
 * streams a minute, the rest on chat.update), next to the fixed-interval and naive relays and the
 * Chat SDK (native streaming offered, as to ours), in this process one after another, each against a fresh fake Slack enforcing Slack's budgets; then ours
 * again where Slack answers unknown_method to chat.startStream, slowly at first (how many starts
 * it refused).
 *
 * Prints partial texts per answer (median and minimum, over all answers and split native / other),
 * calls per answer and by method, 429s, exact answers and final lag; writes
 * bench-results-native-unknown.json. BENCH_CONCURRENCY (one number) and BENCH_CHANNELS change the
 * load.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { type RelayFigures, type RelayKind, runRelayScenario } from './relay-bench';

const RELAYS: RelayKind[] = ['ours-native', 'fixed-interval', 'naive', 'chat-sdk'];

function cell(x: number | null | undefined): string {
  return x === null || x === undefined ? '-' : String(x);
}

function row(f: RelayFigures): string[] {
  const m = f.callsByMethod;
  const per = (method: string): string => String(Math.round(((m[method] ?? 0) / f.concurrent) * 10) / 10);
  return [
    f.name,
    String(f.rateLimited),
    `${f.exactPct}%`,
    `${f.nativeAnswers}/${f.concurrent - f.nativeAnswers}`,
    `${f.interimPerAnswerP50} / ${f.interimPerAnswerMin}`,
    f.interimNative ? `${f.interimNative.p50} / ${f.interimNative.min}` : '-',
    f.interimOther ? `${f.interimOther.p50} / ${f.interimOther.min}` : '-',
    String(f.callsPerAnswer),
    `${per('chat.startStream')} / ${per('chat.appendStream')} / ${per('chat.stopStream')}`,
    String(m['chat.appendStream'] ?? 0),
    String(f.startRefusals),
    `${per('chat.postMessage')} / ${per('chat.update')}`,
    cell(f.finalLagP50Ms),
    f.finalLagP95Ms === null ? '>15 s' : String(f.finalLagP95Ms),
  ];
}

const HEAD = [
  'relay',
  '429s',
  'exact',
  'native/other',
  'partials p50/min',
  'native p50/min',
  'other p50/min',
  'calls/ans',
  'start/append/stop per ans',
  'appends',
  'starts refused',
  'post/update per ans',
  'final p50',
  'final p95',
];

/** The figures as a fixed-width table. */
export function formatNativeUnknown(rows: RelayFigures[]): string {
  const lines = [HEAD, ...rows.map(row)];
  const widths = HEAD.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (l: string[]): string =>
    l.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [fmt(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => fmt(row(r)))].join('\n');
}

/** Issue 32's targets for our row: what was met, and the figure. */
export function nativeUnknownTargets(f: RelayFigures): string {
  const checks: Array<[string, string, boolean]> = [
    ['0 429s', String(f.rateLimited), f.rateLimited === 0],
    ['every answer exact', `${f.exactPct}%`, f.exact === f.concurrent],
    [
      'final lag p95 <= 1500 ms',
      String(f.finalLagP95Ms ?? 'never'),
      f.finalLagP95Ms !== null && f.finalLagP95Ms <= 1500,
    ],
    ['partial texts p50 >= 4', String(f.interimPerAnswerP50), f.interimPerAnswerP50 >= 4],
    // A native stream's start text and at least 3 appends.
    ['native min >= 4', String(f.interimNative?.min ?? '-'), (f.interimNative?.min ?? 4) >= 4],
    ['chat.update min >= 1', String(f.interimOther?.min ?? '-'), (f.interimOther?.min ?? 1) >= 1],
  ];
  const failed = checks.filter(([, , met]) => !met).map(([t]) => t);
  const list = checks.map(([t, v]) => `${t}: ${v}`).join('; ');
  return `Targets for ${f.name}: ${failed.length === 0 ? 'all met' : `NOT met: ${failed.join(', ')}`} [${list}]`;
}

export async function runNativeUnknown(): Promise<void> {
  const concurrent = Number(process.env.BENCH_CONCURRENCY ?? 30);
  const channels = Number(process.env.BENCH_CHANNELS ?? concurrent);
  const options = {
    channels,
    answerChars: 1_500,
    streamMs: 6_000,
    arrivalWindowMs: 6_000,
    graceMs: 15_000,
    unknownLengths: true,
  };
  const loadBefore = loadavg()[0] ?? 0;
  console.error(`native streaming, unknown lengths: ${concurrent} answers in ${channels} channels ...`);
  const rows: RelayFigures[] = [];
  for (const kind of RELAYS) {
    const f = await runRelayScenario(kind, concurrent, options);
    console.error(`  ${f.name}: ${f.exactPct}% exact, ${f.rateLimited} 429s (${Math.round(f.runMs / 1000)} s)`);
    rows.push(f);
  }
  // The same load where Slack answers unknown_method to chat.startStream, and answers no start in
  // the first 2 s (the answers arriving meanwhile all try to start): learnt from one refusal.
  const refused = await runRelayScenario('ours-native', concurrent, {
    ...options,
    streaming: 'unknown_method',
    slowStartsMs: 2_000,
  });
  rows.push({ ...refused, name: 'ours (native refused)' });
  const load = `load average (1 min) ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after, ${cpus().length} CPUs`;
  const table = formatNativeUnknown(rows);
  const ours = rows[0];
  const targets = ours ? nativeUnknownTargets(ours) : '';
  console.log(
    `${concurrent} answers in ${channels} channels, lengths unknown (2-5 s each); ${load}\n\n${table}\n\n${targets}`,
  );
  const file = join(process.cwd(), 'bench-results-native-unknown.json');
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, load, options, rows, table, targets }, null, 2)}\n`,
  );
  console.error(`wrote ${file}`);
}
