/**
 * What one answer no longer reads or writes twice (issue 38), and the guarantees each saving keeps:
 * - transcript and lead appends offer what this instance last wrote as the compare-and-set's expected
 *   value (last-written.ts): another instance's turn in between, or records deleted meanwhile (a
 *   tenant that left), are still seen, on SQLite and on Redis;
 * - a conversation made by the request is written once, not touched again before its first item,
 *   and its first turn reads neither transcript nor lead facts (a guess the compare-and-set checks);
 * - a rated answer is written without a read first and completed with one read;
 * - a `/ask`'s scope serves the answer to its own question once, within its hold, and nothing else.
 */
import { randomBytes } from 'node:crypto';
import type { TenantScope } from '../../../src/core/context';
import { FreshConversations } from '../../../src/core/conversations/activity';
import { AskedScopes } from '../../../src/core/conversations/asked-scopes';
import { LastWritten } from '../../../src/core/conversations/last-written';
import { convKeys, convRefAt, type ConvRef, type Turn } from '../../../src/core/conversations/model';
import { convView } from '../../../src/core/conversations/records';
import { sessionsOf } from '../../../src/core/conversations/sessions';
import { appendTurn, readTranscript } from '../../../src/core/conversations/transcript';
import { beginRatedAnswer, completeRatedAnswer, feedbackOf } from '../../../src/core/feedback/feedback';
import { readLeadFacts } from '../../../src/core/handoff/lead-store';
import { channelListings, noteChannelListings } from '../../../src/core/listings/channel-listings';
import type { Listing } from '../../../src/service/schemas/listings';
import { CoreMemory } from '../../../src/core/memory';
import type { Place } from '../../../src/core/surface';
import { requestTenant } from '../../../src/core/tenants/tenant';
import { settleOldLayout } from '../../../src/state/old-layout';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { StateStore } from '../../../src/state/store';
import { forgetTenantKeys } from '../../../src/state/tenant-store';
import { dropRedisPrefix } from '../../support/redis-prefix';

const REDIS = 'redis://127.0.0.1:6379/7';
const prefix = `test:answer-reads:${randomBytes(4).toString('hex')}:`;
let run = 0;
const DAY_MS = 86_400_000;

afterAll(async () => {
  // Only this run's keys: the database is shared.
  await dropRedisPrefix(REDIS, prefix);
});

/** The store, and every call made through it (method and first argument): a real store, counted. */
function counted(store: StateStore): { store: StateStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(prop)} ${String(args[0])}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

const turn = (author: string, text: string, at: number): Turn => ({ author, text, at });

