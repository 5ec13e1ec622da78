/**
 * The in-flight record's writes (relay/checkpoint.ts): a streamed answer writes its record when its
 * shape changes, not on every append (the growth of a native stream's text goes with the lease's
 * renewals), and the record of a message that is edited follows every edit (recovery's edit sends the
 * recorded text). Each test counts the writes of the record at the store.
 */
import { Relay, type RelayOptions } from '../../../src/core/relay/relay';
import { inflightKey, type InflightRecord } from '../../../src/core/relay/inflight';
import type { Fence, FencedRenewal, FencedWrite, Json, StateStore } from '../../../src/state/store';
import type { TestSurface } from '../../support/test-surface';
import { waitFor } from '../../../fakes/wait-for';
import { silentLog } from './fake-stream';
import { eachTestbed, startRun } from './testbed';

const RETRY = { action: 'answer.retry', value: 'q1' };
/** No renewal falls due while a test runs: only the writes a shape change makes are counted. */
const NO_RENEWAL: RelayOptions = { leaseTtlMs: 120_000, leaseRenewMs: 60_000, minInterimIntervalMs: 5 };

describe('the in-flight record of a streamed answer', () => {
  const bed = eachTestbed();

  /**
   * The relay on a store that notes each write of an in-flight record (its messages): fenced ones,
   * and the first record's plain set (see InflightCheckpoint.start), in `plain`.
   */
  function counted(options: RelayOptions): { relay: Relay; writes: InflightRecord['messages'][]; plain: number } {
    const out = { writes: [] as InflightRecord['messages'][], plain: 0 };
    const isRecord = (key: string): boolean => key.startsWith(inflightKey(''));
    const store = bed.store;
    const counting = new Proxy(store, {
      get(target, prop) {
        if (prop === 'writeFenced')
          return (fence: Fence, batch: FencedWrite[], renew?: FencedRenewal) => {
            for (const w of batch)
              if (w.op === 'set' && isRecord(w.key)) out.writes.push((w.value as unknown as InflightRecord).messages);
            return target.writeFenced(fence, batch, renew);
          };
        if (prop === 'set')
          return (key: string, value: Json, ttlMs?: number) => {
            if (isRecord(key)) {
              out.plain++;
              out.writes.push((value as unknown as InflightRecord).messages);
            }
            return target.set(key, value, ttlMs);
          };
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as StateStore;
    const relay = new Relay({ store: counting, log: silentLog, now: Date.now, instanceId: 'i1', options });
    return {
      relay,
      writes: out.writes,
      get plain() {
        return out.plain;
      },
    };
  }

  it('streamed natively: two writes (the start, the stream), however many appends; none for the end', async () => {
    const surface: TestSurface = bed.surface({ native: { ttlMs: 300_000 } });
    const rec = counted(NO_RENEWAL);
    const { relay, writes } = rec;
    const { stream, running } = startRun(relay, surface, { retry: RETRY, answerKey: 'native-1' });
    const words = Array.from({ length: 30 }, (_, i) => `word${i} `);
    stream.push(words[0]!);
    await waitFor(() => surface.nativeStreams.length === 1, 'the native stream started');
    for (const w of words.slice(1)) {
      const before = surface.nativeStreams[0]!.appended.length;
      stream.push(w);
      // Each word lands as its own append (the next word settles it).
      await waitFor(() => surface.nativeStreams[0]!.appended.length > before, 'an append');
    }
    stream.final();
    const result = await running;
    expect(result.status).toBe('complete');
    expect(surface.count('append')).toBeGreaterThanOrEqual(20);
    // The first record (nothing shown yet), then the stream's ref once it started: the appends
    // change only its text (written with a renewal), and the end deletes the record in its own step.
    expect(writes.map((w) => w.length)).toEqual([0, 1]);
    // Only the first record (no progress yet) is a plain set: the stream's goes under the lease.
    expect(rec.plain).toBe(1);
    expect(writes[1]?.[0]).toMatchObject({ native: true, done: false });
    expect(await bed.store.get(inflightKey('native-1'))).toBeUndefined();
  });

  it('posted and edited: the record follows every edit, so recovery never sends less than was shown', async () => {
    const surface: TestSurface = bed.surface();
    const { relay, writes } = counted(NO_RENEWAL);
    const { stream, place, running } = startRun(relay, surface, { retry: RETRY, answerKey: 'edited-1' });
    for (const w of ['One ', 'two ', 'three ', 'four ']) {
      const edits = surface.count('edit') + surface.count('post');
      stream.push(w);
      await waitFor(() => surface.count('edit') + surface.count('post') > edits, 'the message updated');
      // Once written, the record shows what the message shows.
      const shown = surface.messagesIn(place)[0]!.current.text;
      await waitFor(
        async () => (await bed.store.get<InflightRecord>(inflightKey('edited-1')))?.messages[0]?.text === shown,
        'the record following the edit',
      );
    }
    stream.final();
    expect((await running).status).toBe('complete');
    expect(writes.length).toBeGreaterThanOrEqual(4);
  });
});
