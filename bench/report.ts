/**
 * The bench report: one plain-text table for the terminal and the README, and the same figures as
 * JSON (bench-results.json).
 */
import type { RelayFigures, RelayKind } from './relay-bench';
import type { MemoryFigures } from './memory-bench';
import { formatStoreBench, type StoreBenchResult } from './store-bench';
import { formatServiceBench, type ServiceBenchResult } from './service-bench';

export interface RelayTargets {
  concurrent: number;
  relay: RelayKind;
  checks: Array<{ target: string; value: string; met: boolean }>;
}

export interface BenchReport {
  generatedAt: string;
  node: string;
  cpus: number;
  settings: { channels: number; answerChars: number; streamMs: number; arrivalWindowMs: number; graceMs: number };
  relay: RelayFigures[];
  targets: RelayTargets[];
  memory?: MemoryFigures;
  store?: StoreBenchResult;
  service?: ServiceBenchResult;
  /** Parts that could not run, and why. */
  skipped: string[];
  runMs: number;
}

const ms = (v: number | null, graceMs: number): string => (v === null ? `>${Math.round(graceMs / 1000)} s` : String(v));

/** Our targets (issue 10), for each of our relays at each concurrency. */
export function evaluateTargets(rows: RelayFigures[]): RelayTargets[] {
  const out: RelayTargets[] = [];
  for (const r of rows) {
    if (r.relay !== 'ours-update' && r.relay !== 'ours-native') continue;
    const fixed = rows.find((n) => n.relay === 'fixed-interval' && n.concurrent === r.concurrent);
    const checks = [
      { target: '0 429s', value: String(r.rateLimited), met: r.rateLimited === 0 },
      { target: '100% exact', value: `${r.exactPct}%`, met: r.exact === r.concurrent },
      {
        target: 'final lag p95 <= 1500 ms',
        value: String(r.finalLagP95Ms ?? 'never'),
        met: r.finalLagP95Ms !== null && r.finalLagP95Ms <= 1500,
      },
    ];
    const wantInterims = r.concurrent === 1 ? 3 : r.concurrent <= 30 ? (r.relay === 'ours-native' ? 3 : 1) : undefined;
    if (r.concurrent === 1 && r.relay === 'ours-update') {
      checks.push({
        target: 'first partial <= 700 ms',
        value: String(r.firstPartialP50Ms ?? 'none'),
        met: r.firstPartialP50Ms !== null && r.firstPartialP50Ms <= 700,
      });
    }
    if (wantInterims !== undefined) {
      checks.push({
        target: `interim texts/answer p50 >= ${wantInterims}`,
        value: String(r.interimPerAnswerP50),
        met: r.interimPerAnswerP50 >= wantInterims,
      });
    }
    if (fixed && r.concurrent > 1) {
      // Native streaming may spend up to the 1-second relay's half; chat.update its third.
      const part = r.relay === 'ours-native' ? 2 : 3;
      checks.push({
        target: `calls/answer <= fixed interval (1 s) / ${part}`,
        value: `${r.callsPerAnswer} vs ${fixed.callsPerAnswer} / ${part} = ${Math.round((fixed.callsPerAnswer / part) * 100) / 100}`,
        met: r.callsPerAnswer <= fixed.callsPerAnswer / part,
      });
    }
    out.push({ concurrent: r.concurrent, relay: r.relay, checks });
  }
  return out;
}

export function formatRelayTable(rows: RelayFigures[], graceMs: number): string {
  const head = [
    'answers',
    'relay',
    '429s',
    'exact',
    'calls/ans',
    'shown/ans',
    'interim/ans',
    'first p50',
    'first p95',
    'partial p50',
    'partial p95',
    'final p50',
    'final p95',
    'final max',
  ];
  const body = rows.map((r) => [
    `${r.concurrent} (${r.channels} ch)`,
    r.name,
    String(r.rateLimited),
    `${r.exactPct}%`,
    String(r.callsPerAnswer),
    String(r.visibleUpdatesPerAnswer),
    String(r.interimPerAnswerP50),
    ms(r.firstVisibleP50Ms, graceMs),
    ms(r.firstVisibleP95Ms, graceMs),
    r.firstPartialP50Ms === null ? '-' : String(r.firstPartialP50Ms),
    r.firstPartialP95Ms === null ? '-' : String(r.firstPartialP95Ms),
    ms(r.finalLagP50Ms, graceMs),
    ms(r.finalLagP95Ms, graceMs),
    ms(r.finalLagMaxMs, graceMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function formatReport(r: BenchReport): string {
  const s = r.settings;
  const parts: string[] = [];
  parts.push(
    `Relay under load: answers of ~${s.answerChars.toLocaleString('en-US')} characters streamed over ${s.streamMs / 1000} s each ` +
      `(a fragment every 40-80 ms), starting evenly over ${s.arrivalWindowMs / 1000} s, one thread each, ${s.channels} channels, ` +
      `fake Slack with its tier budgets (chat.update 50/min per workspace, chat.postMessage ~1/s per channel). ` +
      `The 1-answer row is a lone answer of half that size over half that time. interim/ans: median distinct partial texts ` +
      `an answer showed before its final. ` +
      `Times in ms: first = command to first bot message, partial = first fragment to first partial text visible ` +
      `(over the answers that showed one; - when none did), final = stream end to exact final text visible. ` +
      `">${Math.round(s.graceMs / 1000)} s": not reached before the run stopped ${Math.round(s.graceMs / 1000)} s after the last stream ended.`,
  );
  parts.push(formatRelayTable(r.relay, s.graceMs));
  if (r.targets.length > 0) {
    const lines = ['Targets for our relay:'];
    for (const t of r.targets) {
      const bad = t.checks.filter((c) => !c.met);
      lines.push(
        `  ${t.relay} at ${t.concurrent}: ${bad.length === 0 ? 'all met' : `MISSED ${bad.map((c) => `${c.target} (${c.value})`).join('; ')}`} ` +
          `[${t.checks.map((c) => `${c.target}: ${c.value}`).join('; ')}]`,
      );
    }
    parts.push(lines.join('\n'));
  }
  if (r.memory) {
    const mb = (b: number): string => (b / 1024 / 1024).toFixed(1);
    parts.push(
      `Memory per 1,000 live conversations (conversation + session entries, a streaming answer's relay state, 1,000 characters in): ` +
        `JS heap +${mb(r.memory.heapBytesPer1000)} MB, RSS +${mb(r.memory.rssBytesPer1000)} MB` +
        (r.memory.gcForced ? '' : ' (no --expose-gc: heap includes garbage)'),
    );
  }
  if (r.store) parts.push(`State store operations per second (sequential, one client):\n${formatStoreBench(r.store)}`);
  if (r.service) parts.push(formatServiceBench(r.service));
  for (const s2 of r.skipped) parts.push(`skipped: ${s2}`);
  parts.push(`node ${r.node}, ${r.cpus} CPUs, total ${Math.round(r.runMs / 1000)} s`);
  return parts.join('\n\n');
}
