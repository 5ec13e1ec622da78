/**
 * What one tenant's leaving costs the store does not grow with other tenants: on a redis-server of the
 * test's own (INFO commandstats counts every command), one tenant leaves a store holding 5 tenants'
 * records, then one holding 50 (each with conversations, a queue, closed tickets; a few answers and
 * `/ask`s in flight). The leaving reads the tenant's own part (by its prefix), its own index of
 * tickets and the due indexes of work in flight; no SCAN names another tenant's records (the global
 * `convpending:`, `inflight:`, `askintent:`, `ticket:`, `slack:` prefixes); and the count of every
 * command but SCAN is the same for 5 and 50 tenants (a SCAN of the tenant's own prefix still walks the
 * keyspace in batches of 500: reported, not asserted equal). The leaving-marks sweep reads the marks'
 * due index: the same one command, however many tenants left or are at work.
 *
 * The deployment is past its unindexed horizon (unindexed.ts): a store this version has kept for
 * longer than any older version's record lives.
 */
import { convKeys, convRefAt, toJson } from '../../../src/core/conversations/model';
import { convView } from '../../../src/core/conversations/records';
import { ASK_INTENT_INDEX, ASK_INTENT_PREFIX } from '../../../src/core/conversations/ask-intents';
import { notePending } from '../../../src/core/conversations/worker';
import { ticketKeys } from '../../../src/core/handoff/model';
import { CoreMemory } from '../../../src/core/memory';
import { INFLIGHT_INDEX, inflightKey } from '../../../src/core/relay/inflight';
import type { Place } from '../../../src/core/surface';
import { leaveTenant, stopLeftWork } from '../../../src/core/tenants/leave';
import { tenantWork } from '../../../src/core/tenants/tenant-work';
import { unindexedMayRemain } from '../../../src/core/tenants/unindexed';
import type { CoreContext } from '../../../src/core/context';
import { RedisStore } from '../../../src/state/redis-store';
import { scoped, tenantFor, tenantPrefix, tenantStore } from '../../../src/state/tenant-store';
import { type BenchRedis, startBenchRedis } from '../../../bench/scale-out/redis';
import { silentLog } from '../../support/silent-log';

const DAY_MS = 24 * 60 * 60 * 1000;
const asker = { id: 'U1', name: 'Ada', isAdmin: false };

/** A RedisStore that notes every prefix it lists keys by (a SCAN MATCH each). */
class ListingStore extends RedisStore {
  readonly listed: string[] = [];
  override keys(prefix: string): Promise<string[]> {
    this.listed.push(prefix);
    return super.keys(prefix);
  }
}

/** INFO commandstats as calls per command. */
async function commandStats(redis: BenchRedis): Promise<Map<string, number>> {
  const { default: Redis } = await import('ioredis');
  const client = new Redis(redis.url, { lazyConnect: true });
  try {
    await client.connect();
    const info = await client.info('commandstats');
    const out = new Map<string, number>();
    for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) out.set(m[1]!, Number(m[2]));
    return out;
  } finally {
    client.disconnect();
  }
}

function delta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [cmd, n] of after) if (n - (before.get(cmd) ?? 0) > 0) out.set(cmd, n - (before.get(cmd) ?? 0));
  // INFO itself (the counting) is not the leaving's.
  out.delete('info');
  return out;
}

const placeOf = (team: string, thread: string): Place => ({ surface: 'slack', workspace: team, channel: 'C1', thread });

/** One tenant's records, written as the bridge writes them: conversations with queued work, closed tickets. */
async function seedTenant(ctx: CoreContext, team: string, live: boolean): Promise<void> {
  const { store } = ctx;
  for (let c = 0; c < 3; c++) {
    const place = placeOf(team, `1.${c}`);
    const ref = convRefAt(place);
    const view = convView(store, ref);
    await view.set(convKeys.conversation(ref.id), toJson({ id: ref.id, place, createdAt: 1, asker }));
    await view.set(convKeys.session(ref.id), 7);
    if (c === 0) {
      await notePending(ctx, ref);
      await view.push(convKeys.queue(ref.id), { kind: 'message', text: 'queued' });
    }
    // A closed ticket, marked in its tenant's part as the ticket store does with every change.
    const ticketId = `t-${team}-${c}`;
    await tenantStore(store, tenantFor('slack', team)).set(scoped('ticket', ticketId), 1);
    await store.set(
      ticketKeys.ticket(ticketId),
      toJson({
        id: ticketId,
        convId: ref.id,
        status: 'closed',
        user: asker,
        userPlace: place,
        reason: 'x',
        createdAt: 1,
      }),
    );
  }
  if (!live) return;
  // An answer and an `/ask` in flight, in their due indexes as the relay and beginAsk write them.
  const place = placeOf(team, '1.0');
  await store.schedule(INFLIGHT_INDEX, `k-${team}`, Date.now() + 60_000);
  await store.set(inflightKey(`k-${team}`), toJson({ surface: 'slack', place, messages: [] }));
  await store.schedule(ASK_INTENT_INDEX, `i-${team}`, Date.now() + 60_000);
  await store.set(
    `${ASK_INTENT_PREFIX}i-${team}`,
    toJson({ surface: 'slack', place, actor: asker, question: 'q', owner: 'x' }),
  );
}

