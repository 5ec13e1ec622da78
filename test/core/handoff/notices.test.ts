/**
 * The ticket-notice outbox on its own: a notice posted before a crash is not posted again on replay,
 * two instances draining at once post each notice once, and a notice that failed is tried again.
 */
import { NOTICE_BOX, type Notice } from '../../../src/core/handoff/notice';
import { TicketNotices } from '../../../src/core/handoff/notices';
import { randomBytes } from 'node:crypto';
import { RedisStore } from '../../../src/state/redis-store';
import type { StateStore } from '../../../src/state/store';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';

const REDIS_PREFIX = `test:notices:${randomBytes(4).toString('hex')}:`;

/** Each backing the bridge runs on: the harness's SQLite file, and Redis under a prefix of this run. */
const BACKINGS: Array<[string, (h: CoreHarness) => StateStore]> = [
  ['SQLite', (h) => h.store],
  ['Redis', () => new RedisStore('redis://127.0.0.1:6379/9', { keyPrefix: REDIS_PREFIX })],
];

describe.each(BACKINGS)('handoff notice outbox (%s)', (_name, open) => {
  let h: CoreHarness;
  let store: StateStore;
  let seq = 0;
  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    store = open(h);
  });
  afterAll(async () => {
    if (store instanceof RedisStore) {
      // Only this run's keys: other test files share the database.
      const found = await store.client.keys(`${REDIS_PREFIX}*`);
      if (found.length > 0) await store.client.del(...found);
      await store.close();
    }
    await h.close();
  });

  /** A TicketNotices as another process would have it: its own instance id, and optionally its own store view. */
  const instance = (instanceId: string, over: StateStore = store): TicketNotices =>
    new TicketNotices({ ...h.ctx, store: over, config: { ...h.config, instanceId } });
  const posts = (place = h.channel): string[] => h.surface.messagesIn(place).map((m) => m.current.text);
  /** Writes a change with `texts` as post notices, as a ticket change does. */
  const write = async (notices: TicketNotices, texts: string[]) => {
    const intents = notices.intents(
      texts.map((text): Notice => ({ kind: 'post', ticketId: 'T1', place: h.channel, msg: { text } })),
    );
    expect(await store.compareAndSetWithIntents(`change-${++seq}`, undefined, 1, undefined, NOTICE_BOX, intents)).toBe(
      true,
    );
    return intents;
  };

  it('a post recorded before a crash is not posted again when the next process replays it', async () => {
    // This process "dies" right after the post was recorded: marking it done fails.
    let crashed = false;
    const dying = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'completeIntent' && !crashed) {
          return async () => {
            crashed = true;
            throw new Error('process killed');
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const before = instance('proc-1', dying);
    const [intent] = await write(before, ['Posted once, before the crash']);
    await before.deliver([intent!]);
    expect(crashed).toBe(true);
    expect(posts().filter((t) => t === 'Posted once, before the crash')).toHaveLength(1);
    const stored = await store.intent(NOTICE_BOX, intent!.id);
    expect(stored?.state).toBe('pending');
    expect(stored?.result).toMatchObject({ posted: { place: h.channel } });

    // The restarted process (same instance id, so the lease is its own) replays: done, not reposted.
    expect(await instance('proc-1').drain()).toBe(1);
    expect((await store.intent(NOTICE_BOX, intent!.id))?.state).toBe('done');
    expect(posts().filter((t) => t === 'Posted once, before the crash')).toHaveLength(1);
  });

  it('two instances draining at once post every notice exactly once', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `Notice ${i + 1} of 12`);
    await write(instance('writer'), texts);
    const a = instance('inst-a');
    const b = instance('inst-b');
    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
    // Whatever one skipped (the other held its lease) the next round finds done or takes.
    await Promise.all([a.drain(), b.drain()]);
    const shown = posts().filter((t) => t.startsWith('Notice '));
    expect([...shown].sort()).toEqual([...texts].sort());
    expect(await store.pendingIntents(NOTICE_BOX, 100)).toEqual([]);
  });

  it('a notice whose post failed stays pending and goes out on the next drain', async () => {
    const n = instance('inst-retry');
    const [intent] = await write(n, ['After a failure']);
    // The surface refuses the first try (as a platform error would).
    const surface = h.surface as unknown as { post: typeof h.surface.post };
    const realPost = surface.post.bind(h.surface);
    let refused = 0;
    surface.post = async (p, msg, o) => {
      if (msg.text === 'After a failure' && refused === 0) {
        refused++;
        throw new Error('channel_not_found');
      }
      return realPost(p, msg, o);
    };
    try {
      await n.deliver([intent!]);
      expect(refused).toBe(1);
      expect((await store.intent(NOTICE_BOX, intent!.id))?.state).toBe('pending');
      expect(posts().filter((t) => t === 'After a failure')).toHaveLength(0);
      await n.drain();
      expect(posts().filter((t) => t === 'After a failure')).toHaveLength(1);
      expect((await store.intent(NOTICE_BOX, intent!.id))?.state).toBe('done');
    } finally {
      surface.post = realPost;
    }
  });

  it("a notice's failed tries are counted in the store: a restarted process goes on counting, then gives up", async () => {
    const [intent] = await write(instance('inst-count-a'), ['Never goes out']);
    const surface = h.surface as unknown as { post: typeof h.surface.post };
    const realPost = surface.post.bind(h.surface);
    let refused = 0;
    surface.post = async (p, msg, o) => {
      if (msg.text === 'Never goes out') {
        refused++;
        throw new Error('channel_not_found');
      }
      return realPost(p, msg, o);
    };
    try {
      // Five tries by one process, then it "restarts": a new process (no memory of them) tries on.
      const first = instance('inst-count-a');
      for (let i = 0; i < 5; i++) await first.deliver([intent!]);
      expect((await store.intent(NOTICE_BOX, intent!.id))?.state).toBe('pending');
      const restarted = instance('inst-count-a');
      for (let i = 0; i < 3; i++) await restarted.deliver([intent!]);
      // The eighth try in all was the last: given up (done), not tried for ever.
      expect(refused).toBe(8);
      expect((await store.intent(NOTICE_BOX, intent!.id))?.state).toBe('done');
    } finally {
      surface.post = realPost;
    }
  });
});
