/**
 * What one answer costs the state store, against the budget the README states ("Store commands per
 * answer"): a `/ask` answered end to end through the whole app (the fake Slack, the local service),
 * on SQLite (the SQL statements the store ran) and on Redis (every command the server ran, scripts'
 * own commands included: a redis-server of the test's own, so INFO commandstats counts only the
 * bridge). What the periodic sweeps did meanwhile is counted too: they are part of the cost.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../../fakes/slack-requests';
import { type BenchRedis, startBenchRedis } from '../../bench/scale-out/redis';
import { SqliteStore } from '../../src/state/sqlite-store';
import { rootFor, type SlackE2E, startSlackE2E, waitForAnswer } from '../support/slack-e2e';

/** The budgets the README states, one line each: "Store commands per answer: at most N Redis commands ...". */
function readmeBudget(): { redis: number; sqlite: number } {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const line = /Store commands per answer: at most (\d[\d,]*) Redis commands and (\d[\d,]*) SQL statements/.exec(
    readme,
  );
  if (!line) throw new Error('README.md states no "Store commands per answer" budget');
  const n = (s: string): number => Number(s.replace(/,/g, ''));
  return { redis: n(line[1]!), sqlite: n(line[2]!) };
}

/** One `/ask` in its own channel, answered, and the bridge idle again (its last writes done). */
async function oneAnswer(e: SlackE2E, channel: string, question: string): Promise<void> {
  await e.driver.command('/ask', question, { user: 'U0USER1', channel });
  const root = await waitFor(() => rootFor(e.fake, channel, question), 'the root');
  await waitForAnswer(e, channel, root.ts, question);
  await e.app.bridge.conversations.idle();
}

/** The store's cost of the second answer (the first warms what every answer finds cached). */
async function costOfOneAnswer(e: SlackE2E, count: () => Promise<number>): Promise<number> {
  await oneAnswer(e, 'C0WARM', 'Show me homes for sale in Austin');
  const before = await count();
  await oneAnswer(e, 'C0COST', 'Show me homes for rent in Denver');
  return (await count()) - before;
}

describe('store commands per answer', () => {
  const budget = readmeBudget();

  test(`SQLite: at most the README's budget of SQL statements (${budget.sqlite})`, async () => {
    const e = await startSlackE2E({ fragmentDelayMs: 5 });
    try {
      const store = e.app.store;
      if (!(store instanceof SqliteStore)) throw new Error('the e2e harness runs on SQLite');
      const n = await costOfOneAnswer(e, async () => store.statementsRun);
      console.log(`one answer: ${n} SQL statements (budget ${budget.sqlite})`);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(budget.sqlite);
    } finally {
      await e.close();
    }
  }, 60_000);

  test(`Redis: at most the README's budget of commands (${budget.redis})`, async () => {
    const redis: BenchRedis = await startBenchRedis();
    const e = await startSlackE2E({ fragmentDelayMs: 5, env: { STATE_URL: redis.url } });
    try {
      const n = await costOfOneAnswer(e, () => redis.commands());
      console.log(`one answer: ${n} Redis commands (budget ${budget.redis})`);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(budget.redis);
    } finally {
      await e.close();
      await redis.close();
    }
  }, 60_000);
});
