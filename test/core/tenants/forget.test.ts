/**
 * forgetTenant on both real stores (SQLite; Redis under a prefix of this run's own): every record core keys to a tenant is deleted (those named by key,
 * those whose value names it, and what hangs off them by id), and another tenant's, even of the same
 * surface or with the same channel ids, is kept.
 */
import { conversationIdOf, keys, toJson } from '../../../src/core/conversations/model';
import { NOTICE_BOX } from '../../../src/core/handoff/notice';
import { ticketKeys } from '../../../src/core/handoff/model';
import type { Place } from '../../../src/core/surface';
import { forgetTenant } from '../../../src/core/tenants/forget';
import { randomBytes } from 'node:crypto';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { StateStore } from '../../../src/state/store';
import { dropRedisPrefix } from '../../support/redis-prefix';

const asker = { id: 'U1', name: 'Ada', isAdmin: false };

/** One conversation of `place` with everything core stores about it; returns its id. */
async function seedConversation(store: StateStore, place: Place, tag: string): Promise<string> {
  const id = conversationIdOf(place);
  await store.set(keys.conversation(id), toJson({ id, place, createdAt: 1, asker }));
  await store.set(keys.session(id), 'session');
  await store.set(keys.transcript(id), [{ author: 'Ada', text: 'hi', at: 1 }]);
  await store.set(keys.pending(id), 1);
  await store.set(keys.started(id, '0001'), { at: 1 });
  await store.set(keys.recent(place, 'U1'), 'thread');
  await store.set(keys.seen(place, `m-${tag}`), 1);
  await store.set(`assistant:welcomed:${place.surface}:${place.workspace}:U1:2026-01-01`, 1);
  await store.set(keys.retry(`r-${tag}`), { conv: id, question: 'hi' });
  await store.set(keys.retrying(`r-${tag}`), 1);
  await store.push(keys.queue(id), { kind: 'message', text: 'queued' });
  await store.acquireLease(keys.lease(id), 'instance-1', 60_000);
  // A ticket asked for in it, posted in a handoff channel, with a notice still pending.
  const ticketId = `t-${tag}`;
  const thread: Place = { ...place, thread: `ticket-thread-${tag}` };
  const root = { place: { surface: place.surface, workspace: place.workspace, channel: place.channel }, id: `r${tag}` };
  await store.set(
    ticketKeys.ticket(ticketId),
    toJson({
      id: ticketId,
      convId: id,
      status: 'open',
      user: asker,
      userPlace: place,
      reason: 'call me',
      createdAt: 1,
      thread,
      root,
    }),
  );
  await store.set(ticketKeys.open(ticketId), 1);
  await store.set(ticketKeys.byThread(thread), ticketId);
  await store.set(ticketKeys.byMessage(root), ticketId);
  await store.compareAndSetWithIntents(`notice-mark:${tag}`, undefined, 1, undefined, NOTICE_BOX, [
    { id: `${ticketId}:open:0`, value: { kind: 'refresh', ticketId } },
  ]);
  // A rated answer with a vote, and an answer in flight.
  await store.set(`feedback:answer:a-${tag}`, toJson({ id: `a-${tag}`, conversation: id, at: 1, ...place }));
  await store.set(`feedback:vote:a-${tag}:U1`, {
    answer: `a-${tag}`,
    user: 'U1',
    vote: 'positive',
    surface: 'x',
    at: 1,
  });
  await store.set(`inflight:${id}:k-${tag}`, toJson({ surface: place.surface, place, messages: [] }));
  return id;
}

const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:forget:${randomBytes(4).toString('hex')}:`;
let run = 0;

afterAll(async () => {
  // Only this run's keys: the database is shared.
  await dropRedisPrefix(REDIS, prefix);
});

describe.each([
  ['SQLite', (): StateStore => new SqliteStore(':memory:')],
  ['Redis', (): StateStore => new RedisStore(REDIS, { keyPrefix: `${prefix}${++run}:` })],
])('forgetTenant on %s', (_name, open) => {
  let store: StateStore;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  test('deletes every record of the tenant and keeps the other tenant’s', async () => {
    const gone = await seedConversation(
      store,
      { surface: 'slack', workspace: 'T1', channel: 'C1', thread: '1.1' },
      'a',
    );
    // The same channel and thread ids in another workspace: a different tenant.
    const kept = await seedConversation(
      store,
      { surface: 'slack', workspace: 'T2', channel: 'C1', thread: '1.1' },
      'b',
    );
    await store.set('extra:T1', 'a surface key');
    const before = (await store.keys('')).length;

    const done = await forgetTenant(store, { surface: 'slack', workspace: 'T1' }, { surfaceKeys: () => ['extra:T1'] });

    expect(done).toEqual(expect.objectContaining({ conversations: 1, tickets: 1 }));
    const left = await store.keys('');
    expect(left.filter((k) => k.includes(gone) || k.includes('-a') || k.includes('T1'))).toEqual([]);
    expect(left.filter((k) => k.includes(kept)).length).toBeGreaterThanOrEqual(5);
    expect(left).toEqual(expect.arrayContaining(['ticket:t-b', 'feedback:answer:a-b', 'feedback:vote:a-b:U1']));
    expect(before - left.length).toBe(done.records);
    // Its queue is emptied and its lease released; the other's are untouched.
    expect(await store.length(keys.queue(gone))).toBe(0);
    expect(await store.leaseInfo(keys.lease(gone))).toBeUndefined();
    expect(await store.length(keys.queue(kept))).toBe(1);
    expect(await store.leaseInfo(keys.lease(kept))).toBeDefined();
    // Its ticket's pending notice will not be carried out; the other ticket's still will.
    expect((await store.pendingIntents(NOTICE_BOX, 10)).map((i) => i.id)).toEqual(['t-b:open:0']);
  });

  test('a tenant with nothing stored deletes nothing', async () => {
    await seedConversation(store, { surface: 'discord', workspace: 'G1', channel: 'C1' }, 'a');
    const before = (await store.keys('')).sort();
    expect(await forgetTenant(store, { surface: 'discord', workspace: 'G2' })).toEqual({
      records: 0,
      conversations: 0,
      tickets: 0,
    });
    // Same workspace id on another surface is another tenant.
    expect(await forgetTenant(store, { surface: 'slack', workspace: 'G1' })).toEqual({
      records: 0,
      conversations: 0,
      tickets: 0,
    });
    expect((await store.keys('')).sort()).toEqual(before);
  });
});
