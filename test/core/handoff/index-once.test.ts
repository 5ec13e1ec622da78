/**
 * The start's indexing of tickets from before the tenants' indexes walks them once per process,
 * however many callers meet it while it runs (the notice drain and the sweep each tick: before,
 * each tick began another walk while the first was still reading), and once per store: a store whose
 * tickets were indexed is not walked again by the next start (issue 38).
 */
import type { CoreContext } from '../../../src/core/context';
import { toJson } from '../../../src/core/conversations/model';
import { TICKETS_INDEXED_KEY, TicketStore } from '../../../src/core/handoff/tickets';
import { SqliteStore } from '../../../src/state/sqlite-store';

function legacyTicket(n: number) {
  return {
    id: `legacy-${n}`,
    convId: `conv-${n}`,
    status: 'closed',
    user: { id: `U${n}`, name: `User ${n}`, isAdmin: false },
    userPlace: { surface: 'slack', workspace: `T${n % 7}`, channel: 'C1', thread: `${n}.1` },
    reason: 'from before the indexes',
    createdAt: 1_700_000_000_000 + n,
  };
}

async function storeWithLegacyTickets(): Promise<SqliteStore> {
  const store = new SqliteStore(':memory:');
  for (let n = 0; n < 40; n++) await store.set(`ticket:legacy-${n}`, toJson(legacyTicket(n)));
  return store;
}

const ctxOf = (store: SqliteStore) =>
  ({ store, config: { retentionMs: 86_400_000 }, now: () => 1_800_000_000_000 }) as unknown as CoreContext;

describe('indexing the tickets from before the indexes', () => {
  test('callers that meet the walk while it runs share it: one walk, not one each', async () => {
    const alone = await storeWithLegacyTickets();
    const shared = await storeWithLegacyTickets();
    try {
      let before = alone.statementsRun;
      await new TicketStore(ctxOf(alone)).indexTenantsOnce();
      const oneWalk = alone.statementsRun - before;
      before = shared.statementsRun;
      const tickets = new TicketStore(ctxOf(shared));
      await Promise.all([tickets.indexTenantsOnce(), tickets.indexTenantsOnce(), tickets.indexTenantsOnce()]);
      expect(shared.statementsRun - before).toBe(oneWalk);
      expect(oneWalk).toBeGreaterThan(40);
    } finally {
      await alone.close();
      await shared.close();
    }
  });

  test('a store whose tickets were indexed is not walked again by the next start', async () => {
    const store = await storeWithLegacyTickets();
    try {
      await new TicketStore(ctxOf(store)).indexTenantsOnce();
      expect(await store.get(TICKETS_INDEXED_KEY)).toBeDefined();
      const before = store.statementsRun;
      await new TicketStore(ctxOf(store)).indexTenantsOnce();
      expect(store.statementsRun - before).toBe(1);
    } finally {
      await store.close();
    }
  });
});
