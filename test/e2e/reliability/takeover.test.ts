/**
 * Takeover within the lease: two bridge processes on a Redis of their own with INSTANCE_LEASE_S=2.
 * One is SIGKILLed mid-answer with a follow-up queued behind that answer; the other marks the answer
 * interrupted (its text kept, a Retry button) and answers the follow-up, because the dead instance's
 * leases are the configured 2 s (read from the store before the kill), not the 20 s of before.
 */
import {
  inflightLease,
  inflightRecordSchema,
  INFLIGHT_PREFIX,
  type InflightRecord,
} from '../../../src/core/relay/inflight';
import { leaseTimings, takeoverBoundMs } from '../../../src/core/leases';
import { RedisStore } from '../../../src/state/redis-store';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { type BridgeProcess, buttonsOf, freePort, OwnRedis, shownText } from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';
import { typing, useRig } from './rig';

const LEASE_S = '2';
const LEASE = leaseTimings(Number(LEASE_S) * 1000);
/** The target: a dead instance's answer completed or marked within 10 s of the crash. */
const TARGET_MS = 10_000;
const LONG_QUESTION = 'Give me the long answer: all listings please';

describe('reliability: a killed instance taken over within its lease', () => {
  // About 390 fragments 15 ms apart: the answer streams for several seconds.
  const rig = useRig({ fragmentDelayMs: 15, slack: { streaming: 'unknown_method' } });
  // A Redis of the file's own (the shared one's databases belong to other files), and a store on it
  // to read the leases and records; the store is closed before the server stops.
  const redis = useStarted(async () => {
    const own = new OwnRedis(await freePort());
    await own.start();
    const store = new RedisStore(own.url);
    return {
      url: own.url,
      store,
      close: async () => {
        await store.close();
        await own.stop();
      },
    };
  }, 30_000);
  let keeper: BridgeProcess;
  let victim: BridgeProcess;

  beforeAll(async () => {
    const opts = { stateUrl: redis.url, extra: { INSTANCE_LEASE_S: LEASE_S } };
    [keeper, victim] = await Promise.all([rig.start('takeover-keeper', opts), rig.start('takeover-victim', opts)]);
  }, 60_000);

  /** The victim's in-flight record of the answer in `channel` and its key, once it lists every shown reply. */
  const victimRecord = async (
    channel: string,
    thread: string,
  ): Promise<{ key: string; rec: InflightRecord } | undefined> => {
    const shown = rig.botReplies(channel, thread);
    for (const key of await redis.store.keys(INFLIGHT_PREFIX)) {
      const rec = inflightRecordSchema.safeParse(await redis.store.get(key));
      if (!rec.success || rec.data.owner !== victim.name || rec.data.place.channel !== channel) continue;
      if (shown.length === 0 || (rec.data.messages.at(-1)?.text ?? '') === '') return undefined;
      return shown.every((m) => rec.data.messages.some((r) => r.ref.id === m.ts)) ? { key, rec: rec.data } : undefined;
    }
    return undefined;
  };

  /** Every reply of the dead instance's answer finished, the last one marked interrupted with a Retry button. */
  const markedInterrupted = (channel: string, thread: string, ids: Set<string>): FakeMessage | undefined => {
    const replies = rig.botReplies(channel, thread).filter((m) => ids.has(m.ts));
    const last = replies.at(-1);
    if (!last || replies.some(typing) || !/interrupted/i.test(shownText(last))) return undefined;
    return buttonsOf(last).some((b) => b.text === 'Retry') ? last : undefined;
  };

  test('the configured lease bounds the takeover: the answer is marked, the queued follow-up answered', async () => {
    // The bound the configuration promises is inside the target, edits aside.
    expect(takeoverBoundMs(LEASE)).toBeLessThan(TARGET_MS);
    const root = await rig.ask(victim, LONG_QUESTION, 'C0TAKE');
    await rig.expectMidStream('C0TAKE', root.ts);
    // A follow-up through the other instance waits in the thread's queue behind the streaming answer.
    const followUp = 'And homes for rent in Austin?';
    await rig.say(keeper, { channel: 'C0TAKE', thread: root.ts }, followUp);

    // Frozen at a moment its record lists every shown message (so recovery alone decides what shows).
    let found: { key: string; rec: InflightRecord } | undefined;
    for (;;) {
      found = await waitFor(() => victimRecord('C0TAKE', root.ts), 'the in-flight record covering the thread', 30_000);
      await victim.freeze();
      expect(await waitFor(() => rig.fake.busy === 0 && { busy: 0 }, 'the fake idle', 5000)).toEqual({ busy: 0 });
      if (await victimRecord('C0TAKE', root.ts)) break;
      victim.thaw();
    }
    // The answer's lease is the configured one: what remains of it is at most 2 s, not 20 s.
    const answerKey = found.key.slice(INFLIGHT_PREFIX.length);
    const lease = await redis.store.leaseInfo(inflightLease(answerKey));
    expect(lease?.owner).toBe(victim.name);
    expect(lease!.expiresAt - Date.now()).toBeLessThanOrEqual(LEASE.ttlMs);
    victim.signal('SIGKILL');
    await victim.waitExit(5000);

    // The keeper marks it, text kept, Retry. What bounds the takeover is the lease checked above (the
    // bench measures the seconds); this wait is only synchronisation, generous for a loaded CI machine.
    // The victim's own messages are looked at: the keeper may answer the queued follow-up below them first.
    const victimIds = new Set(found.rec.messages.map((m) => m.ref.id));
    const marked = await waitFor(
      () => markedInterrupted('C0TAKE', root.ts, victimIds),
      'the answer marked',
      3 * TARGET_MS,
    );
    expect(marked.text.length).toBeGreaterThan(0);
    expect(buttonsOf(marked).map((b) => b.text)).toContain('Retry');
    const line = await rig.expectLine(keeper, 'marked an abandoned answer interrupted', 10_000, {
      owner: victim.name,
    });
    expect(line.answerKey).toBe(answerKey);

    // The thread's lease lapsed the same way: the keeper answers the queued follow-up, in the same session.
    await rig.expectAnswered('C0TAKE', root.ts, followUp, 60_000);
    expect(rig.service.sessionOf(followUp)).toBe(rig.service.sessionOf(LONG_QUESTION));
    expect(rig.service.storedAnswers(followUp)).toHaveLength(1);
    expect(rig.fake.rateLimited).toBe(0);
  }, 150_000);
});