interface Measured {
  commands: Map<string, number>;
  listed: string[];
  sweep: number;
}

/** A store of `tenants` tenants (5 of them with work in flight); one leaves; what it cost. */
async function measure(tenants: number): Promise<Measured> {
  const redis = await startBenchRedis();
  const store = new ListingStore(redis.url, { keyPrefix: 'bridge:' });
  try {
    const started = Date.now();
    // Past the horizon: the first leaving of this version started it a retention period and a day ago.
    await unindexedMayRemain(store, started - 92 * DAY_MS);
    const ctx = {
      store,
      memory: new CoreMemory(),
      log: silentLog,
      now: () => started,
      config: { leaseTtlMs: 6000 },
    } as unknown as CoreContext;
    for (let i = 0; i < tenants; i++) await seedTenant(ctx, `T${i}`, i < 5);
    // A tenant at work here: the marks' sweep reads the index (it reads nothing while none is).
    const work = tenantWork(ctx).begin('some-tenant', started);

    const before = await commandStats(redis);
    store.listed.length = 0;
    const left = await leaveTenant(ctx, tenantFor('slack', 'T0'), { why: 'test' });
    const commands = delta(before, await commandStats(redis));
    const listed = [...store.listed];
    expect(left.conversations).toBe(3);
    expect(left.tickets).toBe(3);

    const beforeSweep = await commandStats(redis);
    await stopLeftWork(ctx);
    const sweep = [...delta(beforeSweep, await commandStats(redis)).values()].reduce((a, b) => a + b, 0);
    work.end();
    // Nothing of T0 is left but its queue's id counter (no data: not the leaving's to find); the others are whole.
    const kept = await redis.keys(`bridge:*${tenantPrefix(tenantFor('slack', 'T0'))}*`);
    expect(kept.filter((k) => !k.endsWith(':seq'))).toEqual([]);
    expect((await redis.keys(`bridge:*${tenantPrefix(tenantFor('slack', 'T1'))}*`)).length).toBeGreaterThan(0);
    return { commands, listed, sweep };
  } finally {
    await store.close();
    await redis.close();
  }
}

const total = (m: Map<string, number>, but?: string): number =>
  [...m].filter(([cmd]) => cmd !== but).reduce((n, [, c]) => n + c, 0);

describe('a tenant leaving: its cost does not grow with other tenants', () => {
  test('5 vs 50 tenants: the same commands but SCAN, no SCAN of another tenant, one read for the marks', async () => {
    const few = await measure(5);
    const many = await measure(50);
    const own = tenantPrefix(tenantFor('slack', 'T0'));
    console.log(
      `one leaving: ${total(few.commands)} Redis commands with 5 tenants (${few.commands.get('scan') ?? 0} SCAN), ` +
        `${total(many.commands)} with 50 (${many.commands.get('scan') ?? 0} SCAN); listed by ${JSON.stringify(many.listed)}; ` +
        `marks sweep ${few.sweep} / ${many.sweep} commands`,
    );
    for (const m of [few, many]) {
      // Only the tenant's own part is listed (its conversations, then the part itself).
      expect(m.listed.length).toBeGreaterThan(0);
      for (const prefix of m.listed) expect(prefix.startsWith(own)).toBe(true);
      expect(m.commands.has('keys')).toBe(false);
    }
    expect(total(many.commands, 'scan')).toBe(total(few.commands, 'scan'));
    expect(many.sweep).toBe(few.sweep);
    expect(few.sweep).toBe(1);
  }, 120_000);
});
