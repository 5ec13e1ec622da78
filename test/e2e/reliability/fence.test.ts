/**
 * Fenced writes: two bridge processes on a Redis of their own with INSTANCE_LEASE_S=2. One is frozen
 * (SIGSTOP) mid-answer with a follow-up queued behind that answer, past its leases: the other marks
 * the answer interrupted and answers the follow-up. Then the frozen one runs again (SIGCONT): it finds
 * it lost its leases and stops at once, with no platform call and no store write after it resumes,
 * so the thread shows exactly one final answer (the keeper's), never the stalled instance's too.
 */
import { LOST_LEASE_LINE } from '../../../src/core/conversations/worker';
import { INFLIGHT_PREFIX, type InflightRecord, inflightRecordSchema } from '../../../src/core/relay/inflight';
import { RedisStore } from '../../../src/state/redis-store';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { onChannel } from '../../support/held-answer';
import { type BridgeProcess, buttonsOf, freePort, OwnRedis, shownText } from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';
import { typing, useRig } from './rig';

const LONG_QUESTION = 'Give me the long answer: all listings please';
const FOLLOW_UP = 'And homes for rent in Austin?';
const CHANNEL = 'C0FENCE';

describe('reliability: an instance paused past its lease stops at once when it resumes', () => {
  // About 390 fragments 15 ms apart: the answer streams for several seconds.
  const rig = useRig({ fragmentDelayMs: 15, slack: { streaming: 'unknown_method' } });
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
  let paused: BridgeProcess;

  beforeAll(async () => {
    const opts = { stateUrl: redis.url, extra: { INSTANCE_LEASE_S: '2' } };
    [keeper, paused] = await Promise.all([rig.start('fence-keeper', opts), rig.start('fence-paused', opts)]);
  }, 60_000);

  /** The paused instance's in-flight record of the answer, once it lists every shown reply. */
  const pausedRecord = async (thread: string): Promise<InflightRecord | undefined> => {
    const shown = rig.botReplies(CHANNEL, thread);
    for (const key of await redis.store.keys(INFLIGHT_PREFIX)) {
      const rec = inflightRecordSchema.safeParse(await redis.store.get(key));
      if (!rec.success || rec.data.owner !== paused.name || rec.data.place.channel !== CHANNEL) continue;
      if (shown.length === 0 || (rec.data.messages.at(-1)?.text ?? '') === '') return undefined;
      return shown.every((m) => rec.data.messages.some((r) => r.ref.id === m.ts)) ? rec.data : undefined;
    }
    return undefined;
  };

  /** A complete answer's last message: finished, with its "Talk to a human" button. */
  const finals = (thread: string): FakeMessage[] =>
    rig.botReplies(CHANNEL, thread).filter((m) => !typing(m) && buttonsOf(m).some((b) => b.text === 'Talk to a human'));

  test('exactly one final answer in the thread, and no write from the paused instance after it resumes', async () => {
    const root = await rig.ask(paused, LONG_QUESTION, CHANNEL);
    await rig.expectMidStream(CHANNEL, root.ts);
    // A follow-up through the other instance waits in the thread's queue behind the streaming answer.
    await rig.say(keeper, { channel: CHANNEL, thread: root.ts }, FOLLOW_UP);

    // Paused at a moment its record lists every shown message, with no call of it still at Slack.
    let rec: InflightRecord | undefined;
    for (;;) {
      rec = await waitFor(() => pausedRecord(root.ts), 'the in-flight record covering the thread', 30_000);
      await paused.freeze();
      expect(await waitFor(() => rig.fake.busy === 0 && { busy: 0 }, 'the fake idle', 5000)).toEqual({ busy: 0 });
      if (await pausedRecord(root.ts)) break;
      paused.thaw();
    }

    // Past its leases, the keeper takes the answer (marked, Retry) and the thread (the follow-up answered).
    const pausedIds = new Set(rec.messages.map((m) => m.ref.id));
    await rig.expectLine(keeper, 'marked an abandoned answer interrupted', 30_000, { owner: paused.name });
    await rig.expectAnswered(CHANNEL, root.ts, FOLLOW_UP, 60_000);
    await waitFor(() => finals(root.ts).length === 1 && rig.fake.busy === 0, 'the follow-up final, Slack idle');
    const marked = rig.botReplies(CHANNEL, root.ts).filter((m) => pausedIds.has(m.ts));
    expect(shownText(marked.at(-1)!)).toMatch(/interrupted/i);
    const callsBefore = rig.fake.calls.filter(onChannel(CHANNEL)).length;
    const callsSince = () => rig.fake.calls.filter(onChannel(CHANNEL)).slice(callsBefore);

    // It runs again: its leases are gone, so it stops answering, says so once, and writes nothing.
    // (Before fencing, it went on: its edits replaced the keeper's mark with a second final answer.)
    paused.thaw();
    await waitFor(
      () => paused.lines.some((l) => l.msg === LOST_LEASE_LINE) || callsSince().length > 0,
      'the paused instance stopped, or a call of it',
      30_000,
    );
    expect(callsSince().map((c) => c.method)).toEqual([]);
    const line = await rig.expectLine(paused, LOST_LEASE_LINE, 30_000);
    expect(line.convId).toBeDefined();
    expect(await waitFor(() => rig.fake.busy === 0 && { busy: 0 }, 'the fake idle', 5000)).toEqual({ busy: 0 });
    expect(callsSince()).toEqual([]);
    expect(finals(root.ts)).toHaveLength(1);
    expect(shownText(finals(root.ts)[0]!)).not.toContain(shownText(marked.at(-1)!).slice(0, 40));
    // No record of the answer written again (recovery would mark it a second time).
    expect(await redis.store.keys(INFLIGHT_PREFIX)).toEqual([]);
    // The answer stays the keeper's mark: its last message still reads "interrupted", with Retry.
    const after = rig.botReplies(CHANNEL, root.ts).filter((m) => pausedIds.has(m.ts));
    expect(after.map(shownText)).toEqual(marked.map(shownText));
    expect(buttonsOf(after.at(-1)!).map((b) => b.text)).toContain('Retry');
    expect(rig.service.storedAnswers(FOLLOW_UP)).toHaveLength(1);
  }, 150_000);
});
