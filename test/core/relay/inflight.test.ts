import {
  INFLIGHT_INDEX,
  inflightKey,
  inflightLease,
  recordToJson,
  recoverAbandonedAnswers,
  type InflightRecord,
  type RecoveryDeps,
} from '../../../src/core/relay/inflight';
import { RelayTestbed, startRun } from './testbed';
import type { MessageRef, OutMessage, Place } from '../../../src/core/surface';
import type { SqliteStore } from '../../../src/state/sqlite-store';
import { TEST_SURFACE, TestSurface } from '../../support/test-surface';
import { silentLog } from './fake-stream';
import { waitFor } from '../../../fakes/wait-for';
import { CoreMemory } from '../../../src/core/memory';
import { leaveTenant, leftBefore } from '../../../src/core/tenants/leave';

const RETRY = { action: 'answer.retry', value: 'q7' };
const place: Place = { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: 'T1' };

describe('recoverAbandonedAnswers', () => {
  let store: SqliteStore;
  let bed: RelayTestbed;
  let surface: TestSurface;
  let deps: RecoveryDeps;

  beforeEach(() => {
    bed = new RelayTestbed();
    store = bed.store;
    surface = bed.surface({ maxMessageLength: 100 });
    deps = {
      store,
      log: silentLog,
      now: Date.now,
      instanceId: 'survivor',
      surfaces: (n) => (n === TEST_SURFACE ? surface : undefined),
    };
  });

  afterEach(async () => {
    await bed.close();
  });

  /** An answer relayed by an instance that stops renewing its lease soon (it "dies"). */
  function dyingRun(on: TestSurface, answerKey: string) {
    const dead = bed.relay('dying', { leaseTtlMs: 150, leaseRenewMs: 60_000, minInterimIntervalMs: 10 });
    return { dead, ...startRun(dead, on, { place, retry: RETRY, answerKey }) };
  }

  /** What a dead instance left: two messages, the last one still typing, and its lease. */
  async function abandoned(answerKey: string, owner: string, leaseMs: number): Promise<InflightRecord> {
    const first = await surface.post(place, { text: 'Sealed first part. ', markdown: true, typing: false });
    const second = await surface.post(place, { text: 'Partial sec', markdown: true, typing: true });
    const rec: InflightRecord = {
      surface: TEST_SURFACE,
      place,
      messages: [
        { ref: first, text: 'Sealed first part. ', done: true },
        { ref: second, text: 'Partial sec', done: false },
      ],
      retry: RETRY,
      owner,
      updatedAt: Date.now(),
    };
    await store.set(inflightKey(answerKey), recordToJson(rec));
    await store.schedule(INFLIGHT_INDEX, answerKey, Date.now());
    expect(await store.acquireLease(inflightLease(answerKey), owner, leaseMs)).toBe(true);
    return rec;
  }

  it('marks an answer whose lease expired: text kept, "interrupted", Retry', async () => {
    const rec = await abandoned('a1', 'dead-instance', 80);
    expect(await recoverAbandonedAnswers(deps)).toBe(0);
    await waitFor(
      async () => (await store.leaseInfo(inflightLease('a1'))) === undefined,
      "(await store.leaseInfo(inflightLease('a1'))) === undefined",
    );
    expect(await recoverAbandonedAnswers(deps)).toBe(1);

    const [first, second] = rec.messages.map((m) => surface.messages.get(m.ref.id)?.current);
    expect(first?.text).toBe('Sealed first part. ');
    expect(second).toMatchObject({ text: 'Partial sec', typing: false });
    expect(second?.notice).toMatch(/interrupted/);
    expect(second?.buttons).toEqual([{ label: 'Retry', ...RETRY }]);
    expect(surface.count('edit')).toBe(1);
    expect(await store.get(inflightKey('a1'))).toBeUndefined();
    expect(await recoverAbandonedAnswers(deps)).toBe(0);
  });

  it('leaves an answer whose live owner finished between the record read and the lease check', async () => {
    const rec = await abandoned('a-race', 'alive', 60_000);
    // The owner's end, in its order (record deleted, then lease released), just after the sweep read the record.
    let finished = false;
    const racing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'leaseInfo') {
          return async (name: string) => {
            if (!finished) {
              finished = true;
              await target.delete(inflightKey('a-race'));
              await target.releaseLease(inflightLease('a-race'), 'alive');
            }
            return target.leaseInfo(name);
          };
        }
        const v: unknown = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    expect(await recoverAbandonedAnswers({ ...deps, store: racing })).toBe(0);
    expect(finished).toBe(true);
    const last = surface.messages.get(rec.messages[1]!.ref.id)?.current;
    expect(last).toMatchObject({ text: 'Partial sec', typing: true });
    expect(last?.notice).toBeUndefined();
    expect(await store.leaseInfo(inflightLease('a-race'))).toBeUndefined();
  });

  it('leaves answers whose owner still holds the lease, unless told they are its own', async () => {
    await abandoned('a2', 'previous-me', 60_000);
    expect(await recoverAbandonedAnswers(deps)).toBe(0);
    expect(await recoverAbandonedAnswers(deps, { ownedBy: 'someone-else' })).toBe(0);
    expect(await recoverAbandonedAnswers(deps, { ownedBy: 'previous-me' })).toBe(1);
    expect(await store.keys('inflight:')).toEqual([]);
  });

  it('stops a live native stream through the surface when it can, keeping what it streamed past its record', async () => {
    const stopped: string[] = [];
    // The port's stopNativeStream: here the stream object is at hand; Slack's finds it by channel and ts.
    // Kept as Slack keeps it (stopStream with blocks only): the stream's text, the notice after it.
    class StoppingSurface extends TestSurface {
      async stopNativeStream(ref: MessageRef, final: OutMessage, opts: { keepStreamed?: boolean } = {}): Promise<void> {
        const live = this.nativeStreams.find((s) => s.ref.id === ref.id);
        if (!live) throw new Error('no such stream');
        stopped.push(ref.id);
        await live.stop(opts.keepStreamed ? { ...final, text: live.appended } : final);
      }
    }
    const nativeSurface = new StoppingSurface({ maxMessageLength: 100, native: { ttlMs: 300_000 } });
    const { dead, stream, running } = dyingRun(nativeSurface, 'crash-native');
    // Appends end at settled word boundaries: the space after 'natively' is one once 'and' follows.
    stream.push('Streamed natively and');
    await waitFor(async () => {
      const rec = await store.get<InflightRecord>(inflightKey('crash-native'));
      return rec?.messages[0]?.text === 'Streamed natively ';
    }, "{ const rec = await store.get<InflightRecord>(inflightKey('crash-na...");
    expect((await store.get<InflightRecord>(inflightKey('crash-native')))?.messages[0]?.native).toBe(true);
    // More words stream: appended, but the record keeps the text it had (no renewal fell due).
    stream.push(' more words here');
    await waitFor(
      () => nativeSurface.nativeStreams[0]?.appended === 'Streamed natively and more words ',
      'the later words appended',
    );
    expect((await store.get<InflightRecord>(inflightKey('crash-native')))?.messages[0]?.text).toBe(
      'Streamed natively ',
    );
    await waitFor(
      async () => (await store.leaseInfo(inflightLease('crash-native'))) === undefined,
      "(await store.leaseInfo(inflightLease('crash-native'))) === undefined",
    );
    expect(await recoverAbandonedAnswers({ ...deps, surfaces: () => nativeSurface })).toBe(1);
    const live = nativeSurface.nativeStreams[0];
    expect(stopped).toEqual([live?.ref.id]);
    expect(live?.stoppedAt).toBeDefined();
    // What the user saw stays: the words streamed after the record are not taken back.
    expect(live?.finalMessage).toMatchObject({ text: 'Streamed natively and more words ', typing: false });
    expect(live?.finalMessage?.notice).toMatch(/interrupted/);
    expect(nativeSurface.count('edit')).toBe(0);

    await dead.markAllInFlight('test over');
    await running.catch(() => undefined);
  });

  it('posts a notice for an answer that died before its placeholder', async () => {
    const rec: InflightRecord = {
      surface: TEST_SURFACE,
      place,
      messages: [],
      retry: RETRY,
      owner: 'gone',
      updatedAt: 0,
    };
    await store.set(inflightKey('a3'), recordToJson(rec));
    await store.schedule(INFLIGHT_INDEX, 'a3', Date.now());
    expect(await recoverAbandonedAnswers(deps)).toBe(1);
    const [posted] = surface.messagesIn(place);
    expect(posted?.current.notice).toMatch(/interrupted/);
    expect(posted?.current.buttons?.[0]?.label).toBe('Retry');
  });

  it('a stalled instance whose answer lease lapsed stops at once: no call after, its record left to recovery', async () => {
    // Renewed less often than it lasts: the lease lapses between renewals, as when an instance stalls.
    const slow = bed.relay('slow', { leaseTtlMs: 200, leaseRenewMs: 300, minInterimIntervalMs: 10 });
    const { stream, running } = startRun(slow, surface, { place, retry: RETRY, answerKey: 'stall' });
    stream.push('Still here ');
    // The run notices the lapse itself (no other instance took the lease yet) and stops.
    const result = await running;
    expect(result.status).toBe('dropped');
    const calls = surface.calls.length;
    stream.push('and done.');
    stream.final();
    // The record stays for recovery: the answer is whoever takes the lease's now (this one marks it).
    const rec = await store.get<{ owner: string }>(inflightKey('stall'));
    expect(rec?.owner).toBe('slow');
    expect(surface.calls.length).toBe(calls);
    expect(await recoverAbandonedAnswers(deps)).toBe(1);
    const [msg] = surface.messagesIn(place);
    expect(msg?.current.notice).toMatch(/interrupted/);
    expect(await store.get(inflightKey('stall'))).toBeUndefined();
  });

  it('recovers what a relay left behind when its instance stopped renewing', async () => {
    const { dead, stream, running } = dyingRun(surface, 'crash');
    stream.push('Half an answer ');
    await waitFor(async () => {
      const rec = await store.get<{ messages: Array<{ text: string }> }>(inflightKey('crash'));
      return rec?.messages[0]?.text === 'Half an answer';
    }, '{ const rec = await store.get<{ messages: Array<{ text: string }> }...');
    // The instance is gone: no renewal, so the lease lapses and another instance takes over.
    await waitFor(
      async () => (await store.leaseInfo(inflightLease('crash'))) === undefined,
      "(await store.leaseInfo(inflightLease('crash'))) === undefined",
    );
    expect(await recoverAbandonedAnswers(deps)).toBe(1);
    const [msg] = surface.messagesIn(place);
    expect(msg?.current).toMatchObject({ text: 'Half an answer', typing: false });
    expect(msg?.current.notice).toMatch(/interrupted/);

    await dead.markAllInFlight('test over');
    await running;
  });

  it('drops, unmarked, an abandoned answer of a tenant that left after it began; marks one begun after', async () => {
    const leftAt = Date.now();
    const ctx = { store, now: () => leftAt, memory: new CoreMemory(), log: silentLog };
    await leaveTenant(ctx, { surface: TEST_SURFACE, id: 'W' }, { why: 'test' });
    // Written after the tenant's records were deleted (a relay that had not stopped yet, then died).
    const before = await abandoned('left-before', 'dead-instance', 80);
    await store.set(inflightKey('left-before'), recordToJson({ ...before, startedAt: leftAt - 1 }));
    await store.schedule(INFLIGHT_INDEX, 'left-before', Date.now());
    const after = await abandoned('began-after', 'dead-instance', 80);
    await store.set(inflightKey('began-after'), recordToJson({ ...after, startedAt: leftAt + 1 }));
    await store.schedule(INFLIGHT_INDEX, 'began-after', Date.now());
    await waitFor(
      async () =>
        (await store.leaseInfo(inflightLease('left-before'))) === undefined &&
        (await store.leaseInfo(inflightLease('began-after'))) === undefined,
      'both leases lapsed',
    );
    const edits = surface.calls.length;
    expect(await recoverAbandonedAnswers({ ...deps, dropped: (rec) => leftBefore(ctx, rec) })).toBe(1);
    // The left tenant's answer: its record gone, its messages untouched.
    expect(await store.get(inflightKey('left-before'))).toBeUndefined();
    const ids = new Set(before.messages.map((m) => m.ref.id));
    expect(surface.calls.slice(edits).filter((c) => c.ref && ids.has(c.ref.id))).toEqual([]);
    expect(surface.calls.slice(edits).filter((c) => c.op === 'post')).toEqual([]);
    // The answer begun after the leaving (a re-install's) is marked as any other.
    const last = surface.messages.get(after.messages[1]!.ref.id)?.current;
    expect(last?.notice).toMatch(/interrupted/);
  });
});
