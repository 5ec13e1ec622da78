/**
 * A conversation's records on both real stores (SQLite; Redis under a prefix of this run's own): its
 * record, session, transcript, queue item and Retry record live under its tenant's prefix
 * (`t:<kind>:<id>:`), and none of them can be reached through another tenant's view, even under the
 * same conversation id and the same channel ids; a raw store key is refused by the compiler.
 */
import { randomBytes } from 'node:crypto';
import { convKeys, convRefAt, toJson, type ConvRef } from '../../../src/core/conversations/model';
import { convView, loadConversation } from '../../../src/core/conversations/records';
import { appendTurn, readTranscript } from '../../../src/core/conversations/transcript';
import { CoreMemory } from '../../../src/core/memory';
import type { Place } from '../../../src/core/surface';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { StateStore } from '../../../src/state/store';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { requestTenant } from '../../../src/core/tenants/tenant';
import { dropRedisPrefix } from '../../support/redis-prefix';

const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:tenant-records:${randomBytes(4).toString('hex')}:`;
let run = 0;
const DAY_MS = 86_400_000;

afterAll(async () => {
  // Only this run's keys: the database is shared.
  await dropRedisPrefix(REDIS, prefix);
});

/** Everything a conversation keeps, written the way core writes it; returns its ref. */
async function seed(store: StateStore, place: Place): Promise<ConvRef> {
  const ref = convRefAt(place);
  const view = convView(store, ref);
  await view.set(convKeys.conversation(ref.id), toJson({ id: ref.id, place, createdAt: 1 }));
  await view.set(convKeys.session(ref.id), 41);
  await appendTurn(
    { store, memory: new CoreMemory() },
    ref,
    { author: 'Ada', text: 'Homes in Austin?', at: 1 },
    DAY_MS,
  );
  await view.push(convKeys.queue(ref.id), { kind: 'message', text: 'queued' });
  await view.set(convKeys.retry('r1'), { conv: ref.id, question: 'Homes in Austin?' });
  return ref;
}

describe.each([
  ['SQLite', (): StateStore => new SqliteStore(':memory:')],
  ['Redis', (): StateStore => new RedisStore(REDIS, { keyPrefix: `${prefix}${++run}:` })],
])('a conversation’s records on %s', (_name, open) => {
  let store: StateStore;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  const place: Place = { surface: 'slack', workspace: 'T1', channel: 'C1', thread: '1.1' };
  const other = requestTenant({ surface: 'slack', workspace: 'T2' });

  test('live under the tenant’s prefix and cannot be reached through another tenant’s view', async () => {
    const ref = await seed(store, place);
    const own = convView(store, ref);
    // Another tenant asking for the same conversation id (a button's value, say) finds nothing.
    const theirs: ConvRef = { tenant: other, id: ref.id };
    const through = convView(store, theirs);

    const keys = await store.keys('');
    expect(keys.length).toBeGreaterThanOrEqual(5);
    expect(keys.filter((k) => !k.startsWith(tenantPrefix(ref.tenant)))).toEqual([]);
    expect(keys).toEqual(
      expect.arrayContaining([
        `t:slack:T1:conv:${ref.id}`,
        `t:slack:T1:conv:${ref.id}:session`,
        `t:slack:T1:conv:${ref.id}:transcript`,
        't:slack:T1:retry:r1',
      ]),
    );
    expect(await store.length(`t:slack:T1:convq:${ref.id}`)).toBe(1);
    expect(await store.length(`convq:${ref.id}`)).toBe(0);

    expect(await loadConversation(store, ref, DAY_MS)).toMatchObject({ id: ref.id });
    expect(await loadConversation(store, theirs, DAY_MS)).toBeUndefined();
    expect(await readTranscript(store, ref)).toHaveLength(1);
    expect(await readTranscript(store, theirs)).toEqual([]);
    expect(await own.get(convKeys.session(ref.id))).toBe(41);
    expect(await through.get(convKeys.session(ref.id))).toBeUndefined();
    expect(await through.get(convKeys.retry('r1'))).toBeUndefined();
    expect(await through.length(convKeys.queue(ref.id))).toBe(0);
    expect(await through.peek(convKeys.queue(ref.id))).toBeUndefined();
    expect(await through.ack(convKeys.queue(ref.id), (await own.peek(convKeys.queue(ref.id)))!.id)).toBe(false);
    expect(await own.length(convKeys.queue(ref.id))).toBe(1);
    expect(await through.keys(convKeys.conversations)).toEqual([]);
    // What the other tenant writes under the same names stays its own.
    await through.set(convKeys.session(ref.id), 99);
    expect(await own.get(convKeys.session(ref.id))).toBe(41);
  });

  test('the same channel and thread ids in another workspace are another conversation, kept apart', async () => {
    const mine = await seed(store, place);
    const theirs = await seed(store, { ...place, workspace: 'T2' });
    expect(theirs.id).not.toBe(mine.id);
    expect(await convView(store, mine).keys(convKeys.conversations)).toEqual(
      expect.not.arrayContaining([expect.stringContaining(theirs.id)]),
    );
    expect(await convView(store, theirs).get(convKeys.retry('r1'))).toEqual({
      conv: theirs.id,
      question: 'Homes in Austin?',
    });
    expect(await convView(store, mine).get(convKeys.retry('r1'))).toEqual({
      conv: mine.id,
      question: 'Homes in Austin?',
    });
  });

  test('a view takes no raw store key, for a record or a queue (checked by the compiler)', () => {
    const view = convView(store, tenantFor('slack', 'T1'));
    // @ts-expect-error a raw key is not a ScopedKey
    void view.get('conv:abc');
    // @ts-expect-error a raw queue name is not a ScopedKey
    void view.push('convq:abc', 1);
  });
});