describe.each([
  ['SQLite', (): StateStore => new SqliteStore(':memory:')],
  ['Redis', (): StateStore => new RedisStore(REDIS, { keyPrefix: `${prefix}${++run}:` })],
])('one answer’s store work on %s', (_name, open) => {
  let raw: StateStore;
  let store: StateStore;
  let calls: string[];
  const place: Place = {
    surface: 'slack',
    workspace: 'T1',
    channel: 'C1',
    thread: `${randomBytes(3).toString('hex')}.1`,
  };
  let ref: ConvRef;
  const reads = (part: string) => calls.filter((c) => c.startsWith('get ') && c.endsWith(part)).length;

  beforeEach(async () => {
    raw = open();
    ({ store, calls } = counted(raw));
    // No record of the old layout: reads of old keys cost nothing (state/old-layout.ts).
    await settleOldLayout(store, 1);
    ref = convRefAt({ ...place, thread: `${randomBytes(3).toString('hex')}.1` });
    calls.length = 0;
  });
  afterEach(() => raw.close());

  test('an instance’s next turn is appended without reading transcript or lead facts first', async () => {
    const a = { store, memory: new CoreMemory() };
    await appendTurn(a, ref, turn('Ada', 'Homes in Austin? Mail ada@example.com', 1), DAY_MS);
    calls.length = 0;
    await appendTurn(a, ref, turn('Ada', 'Call me at +1 512 555 0100', 2), DAY_MS);
    expect(reads(':transcript')).toBe(0);
    expect(reads(':lead')).toBe(0);
    expect((await readTranscript(store, ref)).map((t) => t.at)).toEqual([1, 2]);
    const facts = await readLeadFacts(store, ref);
    expect(facts?.emails).toEqual(['ada@example.com']);
    expect(facts?.city).toBe('Austin');
    expect(facts?.phones.length).toBe(1);
  });

  test('another instance’s turn in between is kept: the stale guess is refused and read again', async () => {
    const a = { store, memory: new CoreMemory() };
    const b = { store, memory: new CoreMemory() };
    await appendTurn(a, ref, turn('Ada', 'Homes in Austin?', 1), DAY_MS);
    await appendTurn(b, ref, turn('Ada', 'Mail me: ada@example.com', 2), DAY_MS);
    await appendTurn(a, ref, turn('Bot', 'Here are three homes.', 3), DAY_MS);
    expect((await readTranscript(store, ref)).map((t) => t.at)).toEqual([1, 2, 3]);
    expect((await readLeadFacts(store, ref))?.emails).toEqual(['ada@example.com']);
    // And the next append of either instance still sees every turn.
    await appendTurn(b, ref, turn('Ada', 'Thanks', 4), DAY_MS);
    expect((await readTranscript(store, ref)).map((t) => t.at)).toEqual([1, 2, 3, 4]);
  });

  test('records deleted meanwhile (their tenant left) are not brought back by a guess', async () => {
    const a = { store, memory: new CoreMemory() };
    await appendTurn(a, ref, turn('Ada', 'Mail me: ada@example.com', 1), DAY_MS);
    await forgetTenantKeys(store, ref.tenant);
    await appendTurn(a, ref, turn('Ada', 'Homes in Denver?', 2), DAY_MS);
    expect((await readTranscript(store, ref)).map((t) => t.at)).toEqual([2]);
    expect((await readLeadFacts(store, ref))?.emails).toEqual([]);
  });

  test('a conversation made here: written once, not touched before its first item, its first turn unread', async () => {
    const ctx = { store, memory: new CoreMemory(), now: () => 5 };
    const fresh = new FreshConversations();
    const asker = { id: 'U1', name: 'Ada', isAdmin: false };
    const conv = await fresh.ensure(ctx, place, asker, DAY_MS);
    const convKey = convKeys.conversation(conv.id);
    expect(calls.filter((c) => c.includes(convKey))).toEqual([expect.stringMatching(/^setIfAbsent /)]);
    calls.length = 0;
    await fresh.touch(ctx, conv, DAY_MS);
    expect(calls).toEqual([]);
    const at = convRefAt(place);
    await appendTurn(ctx, at, turn('Ada', 'Homes in Austin?', 1), DAY_MS);
    expect(reads(':transcript') + reads(':lead')).toBe(0);
    // Its next activity is a plain one: the record's life renewed.
    await fresh.touch(ctx, conv, DAY_MS);
    expect(calls.some((c) => c.startsWith('set ') && c.endsWith(convKey))).toBe(true);
    // The same place again finds the record (a second write loses, the record is read).
    const again = await fresh.ensure(ctx, place, { ...asker, id: 'U2' }, DAY_MS);
    expect(again.asker?.id).toBe('U1');
  });

  test('a wrong guess of absence (a turn written elsewhere first) is corrected, not overwritten', async () => {
    const ctx = { store, memory: new CoreMemory(), now: () => 5 };
    const conv = await new FreshConversations().ensure(ctx, place, { id: 'U1', name: 'Ada', isAdmin: false }, DAY_MS);
    const at = convRefAt(conv.place);
    await appendTurn({ store, memory: new CoreMemory() }, at, turn('Ada', 'Mail me: ada@example.com', 1), DAY_MS);
    await appendTurn(ctx, at, turn('Ada', 'Homes in Austin?', 2), DAY_MS);
    expect((await readTranscript(store, at)).map((t) => t.at)).toEqual([1, 2]);
    expect((await readLeadFacts(store, at))?.emails).toEqual(['ada@example.com']);
  });

  test('a session known absent: the first call opens one unread, the next finds it; otherwise read as before', async () => {
    let opened = 0;
    const scope = {
      store,
      view: convView(store, ref.tenant),
      tenant: ref.tenant,
      config: { handoff: {} },
      now: () => 1,
      chatbot: { kind: 'operator', chatbotId: 'bot-a', client: { getSession: async () => 100 + ++opened } },
    } as unknown as TenantScope;
    const conv = { id: ref.id, place: { ...place, thread: 'x' } };
    const session = sessionsOf(scope, DAY_MS, true);
    expect(await session(conv)).toBe(101);
    expect(reads(':session') + reads(':session-chatbot')).toBe(0);
    expect(await session(conv)).toBe(101);
    expect(reads(':session')).toBe(1);
    // Without the knowledge (another item, a later try): read, and the session found is kept.
    expect(await sessionsOf(scope, DAY_MS, false)(conv)).toBe(101);
    expect(opened).toBe(1);
  });

  test('an answer that named five listings replaces its channel’s list unread; fewer are merged with it', async () => {
    const scope = { view: convView(store, ref.tenant), now: () => 9 };
    const homes = (...ids: number[]) =>
      ids.map(
        (id) => ({ id: String(id), address: `${id} Main St`, images: [], extensionColumns: {} }) as unknown as Listing,
      );
    await noteChannelListings(scope, place, homes(1, 2));
    await noteChannelListings(scope, place, homes(3));
    expect(await channelListings(scope, place)).toEqual(['3 Main St', '1 Main St', '2 Main St']);
    calls.length = 0;
    await noteChannelListings(scope, place, homes(4, 5, 6, 7, 8));
    expect(reads('channel-listings:C1')).toBe(0);
    expect(await channelListings(scope, place)).toEqual([
      '4 Main St',
      '5 Main St',
      '6 Main St',
      '7 Main St',
      '8 Main St',
    ]);
  });

  test('a rated answer: written without a read, completed with one; gone meanwhile, not written again', async () => {
    const scope = { view: convView(store, ref.tenant), store, now: () => 7 };
    await beginRatedAnswer(scope, 'f1', ref.id, place);
    expect(calls.filter((c) => c.startsWith('get '))).toEqual([]);
    calls.length = 0;
    await completeRatedAnswer(scope, 'f1', { message: { place, id: 'm1' }, answerId: 42 });
    expect(calls.filter((c) => c.startsWith('get ')).length).toBe(1);
    expect(await feedbackOf(scope).answer('f1')).toMatchObject({ id: 'f1', message: 'm1', answerId: 42, at: 7 });
    await beginRatedAnswer(scope, 'f2', ref.id, place);
    await forgetTenantKeys(store, ref.tenant);
    await completeRatedAnswer(scope, 'f2', { message: { place, id: 'm2' } });
    expect(await feedbackOf(scope).answer('f2')).toBeUndefined();
  });
});

