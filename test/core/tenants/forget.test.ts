/**
 * forgetTenant on both real stores (SQLite; Redis under a prefix of this run's own): every record core
 * keeps for a tenant is deleted (its part of the store whole, its queues emptied, the global records of
 * its conversations, tickets and answers in flight, its connection and its own chatbot's applied
 * settings), and another tenant's, even of the same surface or with the same channel ids, is kept. The
 * same holds for records still in the layout from before the tenants' parts (an upgrade).
 */
import {
  conversationIdOf,
  convKeys,
  convRefAt,
  infraKeys,
  legacyKeys as keys,
  toJson,
} from '../../../src/core/conversations/model';
import { convView } from '../../../src/core/conversations/records';
import { appendTurn } from '../../../src/core/conversations/transcript';
import { CoreMemory } from '../../../src/core/memory';
import { appliedSettingsKey } from '../../../src/core/settings/applied';
import { connectionKey, TenantConnections } from '../../../src/core/tenants/connections';
import { SecretBox } from '../../../src/state/secret-box';
import { scoped, tenantFor, tenantPrefix, type Tenant } from '../../../src/state/tenant-store';
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

/** A ticket asked for in the conversation, posted in a handoff channel, with a notice still pending (global records). */
async function seedTicket(store: StateStore, place: Place, id: string, tag: string): Promise<void> {
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
}

/** The tenant's connection (written by TenantConnections: sealed, its chatbot's tag plain and indexed) and that chatbot's applied settings. */
async function seedConnection(store: StateStore, tenant: Tenant, chatbotId: string): Promise<void> {
  await new TenantConnections(store, new SecretBox(randomBytes(32)), () => 1).put(tenant, {
    chatbotId,
    secretKey: 'sk_seeded-secret',
    sessionKey: 'ssk_seeded-session',
    connectedBy: 'U1',
    connectedAt: 1,
  });
  await store.set(appliedSettingsKey(chatbotId), { TalkToHumanResponseMessage: `${chatbotId} words` });
}

/** One conversation of `place` with everything core stores about it, as this version keeps it; returns its id. */
async function seedConversation(store: StateStore, place: Place, tag: string): Promise<string> {
  const ref = convRefAt(place);
  const { id } = ref;
  const view = convView(store, ref);
  await view.set(convKeys.conversation(id), toJson({ id, place, createdAt: 1, asker }));
  await view.set(convKeys.session(id), 7);
  await view.set(convKeys.sessionChatbot(id), 'bot');
  await appendTurn(
    { store, memory: new CoreMemory() },
    ref,
    { author: 'Ada', text: 'call me at ada@example.com', at: 1 },
    60_000,
  );
  await view.set(convKeys.handoff(id), `t-${tag}`);
  await view.set(convKeys.started(id, '0001'), { owner: 'x', done: true });
  await view.set(convKeys.recent(place, 'U1'), id);
  await view.set(convKeys.seen(place, `m-${tag}`), 1);
  await view.set(convKeys.retry(`r-${tag}`), { conv: id, question: 'hi' });
  await view.set(convKeys.retrying(`r-${tag}`), 'U1');
  await view.set(
    scoped('feedback', 'answer', `a-${tag}`),
    toJson({ id: `a-${tag}`, conversation: id, at: 1, ...place }),
  );
  await view.push(convKeys.queue(id), { kind: 'message', text: 'queued' });
  await store.set(infraKeys.pending(id), toJson(ref.tenant));
  await store.acquireLease(infraKeys.lease(id), 'instance-1', 60_000);
  await seedTicket(store, place, id, tag);
  await store.set(`inflight:${id}:k-${tag}`, toJson({ surface: place.surface, place, messages: [] }));
  await store.set(
    `askintent:i-${tag}`,
    toJson({ surface: place.surface, place, actor: asker, question: 'hi', owner: 'x' }),
  );
  return id;
}

