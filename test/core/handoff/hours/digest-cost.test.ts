/**
 * The day's leads check reads what is due, not every tenant (issue 38): with N idle tenants (each
 * with tickets whose digests are long past), a check costs the store the same commands whether N is
 * 5 or 200, both when nothing is due and when one live tenant's digest goes out; and that digest is
 * the one the tickets call for. Counted as test/state/answer-cost.test.ts counts (SQLite's statements,
 * a redis-server of the test's own: INFO commandstats), on an injected clock.
 */
import type { CoreConfig, CoreContext } from '../../../../src/core/context';
import { CoreMemory } from '../../../../src/core/memory';
import { checkLeadsDigest } from '../../../../src/core/handoff/hours/leads-digest';
import { noteLead } from '../../../../src/core/handoff/hours/leads-index';
import { extractLead } from '../../../../src/core/handoff/lead';
import type { Ticket } from '../../../../src/core/handoff/model';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import type { Mail } from '../../../../src/mail/mailer';
import { MailOutbox } from '../../../../src/mail/outbox';
import { openStore } from '../../../../src/state/open-store';
import type { StateStore } from '../../../../src/state/store';
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { type BenchRedis, startBenchRedis } from '../../../../bench/scale-out/redis';
import { silentLog } from '../../../support/silent-log';

const utc = (iso: string): number => Date.parse(`${iso}Z`);
const DAY_MS = 86_400_000;
const RETENTION_MS = 90 * DAY_MS;

function ticket(workspace: string, n: number, createdAt: number): Ticket {
  return {
    id: `${workspace}-t${n}`,
    convId: `conv-${workspace}-${n}`,
    status: 'closed',
    user: { id: `U-${workspace}-${n}`, name: `Asker ${workspace} ${n}`, isAdmin: false },
    userPlace: { surface: 'slack', workspace, channel: 'C1', thread: `${n}.1` },
    reason: 'please call me',
    createdAt,
  };
}

interface Run {
  /** Store commands of a check with nothing due, and of the check that owes the live tenant's digest. */
  idle: number;
  digest: number;
  mails: Mail[];
}

/**
 * `idleTenants` workspaces with 3 tickets each, 40 days old (their digests long past), on `store`;
 * checks until they settle; then a live workspace's lead of 2 March, and the check at 08:00 Chicago
 * on the 3rd that owes its digest.
 */
async function run(store: StateStore, idleTenants: number, count: () => Promise<number>): Promise<Run> {
  let clock = utc('2026-01-20T12:00:00');
  const tickets = new Map<string, Ticket>();
  const mails: Mail[] = [];
  const config: CoreConfig = {
    chatbotId: 'demo',
    answerIdleTimeoutMs: 1000,
    handoff: {},
    handoffClaimTimeoutMs: 60_000,
    handoffOnNoAnswer: false,
    instanceId: 'i1',
    retentionMs: RETENTION_MS,
    office: { timeZone: 'America/Chicago', escalate: [], assign: 'none', offerMs: 60_000, digestHour: 8 },
  };
  const mailer = { send: async (m: Mail) => void mails.push(m), close: () => undefined };
  const ctx = { store, config, log: silentLog, now: () => clock, memory: new CoreMemory() } as unknown as CoreContext;
  const outbox = new MailOutbox({
    store,
    log: silentLog,
    mailer,
    instanceId: 'i1',
    now: () => clock,
    retentionMs: RETENTION_MS,
  });
  const deps = {
    ctx,
    outbox,
    load: async (id: string) => tickets.get(id),
    leadOf: async (t: Ticket) => extractLead({ name: t.user.name, userTexts: [`I'm ${t.user.name}`], answerTexts: [] }),
  };
  await store.set(appliedSettingsKey('demo'), { EmailForDailyLeads: 'leads@example.com' });
  for (let w = 0; w < idleTenants; w++) {
    for (let n = 0; n < 3; n++) {
      const t = ticket(`T0IDLE${w}`, n, clock - n * 3600_000);
      tickets.set(t.id, t);
      await noteLead(store, t, RETENTION_MS);
    }
  }
  // 40 days on: the idle tenants' checks find their digests past (sent or not, they are not due).
  clock = utc('2026-03-01T12:00:00');
  for (let i = 0; i < 3; i++) {
    await checkLeadsDigest(deps);
    clock += 15 * 60_000;
  }
  const live = ticket('T0LIVE', 1, utc('2026-03-02T18:00:00'));
  tickets.set(live.id, live);
  await noteLead(store, live, RETENTION_MS);
  clock = utc('2026-03-03T12:00:00'); // 06:00 in Chicago: the 2nd's digest is not due yet
  await checkLeadsDigest(deps);
  // The live tenant is looked at each quarter-hour while its lead waits (live work): 13:50 is one.
  clock = utc('2026-03-03T13:50:00');
  await checkLeadsDigest(deps);
  clock = utc('2026-03-03T13:55:00');
  let before = await count();
  expect(await checkLeadsDigest(deps)).toBe(false);
  const idle = (await count()) - before;
  clock = utc('2026-03-03T14:00:00'); // 08:00 in Chicago
  before = await count();
  expect(await checkLeadsDigest(deps)).toBe(true);
  const digest = (await count()) - before;
  await outbox.drain();
  return { idle, digest, mails };
}

function expectSameCost(small: Run, large: Run): void {
  expect(large.idle).toBe(small.idle);
  expect(large.digest).toBe(small.digest);
  for (const r of [small, large]) {
    expect(r.mails.map((m) => m.subject)).toEqual(['Leads of 2026-03-02: 1 handoff ticket']);
    expect(r.mails[0]!.text).toContain('Asker T0LIVE 1');
    expect(r.mails[0]!.text).not.toContain('T0IDLE');
  }
}

describe("the day's leads check: store commands do not grow with idle tenants", () => {
  test('SQLite: the same statements with 5 and with 200 idle tenants', async () => {
    const runs: Run[] = [];
    for (const n of [5, 200]) {
      const store = new SqliteStore(':memory:');
      try {
        runs.push(await run(store, n, async () => store.statementsRun));
      } finally {
        await store.close();
      }
    }
    console.log(
      `digest check on SQLite: idle ${runs[0]!.idle} statements, digest ${runs[0]!.digest} (5 and 200 idle tenants alike)`,
    );
    expect(runs[0]!.idle).toBeLessThanOrEqual(2);
    expectSameCost(runs[0]!, runs[1]!);
  }, 60_000);

  test('Redis: the same commands with 5 and with 200 idle tenants', async () => {
    const runs: Run[] = [];
    for (const n of [5, 200]) {
      const redis: BenchRedis = await startBenchRedis();
      const store = await openStore(redis.url);
      try {
        runs.push(await run(store, n, () => redis.commands()));
      } finally {
        await store.close();
        await redis.close();
      }
    }
    console.log(
      `digest check on Redis: idle ${runs[0]!.idle} commands, digest ${runs[0]!.digest} (5 and 200 idle tenants alike)`,
    );
    // INFO itself is counted once per reading.
    expect(runs[0]!.idle).toBeLessThanOrEqual(3);
    expectSameCost(runs[0]!, runs[1]!);
  }, 60_000);
});