test('the memo of last writes is bounded: the oldest guess goes first', () => {
  const memo = new LastWritten(2);
  const t = requestTenant({ surface: 'slack', workspace: 'T1' });
  const [a, b, c] = ['a', 'b', 'c'].map((id) => convKeys.transcript(id));
  memo.note(t, a!, 1);
  memo.note(t, b!, 2);
  memo.note(t, a!, 3);
  memo.note(t, c!, 4);
  expect(memo.size).toBe(2);
  expect(memo.guess(t, b!)).toBeUndefined();
  expect(memo.guess(t, a!)).toEqual({ value: 3 });
  // Another tenant's record of the same name is another entry.
  expect(memo.guess(requestTenant({ surface: 'slack', workspace: 'T2' }), a!)).toBeUndefined();
});

describe('a /ask’s scope held for the answer to its question', () => {
  const place: Place = { surface: 'slack', workspace: 'T1', channel: 'C1', thread: '9.1' };
  const ref = convRefAt(place);
  const conv = { id: ref.id, place, createdAt: 1, asker: { id: 'U1', name: 'Ada', isAdmin: false } };
  const scopeOf = (workspace: string) => ({ tenant: requestTenant({ surface: 'slack', workspace }) }) as TenantScope;

  test('is given once, for that item only', () => {
    let now = 1000;
    const held = new AskedScopes(() => now);
    const scope = scopeOf('T1');
    held.hold(scope, conv, ref, 'ask:1', true);
    expect(held.take(ref, 'ask:2', 1)).toBeUndefined();
    expect(held.take(ref, 'ask:1', 1)).toMatchObject({ scope, noSessionYet: true });
    expect(held.take(ref, 'ask:1', 1)).toBeUndefined();
    now += 1;
    expect(held.size).toBe(0);
  });

  test('knows the conversation has no session only when the request made it and this is its first try', () => {
    const held = new AskedScopes(() => 1000);
    held.hold(scopeOf('T1'), conv, ref, 'ask:1', true);
    expect(held.take(ref, 'ask:1', 2)?.noSessionYet).toBe(false);
    held.hold(scopeOf('T1'), conv, ref, 'ask:1', false);
    expect(held.take(ref, 'ask:1', 1)?.noSessionYet).toBe(false);
  });

  test('is not given after its hold (the next try builds its own scope)', () => {
    let now = 1000;
    const held = new AskedScopes(() => now);
    held.hold(scopeOf('T1'), conv, ref, 'ask:1', true);
    now += 30_001;
    expect(held.take(ref, 'ask:1', 1)).toBeUndefined();
  });

  test('another tenant’s scope is never held for the conversation', () => {
    const held = new AskedScopes(() => 1000);
    held.hold(scopeOf('T2'), conv, ref, 'ask:1', true);
    expect(held.take(ref, 'ask:1', 1)).toBeUndefined();
  });

  test('old holds go when new ones come', () => {
    let now = 1000;
    const held = new AskedScopes(() => now);
    held.hold(scopeOf('T1'), conv, ref, 'ask:1', true);
    now += 30_001;
    held.hold(scopeOf('T1'), conv, ref, 'ask:2', true);
    expect(held.size).toBe(1);
  });
});
