/**
 * `npm run bench -- --tenants 1000`: the large run and a baseline of BENCH_TENANTS_BASELINE (10)
 * workspaces, one after the other in this process, each on a fresh Redis and a fresh bridge; prints
 * both side by side with ratios and the verdicts, and writes bench-results-tenants.json.
 *
 * BENCH_TENANTS_BASELINE (10), BENCH_TENANTS_TICKETS (closed tickets per workspace, 10: 10,000 for
 * 1,000 workspaces), BENCH_TENANTS_ANSWERS (50, over BENCH_TENANTS_ANSWERING workspaces, 5),
 * BENCH_TENANTS_SETTLE_S (after the start, before the idle window: 20), BENCH_TENANTS_IDLE_S (the
 * idle window, 60), BENCH_TENANTS_FRAGMENT_MS (the service's pause between fragments, 100),
 * BENCH_TENANTS_TIMEOUT_S (for the answers to settle, 180), BENCH_REDIS_URL (another Redis than
 * the bench's own redis-server: its `bridge:` keys are deleted after each run).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { envNumber as num } from '../env-number';
import { formatTenantsReport, verdicts } from './report';
import { runTenants, type TenantsOptions } from './tenants-bench';

export async function tenantsCli(workspaces: number): Promise<void> {
  const base: Omit<TenantsOptions, 'workspaces'> = {
    answering: num('BENCH_TENANTS_ANSWERING', 5),
    answers: num('BENCH_TENANTS_ANSWERS', 50),
    ticketsPerWorkspace: num('BENCH_TENANTS_TICKETS', 10),
    settleMs: num('BENCH_TENANTS_SETTLE_S', 20) * 1000,
    idleWindowMs: num('BENCH_TENANTS_IDLE_S', 60) * 1000,
    fragmentDelayMs: num('BENCH_TENANTS_FRAGMENT_MS', 100),
    timeoutMs: num('BENCH_TENANTS_TIMEOUT_S', 180) * 1000,
  };
  const baselineCount = num('BENCH_TENANTS_BASELINE', 10);
  if (workspaces < base.answering || baselineCount < base.answering)
    throw new Error(
      `--tenants and BENCH_TENANTS_BASELINE must be at least BENCH_TENANTS_ANSWERING (${base.answering})`,
    );
  const progress = (line: string) => console.error(`  ${line}`);
  console.error(`tenants bench: ${baselineCount} workspaces (baseline) ...`);
  const baseline = await runTenants({ ...base, workspaces: baselineCount }, progress);
  console.error(`tenants bench: ${workspaces} workspaces ...`);
  const large = await runTenants({ ...base, workspaces }, progress);
  const report = { baseline, large, verdicts: verdicts(baseline, large) };
  const text = formatTenantsReport(report);
  console.log(`${text}\nnode ${process.version}, ${cpus().length} CPUs`);
  const file = join(process.cwd(), 'bench-results-tenants.json');
  const out = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    options: base,
    ...report,
    table: text,
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.error(`wrote ${file}`);
}
