/**
 * The tenants bench's table: the baseline run (few workspaces) and the large one side by side, the
 * ratio of each figure (large / baseline), and the verdicts the issue asks for: idle Redis commands
 * per minute and RSS within 10% of the baseline's, the answers' figures unchanged.
 */
import type { TenantsRun } from './tenants-bench';

export interface TenantsReport {
  baseline: TenantsRun;
  large: TenantsRun;
  verdicts: Array<{ what: string; met: boolean; detail: string }>;
}

const WITHIN = 0.1;

function ratio(a: number | null, b: number | null): string {
  if (a === null || b === null) return '-';
  if (a === 0) return b === 0 ? '1.00' : '-';
  return (b / a).toFixed(2);
}

const num = (v: number | null, unit = ''): string => (v === null ? 'n/a' : `${v.toLocaleString('en-US')}${unit}`);

export function verdicts(baseline: TenantsRun, large: TenantsRun): TenantsReport['verdicts'] {
  const within = (what: string, a: number | null, b: number | null) => {
    const met = a !== null && b !== null && a > 0 && Math.abs(b / a - 1) <= WITHIN;
    return { what: `${what} within 10%`, met, detail: `${num(a)} vs ${num(b)} (x${ratio(a, b)})` };
  };
  const exactAll = (r: TenantsRun) => r.answers.exact === r.answers.asked;
  return [
    within('idle Redis commands per minute', baseline.idleCommandsPerMinute, large.idleCommandsPerMinute),
    within('RSS', baseline.rssMb, large.rssMb),
    {
      what: 'answers exact in both runs',
      met: exactAll(baseline) && exactAll(large),
      detail: `${baseline.answers.exact}/${baseline.answers.asked} vs ${large.answers.exact}/${large.answers.asked}`,
    },
    {
      what: '0 429s, 0 duplicates',
      met: [baseline, large].every((r) => r.answers.rateLimited === 0 && r.answers.duplicates === 0),
      detail: `${baseline.answers.rateLimited} and ${large.answers.rateLimited} 429s, ${baseline.answers.duplicates} and ${large.answers.duplicates} duplicates`,
    },
  ];
}

function rows(a: TenantsRun, b: TenantsRun): Array<[string, string, string, string]> {
  const row = (label: string, x: number | null, y: number | null, unit = ''): [string, string, string, string] => [
    label,
    num(x, unit),
    num(y, unit),
    ratio(x, y),
  ];
  const out: Array<[string, string, string, string]> = [
    row('installed workspaces', a.workspaces, b.workspaces),
    row('closed tickets (a year of leads)', a.tickets, b.tickets),
    row('Redis keys', a.redisKeys, b.redisKeys),
    row('start-up Redis commands (start to idle)', a.startupCommands, b.startupCommands),
    row('idle Redis commands per minute', a.idleCommandsPerMinute, b.idleCommandsPerMinute),
    row('idle Slack calls', a.idleSlackCalls, b.idleSlackCalls),
    row('RSS at the idle window end', a.rssMb, b.rssMb, ' MB'),
    row('peak RSS', a.peakRssMb, b.peakRssMb, ' MB'),
  ];
  for (const s of a.sweeps) {
    const t = b.sweeps.find((x) => x.sweep === s.sweep);
    out.push(row(`${s.sweep}: first run`, s.firstMs, t?.firstMs ?? null, ' ms'));
    out.push(row(`  idle runs, p50 ms (${s.runs} / ${t?.runs ?? 0} runs)`, s.p50Ms, t?.p50Ms ?? null));
    out.push(row('  idle runs, max ms', s.maxMs, t?.maxMs ?? null));
  }
  const x = a.answers;
  const y = b.answers;
  out.push(
    ['answers exact', `${x.exact}/${x.asked}`, `${y.exact}/${y.asked}`, ''],
    row('/ask to final p50', x.askToFinalP50Ms, y.askToFinalP50Ms, ' ms'),
    row('/ask to final p95', x.askToFinalP95Ms, y.askToFinalP95Ms, ' ms'),
    row('final lag p50 (stream end to shown)', x.finalLagP50Ms, y.finalLagP50Ms, ' ms'),
    row('final lag p95', x.finalLagP95Ms, y.finalLagP95Ms, ' ms'),
    row('429s', x.rateLimited, y.rateLimited),
    row('duplicate posts', x.duplicates, y.duplicates),
  );
  return out;
}

/** The table (markdown, for the terminal and the README) and the verdicts. */
export function formatTenantsReport(r: TenantsReport): string {
  const a = r.baseline;
  const b = r.large;
  const table = [
    `| figure | ${a.workspaces} workspaces | ${b.workspaces} workspaces | ratio |`,
    '|---|---:|---:|---:|',
    ...rows(a, b).map((cells) => `| ${cells.join(' | ')} |`),
  ];
  const load = (x: TenantsRun) =>
    `${x.loadBefore.map((l) => l.toFixed(1)).join(', ')} before, ${x.loadAfter.map((l) => l.toFixed(1)).join(', ')} after`;
  return [
    table.join('\n'),
    '',
    ...r.verdicts.map((v) => `${v.met ? 'MET   ' : 'MISSED'} ${v.what}: ${v.detail}`),
    '',
    `idle window ${Math.round(a.idleWindowMs / 1000)} s; load average (uptime) ${a.workspaces} workspaces: ${load(a)}; ${b.workspaces}: ${load(b)}`,
  ].join('\n');
}