/** The same conversation as the version before the tenants' parts kept it: every record a global key. */
async function seedLegacyConversation(store: StateStore, place: Place, tag: string): Promise<string> {
  const id = conversationIdOf(place);
  await store.set(keys.conversation(id), toJson({ id, place, createdAt: 1, asker }));
  await store.set(keys.session(id), 'session');
  await store.set(keys.transcript(id), [{ author: 'Ada', text: 'hi', at: 1 }]);
  await store.set(infraKeys.pending(id), 1);
  await store.set(keys.started(id, '0001'), { at: 1 });
  await store.set(keys.recent(place, 'U1'), 'thread');
  await store.set(keys.seen(place, `m-${tag}`), 1);
  await store.set(`assistant:welcomed:${place.surface}:${place.workspace}:U1:2026-01-01`, 1);
  await store.set(keys.retry(`r-${tag}`), { conv: id, question: 'hi' });
  await store.set(keys.retrying(`r-${tag}`), 1);
  await store.push(keys.queue(id), { kind: 'message', text: 'queued' });
  await store.acquireLease(infraKeys.lease(id), 'instance-1', 60_000);
  await seedTicket(store, place, id, tag);
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

  const T1 = tenantFor('slack', 'T1');
  const placeIn = (workspace: string): Place => ({ surface: 'slack', workspace, channel: 'C1', thread: '1.1' });

  test('deletes every record of the tenant and keeps the other tenant’s', async () => {
    const gone = await seedConversation(store, placeIn('T1'), 'a');
    // The same channel and thread ids in another workspace: a different tenant.
    const kept = await seedConversation(store, placeIn('T2'), 'b');
    await seedConnection(store, T1, 'bot-a');
    await seedConnection(store, tenantFor('slack', 'T2'), 'bot-b');
    await store.set('extra:T1', 'a surface key');
    const before = (await store.keys('')).length;

    const done = await forgetTenant(store, T1, { surfaceKeys: () => ['extra:T1'] });

    expect(done).toEqual(expect.objectContaining({ conversations: 1, tickets: 1 }));
    const left = await store.keys('');
    expect(left.filter((k) => k.includes(gone) || k.includes('-a') || k.includes('T1'))).toEqual([]);
    expect(await store.keys(tenantPrefix(T1))).toEqual([]);
    // Its own chatbot's applied settings went with it; the other tenant's chatbot's stay.
    expect(left).not.toContain(appliedSettingsKey('bot-a'));
    expect(left).toEqual(
      expect.arrayContaining([appliedSettingsKey('bot-b'), connectionKey(tenantFor('slack', 'T2'))]),
    );
    expect(left.filter((k) => k.includes(kept)).length).toBeGreaterThanOrEqual(8);
    expect(left).toEqual(expect.arrayContaining(['ticket:t-b', 't:slack:T2:feedback:answer:a-b']));
    expect(before - left.length).toBe(done.records);
    // Its queue is emptied and its lease released; the other's are untouched.
    expect(await convView(store, T1).length(convKeys.queue(gone))).toBe(0);
    expect(await store.leaseInfo(infraKeys.lease(gone))).toBeUndefined();
    expect(await convView(store, tenantFor('slack', 'T2')).length(convKeys.queue(kept))).toBe(1);
    expect(await store.leaseInfo(infraKeys.lease(kept))).toBeDefined();
    // Its ticket's pending notice will not be carried out; the other ticket's still will.
    expect((await store.pendingIntents(NOTICE_BOX, 10)).map((i) => i.id)).toEqual(['t-b:open:0']);
  });

  test('records still in the layout before the tenants’ parts (an upgrade) are deleted too', async () => {
    const gone = await seedLegacyConversation(store, placeIn('T1'), 'a');
    const kept = await seedLegacyConversation(store, placeIn('T2'), 'b');
    const before = (await store.keys('')).length;

    const done = await forgetTenant(store, T1);

    expect(done).toEqual(expect.objectContaining({ conversations: 1, tickets: 1 }));
    const left = await store.keys('');
    expect(left.filter((k) => k.includes(gone) || k.includes('-a') || k.includes('T1'))).toEqual([]);
    expect(left.filter((k) => k.includes(kept)).length).toBeGreaterThanOrEqual(5);
    expect(left).toEqual(expect.arrayContaining(['ticket:t-b', 'feedback:answer:a-b', 'feedback:vote:a-b:U1']));
    expect(before - left.length).toBe(done.records);
    expect(await store.length(keys.queue(gone))).toBe(0);
    expect(await store.leaseInfo(infraKeys.lease(gone))).toBeUndefined();
    expect(await store.length(keys.queue(kept))).toBe(1);
    expect((await store.pendingIntents(NOTICE_BOX, 10)).map((i) => i.id)).toEqual(['t-b:open:0']);
  });

  test('a chatbot another tenant also connected keeps its applied settings, as does one kept for all', async () => {
    await seedConnection(store, T1, 'bot-shared');
    await seedConnection(store, tenantFor('discord', 'G1'), 'bot-shared');
    await forgetTenant(store, T1);
    expect(await store.get(appliedSettingsKey('bot-shared'))).toBeDefined();
    expect(await store.get(connectionKey(T1))).toBeUndefined();

    await seedConnection(store, tenantFor('slack', 'T3'), 'bot-default');
    await forgetTenant(store, tenantFor('slack', 'T3'), { keepChatbots: ['bot-default'] });
    expect(await store.get(appliedSettingsKey('bot-default'))).toBeDefined();
  });

  test('a tenant with nothing stored deletes nothing', async () => {
    await seedConversation(store, { surface: 'discord', workspace: 'G1', channel: 'C1' }, 'a');
    await seedLegacyConversation(store, { surface: 'discord', workspace: 'G1', channel: 'C2' }, 'c');
    const before = (await store.keys('')).sort();
    expect(await forgetTenant(store, tenantFor('discord', 'G2'))).toEqual({
      records: 0,
      conversations: 0,
      tickets: 0,
    });
    // Same workspace id on another surface is another tenant.
    expect(await forgetTenant(store, tenantFor('slack', 'G1'))).toEqual({
      records: 0,
      conversations: 0,
      tickets: 0,
    });
    expect((await store.keys('')).sort()).toEqual(before);
  });
});
