/**
 * `npm run bench -- --scale-out`: reads the settings from the environment, runs the scale-out bench,
 * prints its figures and writes them to bench-results-scale-out.json in the project root.
 *
 * BENCH_SCALE_INSTANCES (3), BENCH_SCALE_ANSWERS (100), BENCH_SCALE_CHANNELS (25, spread over the
 * workspaces), BENCH_SCALE_WORKSPACES (5, each installed through the OAuth flow; 1 puts every answer in
 * one workspace), BENCH_SCALE_FRAGMENT_MS (pause between the service's answer fragments, 100: answers
 * of about 1,600 characters stream for about 6 s), BENCH_SCALE_STREAMING (on | unknown_method),
 * BENCH_SCALE_LEASE_S (INSTANCE_LEASE_S of the instances; the bridge's default when unset),
 * BENCH_SCALE_TIMEOUT_S (240), BENCH_REDIS_URL (another Redis than the bench's own redis-server),
 * BENCH_SCALE_LOG_DIR (each instance's log lines written there).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { envNumber as num } from '../env-number';
import { formatScaleReport, type ScaleOptions } from './report';
import { runScaleOutBench } from './scale-bench';

function options(): ScaleOptions {
  const streaming = process.env.BENCH_SCALE_STREAMING ?? 'on';
  if (streaming !== 'on' && streaming !== 'unknown_method') {
    throw new Error(`BENCH_SCALE_STREAMING must be on or unknown_method (got "${streaming}")`);
  }
  return {
    instances: num('BENCH_SCALE_INSTANCES', 3),
    answers: num('BENCH_SCALE_ANSWERS', 100),
    channels: num('BENCH_SCALE_CHANNELS', 25),
    workspaces: num('BENCH_SCALE_WORKSPACES', 5),
    fragmentDelayMs: num('BENCH_SCALE_FRAGMENT_MS', 100),
    streaming,
    ...(process.env.BENCH_SCALE_LEASE_S ? { leaseS: process.env.BENCH_SCALE_LEASE_S } : {}),
    settleTimeoutMs: num('BENCH_SCALE_TIMEOUT_S', 240) * 1000,
  };
}

export async function scaleOutCli(): Promise<void> {
  const o = options();
  const loadBefore = loadavg();
  console.error('scale-out bench ...');
  const report = await runScaleOutBench(o, (line) => console.error(`  ${line}`));
  const machine = `${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before the run, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} after`;
  console.log(`${formatScaleReport(report)}\nmachine  ${machine}`);
  const file = join(process.cwd(), 'bench-results-scale-out.json');
  const out = { generatedAt: new Date().toISOString(), node: process.version, machine, ...report };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.error(`wrote ${file}`);
}
