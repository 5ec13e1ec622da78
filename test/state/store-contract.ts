import type { Json, StateStore } from '../../src/state/store';
import { waitFor } from '../../fakes/wait-for';

/** Something that opens store instances sharing one backing (same file, same Redis db and prefix). */
export interface StoreBacking {
  open(): Promise<StateStore>;
}

/**
 * The behaviour every StateStore must have, run against each implementation. `backing` is called
 * once in beforeAll; stores it opens are closed by the suite.
 */
export interface ContractOptions {
  /**
   * The store spends a call's rate budgets one log at a time (a Redis Cluster: one slot a script):
   * a call of several budgets is neither all-or-none nor booked ahead there.
   */
  oneLogAtATime?: boolean;
}

export function runStoreContract(backing: () => Promise<StoreBacking>, options: ContractOptions = {}): void {
  let a: StateStore;
  let b: StateStore;
  let opened: StateStore[] = [];
  let src: StoreBacking;
  let n = 0;
  /** A fresh key per test so tests never see each other's data. */
  const fresh = (label: string): string => `t${++n}-${label}`;

  beforeAll(async () => {
    src = await backing();
    a = await src.open();
    b = await src.open();
    opened = [a, b];
  });

  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  describe('key/value', () => {
    it('round-trips every JSON shape and reports absent keys as undefined', async () => {
      const key = fresh('kv');
      const value: Json = {
        s: 'x',
        n: 1.5,
        b: true,
        nil: null,
        list: [1, 'two', { three: 3 }],
        nested: { z: 1, a: 2 },
      };
      expect(await a.get(key)).toBeUndefined();
      await a.set(key, value);
      expect(await b.get(key)).toEqual(value);
      await a.set(key, 'replaced');
      expect(await b.get(key)).toBe('replaced');
      await b.delete(key);
      expect(await a.get(key)).toBeUndefined();
      await a.delete(key); // deleting an absent key is fine
    });

    it('expires a value after its TTL and clears the TTL on a plain set', async () => {
      const short = fresh('short');
      const long = fresh('long');
      const cleared = fresh('cleared');
      await a.set(short, 1, 80);
      await a.set(long, 2, 60_000);
      await a.set(cleared, 3, 80);
      await a.set(cleared, 4);
      await waitFor(async () => (await a.get(short)) === undefined, '(await a.get(short)) === undefined', 5000);
      expect(await b.get(short)).toBeUndefined();
      expect(await a.get(long)).toBe(2);
      expect(await a.get(cleared)).toBe(4);
    });

    it('retention: writing a value again with a TTL restarts it; compareAndSet of the same value does too', async () => {
      const touched = fresh('touched');
      const kept = fresh('kept');
      await a.set(touched, { conv: 1 }, 300);
      await a.compareAndSet(kept, undefined, ['turn'], 300);
      // Activity before they expire: each gets a long retention again, unchanged in value.
      await b.set(touched, { conv: 1 }, 60_000);
      expect(await b.compareAndSet(kept, ['turn'], ['turn'], 60_000)).toBe(true);
      const idle = fresh('idle');
      await a.set(idle, { conv: 2 }, 300);
      await waitFor(async () => (await a.get(idle)) === undefined, 'the idle key to expire', 5000);
      expect(await a.get(touched)).toEqual({ conv: 1 });
      expect(await a.get(kept)).toEqual(['turn']);
    });

    it('rejects a non-positive TTL', async () => {
      await expect(a.set(fresh('bad'), 1, 0)).rejects.toThrow(RangeError);
      await expect(a.setIfAbsent(fresh('bad'), 1, -5)).rejects.toThrow(RangeError);
    });

    it('lists present keys by prefix, skipping expired ones and treating glob characters literally', async () => {
      const p = fresh('keys');
      await a.set(`${p}:one`, 1);
      await a.set(`${p}:two`, 2);
      await a.set(`${p}:gone`, 3, 50);
      await a.set(`${p}*:star`, 4);
      await a.set(`${p}x:other`, 5);
      await a.set(`zz${p}:elsewhere`, 6);
      await waitFor(async () => (await a.get(`${p}:gone`)) === undefined, 'the expired key to be gone');
      expect((await b.keys(`${p}:`)).sort()).toEqual([`${p}:one`, `${p}:two`]);
      expect(await b.keys(`${p}*`)).toEqual([`${p}*:star`]);
      expect(await b.keys(`${fresh('none')}:`)).toEqual([]);
    });
  });

  describe('setIfAbsent', () => {
    it('writes only when absent or expired', async () => {
      const key = fresh('sia');
      expect(await a.setIfAbsent(key, 'first', 80)).toBe(true);
      expect(await b.setIfAbsent(key, 'second')).toBe(false);
      expect(await a.get(key)).toBe('first');
      await waitFor(async () => (await a.get(key)) === undefined, '(await a.get(key)) === undefined');
      expect(await b.setIfAbsent(key, 'third')).toBe(true);
      expect(await a.get(key)).toBe('third');
    });

    it('lets exactly one of 100 parallel callers on two instances win', async () => {
      const key = fresh('race');
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).setIfAbsent(key, { winner: i }, 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await a.get(key)).toEqual({ winner });
    });
  });

  describe('compareAndSet', () => {
    it('replaces only when the current value deep-equals the expected one', async () => {
      const key = fresh('cas');
      expect(await a.compareAndSet(key, 'x', 'y')).toBe(false); // absent is not 'x'
      expect(await a.get(key)).toBeUndefined();
      expect(await a.compareAndSet(key, undefined, { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(true);
      expect(await b.compareAndSet(key, undefined, 'again')).toBe(false); // present is not absent
      // Same value, keys in another order: deep-equal.
      expect(await b.compareAndSet(key, { b: [1, { d: 3, c: 2 }], a: 1 }, { state: 'claimed' })).toBe(true);
      expect(await a.compareAndSet(key, { b: [1, { d: 3, c: 2 }], a: 1 }, 'stale')).toBe(false);
      expect(await a.compareAndSet(key, { state: 'claimed', extra: null }, 'stale')).toBe(false);
      expect(await a.get(key)).toEqual({ state: 'claimed' });
      expect(await a.compareAndSet(key, { state: 'claimed' }, 0)).toBe(true);
      expect(await a.compareAndSet(key, false, 1)).toBe(false); // 0 is not false
      expect(await a.get(key)).toBe(0);
    });

    it('treats an expired value as absent and applies the new TTL', async () => {
      const key = fresh('casttl');
      expect(await a.compareAndSet(key, undefined, 'v', 60)).toBe(true);
      await waitFor(async () => (await a.get(key)) === undefined, '(await a.get(key)) === undefined');
      expect(await b.compareAndSet(key, 'v', 'w')).toBe(false);
      expect(await b.compareAndSet(key, undefined, 'w')).toBe(true);
      expect(await a.get(key)).toBe('w');
    });

    it('lets exactly one of 50 parallel claims on two instances win', async () => {
      const key = fresh('claim');
      await a.set(key, { ticket: 7, status: 'open' });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? a : b).compareAndSet(
            key,
            { status: 'open', ticket: 7 },
            { ticket: 7, status: 'claimed', by: `agent${i}` },
          ),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await b.get(key)).toEqual({ ticket: 7, status: 'claimed', by: `agent${results.indexOf(true)}` });
    });
  });

  describe('outbox (compareAndSetWithIntents and intents)', () => {
    it('writes the change and its intents together, and neither when the compare fails', async () => {
      const key = fresh('obkey');
      const box = fresh('box');
      await a.set(key, { status: 'open' });
      const intents = [
        { id: 'n1', value: { post: 'thread', text: 'claimed' } },
        { id: 'n2', value: { post: 'user', text: 'joined' } },
      ];
      // A stale expectation: no change, and no intent either.
      expect(await a.compareAndSetWithIntents(key, { status: 'gone' }, { status: 'x' }, undefined, box, intents)).toBe(
        false,
      );
      expect(await b.pendingIntents(box, 10)).toEqual([]);
      expect(await b.intent(box, 'n1')).toBeUndefined();
      // The right expectation: the change and both intents, in order, seen by the other instance.
      expect(
        await a.compareAndSetWithIntents(key, { status: 'open' }, { status: 'claimed' }, 60_000, box, intents),
      ).toBe(true);
      expect(await b.get(key)).toEqual({ status: 'claimed' });
      expect(await b.pendingIntents(box, 10)).toEqual([
        { id: 'n1', value: { post: 'thread', text: 'claimed' }, state: 'pending' },
        { id: 'n2', value: { post: 'user', text: 'joined' }, state: 'pending' },
      ]);
      expect(await b.pendingIntents(box, 1)).toHaveLength(1);
      expect(await b.pendingIntents(fresh('otherbox'), 10)).toEqual([]);
    });

    it('records a result, completes once, remembers done ids, and never adds a known id again', async () => {
      const key = fresh('obkey2');
      const box = fresh('box2');
      expect(await a.compareAndSetWithIntents(key, undefined, 1, undefined, box, [{ id: 'p', value: 'post' }])).toBe(
        true,
      );
      expect(await b.recordIntentResult(box, 'p', { ref: 'm1' })).toBe(true);
      expect(await a.intent(box, 'p')).toEqual({ id: 'p', value: 'post', state: 'pending', result: { ref: 'm1' } });
      expect(await a.pendingIntents(box, 10)).toEqual([
        { id: 'p', value: 'post', state: 'pending', result: { ref: 'm1' } },
      ]);
      // A pending id added again (a replayed write) stays one intent, with its first value and result.
      expect(
        await b.compareAndSetWithIntents(key, 1, 2, undefined, box, [
          { id: 'p', value: 'twice' },
          { id: 'q', value: 'edit' },
        ]),
      ).toBe(true);
      expect((await a.pendingIntents(box, 10)).map((i) => [i.id, i.value])).toEqual([
        ['p', 'post'],
        ['q', 'edit'],
      ]);
      // Exactly one of two instances completing it at once wins.
      const done = await Promise.all([a.completeIntent(box, 'p', 60_000), b.completeIntent(box, 'p', 60_000)]);
      expect(done.filter(Boolean)).toHaveLength(1);
      expect(await a.intent(box, 'p')).toEqual({ id: 'p', value: 'post', state: 'done', result: { ref: 'm1' } });
      expect(await b.recordIntentResult(box, 'p', { ref: 'm2' })).toBe(false);
      expect((await b.pendingIntents(box, 10)).map((i) => i.id)).toEqual(['q']);
      // A done id is not added again while it is remembered.
      expect(await a.compareAndSetWithIntents(key, 2, 3, undefined, box, [{ id: 'p', value: 'again' }])).toBe(true);
      expect((await b.pendingIntents(box, 10)).map((i) => i.id)).toEqual(['q']);
      expect(await a.completeIntent(box, 'unknown', 60_000)).toBe(false);
      expect(await a.recordIntentResult(box, 'unknown', 1)).toBe(false);
    });

    it('forgets a done id after its done TTL', async () => {
      const box = fresh('box3');
      const key = fresh('obkey3');
      await a.compareAndSetWithIntents(key, undefined, 1, undefined, box, [{ id: 'x', value: 1 }]);
      expect(await a.completeIntent(box, 'x', 60)).toBe(true);
      await waitFor(async () => (await b.intent(box, 'x')) === undefined, 'the done id forgotten');
      expect(await a.compareAndSetWithIntents(key, 1, 2, undefined, box, [{ id: 'x', value: 2 }])).toBe(true);
      expect(await b.pendingIntents(box, 10)).toEqual([{ id: 'x', value: 2, state: 'pending' }]);
    });

    it('keeps the order of intents written by many parallel changes on two instances', async () => {
      const box = fresh('box4');
      const keysList = Array.from({ length: 20 }, (_, i) => fresh(`obpar${i}`));
      await Promise.all(
        keysList.map((k, i) =>
          (i % 2 ? a : b).compareAndSetWithIntents(k, undefined, i, undefined, box, [
            { id: `${i}-1`, value: i },
            { id: `${i}-2`, value: i },
          ]),
        ),
      );
      const ids = (await a.pendingIntents(box, 100)).map((p) => p.id);
      expect(ids).toHaveLength(40);
      // Each change's intents are adjacent and in their written order.
      for (let i = 0; i < 20; i++) expect(ids.indexOf(`${i}-2`)).toBe(ids.indexOf(`${i}-1`) + 1);
    });
  });

  describe('queues', () => {
    it('is FIFO with peek, ack and length', async () => {
      const q = fresh('q');
      expect(await a.peek(q)).toBeUndefined();
      expect(await a.length(q)).toBe(0);
      const one = await a.push(q, { n: 1 });
      const two = await b.push(q, 'two');
      expect(one.value).toEqual({ n: 1 });
      expect(two.id > one.id).toBe(true);
      expect(await a.length(q)).toBe(2);
      expect(await b.peek(q)).toEqual(one);
      expect(await b.peek(q)).toEqual(one); // peek does not remove
      expect(await a.ack(q, two.id)).toBe(true); // ack by id, not only the head
      expect(await a.ack(q, two.id)).toBe(false);
      expect(await a.ack(q, 'no-such-id')).toBe(false);
      expect(await a.ack(fresh('otherq'), one.id)).toBe(false); // ids belong to their queue
      expect(await a.peek(q)).toEqual(one);
      expect(await b.ack(q, one.id)).toBe(true);
      expect(await a.peek(q)).toBeUndefined();
      expect(await a.length(q)).toBe(0);
    });

    it('keeps queues apart and preserves order under concurrent pushes from two instances', async () => {
      const q = fresh('cq');
      const other = fresh('cq-other');
      await a.push(other, 'elsewhere');
      const pushed = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).push(q, { from: i % 2 ? 'a' : 'b', i })),
      );
      expect(await b.length(q)).toBe(100);
      expect(new Set(pushed.map((p) => p.id)).size).toBe(100);

      const drained: Array<{ id: string; value: Json }> = [];
      for (let head = await a.peek(q); head; head = await (drained.length % 2 ? a : b).peek(q)) {
        drained.push(head);
        expect(await (drained.length % 2 ? b : a).ack(q, head.id)).toBe(true);
      }
      expect(drained).toHaveLength(100);
      const ids = drained.map((d) => d.id);
      expect([...ids].sort()).toEqual(ids); // strictly increasing and string-ordered
      // Each instance's pushes come out in the order that instance issued them.
      for (const from of ['a', 'b']) {
        const seen = drained
          .map((d) => d.value as { from: string; i: number })
          .filter((v) => v.from === from)
          .map((v) => v.i);
        expect(seen).toEqual([...seen].sort((x, y) => x - y));
        expect(seen).toHaveLength(50);
      }
      expect(await a.length(other)).toBe(1);
    });
  });

  describe('leases', () => {
    it('is held by one owner, renewable and releasable only by that owner', async () => {
      const name = fresh('lease');
      const before = Date.now();
      expect(await a.acquireLease(name, 'alice', 60_000)).toBe(true);
      const info = await b.leaseInfo(name);
      expect(info?.owner).toBe('alice');
      expect(info!.expiresAt).toBeGreaterThanOrEqual(before + 59_000);
      expect(info!.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000 + 50);

      expect(await b.acquireLease(name, 'bob', 60_000)).toBe(false);
      expect(await b.renewLease(name, 'bob', 60_000)).toBe(false);
      await b.releaseLease(name, 'bob'); // not the owner: no effect
      expect((await a.leaseInfo(name))?.owner).toBe('alice');

      expect(await a.acquireLease(name, 'alice', 120_000)).toBe(true); // same owner renews
      expect((await a.leaseInfo(name))!.expiresAt).toBeGreaterThan(Date.now() + 100_000);
      expect(await a.renewLease(name, 'alice', 30_000)).toBe(true);
      expect((await a.leaseInfo(name))!.expiresAt).toBeLessThanOrEqual(Date.now() + 30_000 + 50);

      await a.releaseLease(name, 'alice');
      expect(await b.leaseInfo(name)).toBeUndefined();
      expect(await b.acquireLease(name, 'bob', 60_000)).toBe(true);
      expect(await b.leaseInfo(fresh('never'))).toBeUndefined();
    });

    it('expires and is taken over; the old owner then cannot renew', async () => {
      const name = fresh('lease-exp');
      expect(await a.acquireLease(name, 'alice', 300)).toBe(true);
      await waitFor(() => b.acquireLease(name, 'bob', 60_000), "b.acquireLease(name, 'bob', 60_000)", 5000);
      expect((await a.leaseInfo(name))?.owner).toBe('bob');
      expect(await a.renewLease(name, 'alice', 60_000)).toBe(false);
      expect(await a.acquireLease(name, 'alice', 60_000)).toBe(false);
    });

    it('cannot be renewed once expired, even if nobody took it', async () => {
      const name = fresh('lease-lost');
      expect(await a.acquireLease(name, 'alice', 50)).toBe(true);
      await waitFor(async () => (await b.leaseInfo(name)) === undefined, '(await b.leaseInfo(name)) === undefined');
      expect(await a.renewLease(name, 'alice', 60_000)).toBe(false);
    });

    it('lets exactly one of many parallel acquirers hold it', async () => {
      const name = fresh('lease-race');
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).acquireLease(name, `owner${i}`, 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await a.leaseInfo(name))?.owner).toBe(`owner${results.indexOf(true)}`);
    });
  });

  describe('fenced leases (writeFenced)', () => {
    it('gives each acquisition a greater token, keeps it on renewal, and refuses a stale token', async () => {
      const name = fresh('fence');
      const queue = fresh('fence-q');
      const first = await a.acquireFencedLease(name, 'alice', 60_000);
      expect(first).toMatchObject({ lease: name, owner: 'alice' });
      // The holder again: a renewal, the same token.
      expect((await a.acquireFencedLease(name, 'alice', 60_000))?.token).toBe(first!.token);
      expect(await b.acquireFencedLease(name, 'bob', 60_000)).toBeUndefined();
      const item = await a.push(queue, 'work');
      const key = fresh('fenced-key');
      expect(
        await b.writeFenced(first!, [
          { op: 'set', key, value: { step: 1 }, ttlMs: 60_000 },
          { op: 'ack', queue, id: item.id },
        ]),
      ).toBe(true);
      expect(await a.get(key)).toEqual({ step: 1 });
      expect(await a.length(queue)).toBe(0);

      // Released and taken by bob: alice's token is stale, her writes (all of the batch) refused.
      await a.releaseLease(name, 'alice');
      const second = await b.acquireFencedLease(name, 'bob', 60_000);
      expect(second!.token).toBeGreaterThan(first!.token);
      const again = await a.push(queue, 'more');
      expect(
        await a.writeFenced(first!, [
          { op: 'set', key, value: { step: 2 } },
          { op: 'ack', queue, id: again.id },
          { op: 'delete', key },
        ]),
      ).toBe(false);
      expect(await b.get(key)).toEqual({ step: 1 });
      expect(await b.length(queue)).toBe(1);
      expect(await b.writeFenced(second!, [{ op: 'delete', key }])).toBe(true);
      expect(await a.get(key)).toBeUndefined();
      // The old holder taking it back later is a new acquisition: a new, greater token.
      await b.releaseLease(name, 'bob');
      const third = await a.acquireFencedLease(name, 'alice', 60_000);
      expect(third!.token).toBeGreaterThan(second!.token);
      expect(await a.writeFenced(first!, [{ op: 'set', key, value: 1 }])).toBe(false);
    });

    it('ends work in one step: a due entry unscheduled and the lease released with the writes, or none of them', async () => {
      const name = fresh('fence-end');
      const index = fresh('fence-end-due');
      const key = fresh('fence-end-key');
      await a.schedule(index, 'w1', 1_000);
      await a.set(key, 'record');
      const stale = await a.acquireFencedLease(name, 'alice', 60_000);
      await a.releaseLease(name, 'alice');
      const fence = await a.acquireFencedLease(name, 'alice', 60_000);
      const end = [{ op: 'delete', key }, { op: 'unschedule', index, member: 'w1' }, { op: 'release' }] as const;
      expect(await b.writeFenced(stale!, [...end])).toBe(false);
      expect(await a.get(key)).toBe('record');
      expect(await a.due(index, 2_000, 10)).toEqual([{ member: 'w1', dueAt: 1_000 }]);
      expect((await a.leaseInfo(name))?.owner).toBe('alice');
      expect(await b.writeFenced(fence!, [...end])).toBe(true);
      expect(await a.get(key)).toBeUndefined();
      expect(await a.due(index, 2_000, 10)).toEqual([]);
      expect(await a.leaseInfo(name)).toBeUndefined();
    });

    it("ends a queue's work with its last ack only when the ack left it empty (ifEmpty)", async () => {
      const name = fresh('fence-drain');
      const queue = fresh('fence-drain-q');
      const index = fresh('fence-drain-due');
      const mark = fresh('fence-drain-mark');
      await a.set(mark, 'pending');
      await a.schedule(index, 'c1', 1_000);
      const fence = await a.acquireFencedLease(name, 'alice', 60_000);
      const first = await a.push(queue, 'one');
      const second = await a.push(queue, 'two');
      const end = (id: string) =>
        [
          { op: 'ack', queue, id },
          { op: 'ifEmpty', queue },
          { op: 'delete', key: mark },
          { op: 'unschedule', index, member: 'c1' },
          { op: 'release' },
        ] as const;
      // An item left: the ack is written, nothing after the condition.
      expect(await b.writeFenced(fence!, [...end(first.id)])).toBe('stopped');
      expect(await a.peek(queue)).toEqual(second);
      expect(await a.get(mark)).toBe('pending');
      expect(await a.due(index, 2_000, 10)).toEqual([{ member: 'c1', dueAt: 1_000 }]);
      expect((await a.leaseInfo(name))?.owner).toBe('alice');
      // The last one: the ack and the end in the same step.
      expect(await b.writeFenced(fence!, [...end(second.id)])).toBe(true);
      expect(await a.length(queue)).toBe(0);
      expect(await a.get(mark)).toBeUndefined();
      expect(await a.due(index, 2_000, 10)).toEqual([]);
      expect(await a.leaseInfo(name)).toBeUndefined();
      // Refused (the lease gone): nothing, the condition not even looked at.
      const third = await a.push(queue, 'three');
      expect(await b.writeFenced(fence!, [...end(third.id)])).toBe(false);
      expect(await a.length(queue)).toBe(1);
    });

    it('moves a due entry with a renewal, only while the entry is in the index', async () => {
      const name = fresh('renew-move');
      const index = fresh('renew-move-due');
      await a.acquireLease(name, 'alice', 60_000);
      await a.schedule(index, 'w1', 1_000);
      expect(await b.renewLease(name, 'alice', 60_000, { index, member: 'w1', dueAt: 5_000 })).toBe(true);
      expect(await a.due(index, 10_000, 10)).toEqual([{ member: 'w1', dueAt: 5_000 }]);
      await a.unschedule(index, 'w1');
      expect(await b.renewLease(name, 'alice', 60_000, { index, member: 'w1', dueAt: 9_000 })).toBe(true);
      expect(await a.due(index, 10_000, 10)).toEqual([]);
      expect(await b.renewLease(name, 'bob', 60_000, { index, member: 'w2', dueAt: 9_000 })).toBe(false);
    });

    it('renews the lease with a fenced write (and moves its due entry), never a lease it does not hold', async () => {
      const name = fresh('fence-renew');
      const index = fresh('fence-renew-due');
      const key = fresh('fence-renew-key');
      const fence = await a.acquireFencedLease(name, 'alice', 1_000);
      await a.schedule(index, 'w1', 1_000);
      const before = (await a.leaseInfo(name))!.expiresAt;
      const renew = { ttlMs: 60_000, move: { index, member: 'w1', dueAt: 7_000 } };
      expect(await b.writeFenced(fence!, [{ op: 'set', key, value: 1 }], renew)).toBe(true);
      expect(await a.get(key)).toBe(1);
      expect((await a.leaseInfo(name))!.expiresAt).toBeGreaterThan(before + 30_000);
      expect(await a.due(index, 10_000, 10)).toEqual([{ member: 'w1', dueAt: 7_000 }]);
      // Released: a write with a renewal is refused and brings no lease back, nor moves the entry.
      await a.releaseLease(name, 'alice');
      const late = { ttlMs: 60_000, move: { index, member: 'w1', dueAt: 9_000 } };
      expect(await b.writeFenced(fence!, [{ op: 'set', key, value: 2 }], late)).toBe(false);
      expect(await a.leaseInfo(name)).toBeUndefined();
      expect(await a.get(key)).toBe(1);
      expect(await a.due(index, 10_000, 10)).toEqual([{ member: 'w1', dueAt: 7_000 }]);
    });

    it('refuses a write once the lease ran out, even if nobody took it', async () => {
      const name = fresh('fence-exp');
      const fence = await a.acquireFencedLease(name, 'alice', 50);
      await waitFor(async () => (await b.leaseInfo(name)) === undefined, 'the lease run out');
      const key = fresh('fenced-late');
      expect(await a.writeFenced(fence!, [{ op: 'set', key, value: 'late' }])).toBe(false);
      expect(await a.get(key)).toBeUndefined();
    });

    it('hands exactly one of many parallel acquirers a token, distinct from every earlier one', async () => {
      const name = fresh('fence-race');
      const tokens = new Set<number>();
      for (let round = 0; round < 3; round++) {
        const got = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquireFencedLease(name, `owner${round}-${i}`, 60_000)),
        );
        const held = got.filter((f) => f !== undefined);
        expect(held).toHaveLength(1);
        expect(tokens.has(held[0]!.token)).toBe(false);
        tokens.add(held[0]!.token);
        await a.releaseLease(name, held[0]!.owner);
      }
    });
  });

  describe('takeToken', () => {
    it('grants at most limit per window across two instances, then again once the window slides', async () => {
      const key = fresh('rate');
      const windowMs = 1500;
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).takeToken(key, 5, windowMs)),
      );
      const granted = decisions.filter((d) => d.granted);
      expect(granted).toHaveLength(5);
      for (const d of granted) expect(d.retryInMs).toBe(0);
      for (const d of decisions.filter((x) => !x.granted)) {
        expect(d.retryInMs).toBeGreaterThan(0);
        expect(d.retryInMs).toBeLessThanOrEqual(windowMs);
      }
      // Other keys have their own budget.
      expect((await a.takeToken(fresh('rate-other'), 1, windowMs)).granted).toBe(true);
      await waitFor(
        async () => (await a.takeToken(key, 5, windowMs)).granted,
        'a token for the key once its window has passed',
        5000,
      );
    });

    it('counts strictly alternating calls from two instances against one budget', async () => {
      const key = fresh('rate-alternate');
      let granted = 0;
      for (let i = 0; i < 12; i++) if ((await (i % 2 ? a : b).takeToken(key, 5, 60_000)).granted) granted++;
      expect(granted).toBe(5);
    });

    it('never exceeds the limit in any window during sustained contention', async () => {
      const key = fresh('rate-sustained');
      const limit = 4;
      const windowMs = 250;
      const grants: number[] = [];
      const deadline = Date.now() + 1200;
      const worker = async (store: StateStore): Promise<void> => {
        while (Date.now() < deadline) {
          const d = await store.takeToken(key, limit, windowMs);
          if (d.granted) grants.push(Date.now());
        }
      };
      await Promise.all([worker(a), worker(b), worker(a), worker(b)]);
      grants.sort((x, y) => x - y);
      expect(grants.length).toBeGreaterThanOrEqual(limit);
      // Client-side grant times lag the store's clock by the reply time; allow a little slack.
      const slack = 100;
      for (let i = limit; i < grants.length; i++) {
        expect(grants[i] - grants[i - limit]).toBeGreaterThanOrEqual(windowMs - slack);
      }
      // A sliding window of 250 ms over 1.2 s cannot grant more than limit * (1 + 1200/250).
      expect(grants.length).toBeLessThanOrEqual(limit * Math.ceil(1 + 1200 / windowMs));
    });
  });

  describe('takeTokens with bookings (aheadMs)', () => {
    const W = 1_000;

    it('books a herd on a 1-a-second budget one window apart across instances, each in one call', async () => {
      const key = fresh('book-herd');
      const t0 = Date.now();
      const decisions = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).takeTokens([{ key, limit: 1, windowMs: W, aheadMs: 10_000 }]),
        ),
      );
      // Every window of the log holds one token: the herd's slots are a window apart, measured from
      // the store's clock at each call, so they may differ by the time the calls took to arrive.
      const spread = Date.now() - t0;
      expect(decisions.every((d) => d.granted)).toBe(true);
      expect(decisions.filter((d) => !d.startInMs)).toHaveLength(1);
      const starts = decisions.map((d) => d.startInMs ?? 0).sort((x, y) => x - y);
      for (let i = 1; i < starts.length; i++) {
        expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(W - spread);
        expect(starts[i]! - starts[i - 1]!).toBeLessThanOrEqual(W + spread);
      }
      // Booked tokens count from their time: a call that may not book waits out the last of them,
      // and one that may book only so far is refused until a slot is that near.
      const now = await a.takeTokens([{ key, limit: 1, windowMs: W }]);
      expect(now.granted).toBe(false);
      expect(now.retryInMs).toBeGreaterThan(5 * W - (Date.now() - t0) - 1);
      const near = await b.takeTokens([{ key, limit: 1, windowMs: W, aheadMs: 2 * W }]);
      expect(near.granted).toBe(false);
      expect(near.retryInMs).toBeGreaterThan(3 * W - (Date.now() - t0) - 1);
      expect(near.retryInMs).toBeLessThanOrEqual(4 * W);
    });

    const severalAtOnce = options.oneLogAtATime ? it.skip : it;

    severalAtOnce('books every budget of a call at one time, the one the fullest allows', async () => {
      const busy = fresh('book-busy');
      const other = fresh('book-other');
      const t0 = Date.now();
      await a.takeTokens([{ key: busy, limit: 1, windowMs: W }]);
      const both = await b.takeTokens([
        { key: other, limit: 2, windowMs: W, aheadMs: 5 * W },
        { key: busy, limit: 1, windowMs: W, aheadMs: 5 * W },
      ]);
      expect(both.granted).toBe(true);
      expect(both.startInMs).toBeGreaterThan(W - (Date.now() - t0) - 1);
      // The other budget's token was placed at that time too: with a limit of 1 it holds the
      // budget until a window after it.
      const after = await a.takeTokens([{ key: other, limit: 1, windowMs: W }]);
      expect(after.granted).toBe(false);
      expect(after.retryInMs).toBeGreaterThan(2 * W - (Date.now() - t0) - 1);
      // With its own limit of 2 it still has room now beside the booked token.
      expect((await b.takeTokens([{ key: other, limit: 2, windowMs: W }])).granted).toBe(true);
    });

    it('takes `count` tokens of a budget at one time, only when they all fit', async () => {
      const key = fresh('count');
      expect((await a.takeTokens([{ key, limit: 3, windowMs: 60_000, count: 2 }])).granted).toBe(true);
      expect((await b.takeTokens([{ key, limit: 3, windowMs: 60_000, count: 2 }])).granted).toBe(false);
      expect((await b.takeTokens([{ key, limit: 3, windowMs: 60_000 }])).granted).toBe(true);
      expect((await a.takeTokens([{ key, limit: 3, windowMs: 60_000 }])).granted).toBe(false);
      // Booked: both tokens a window on, where the two taken now have left it.
      const booked = fresh('count-booked');
      const t0 = Date.now();
      await a.takeTokens([{ key: booked, limit: 2, windowMs: W, count: 2 }]);
      const later = await b.takeTokens([{ key: booked, limit: 2, windowMs: W, count: 2, aheadMs: 5 * W }]);
      expect(later.granted).toBe(true);
      expect(later.startInMs).toBeGreaterThan(W - (Date.now() - t0) - 1);
      expect((await a.takeTokens([{ key: booked, limit: 2, windowMs: W, aheadMs: W }])).granted).toBe(false);
    });

    severalAtOnce(
      'refuses a full budget without booking when aheadMs is 0, naming the budget full longest',
      async () => {
        const free = fresh('book-free');
        const full = fresh('book-full');
        await a.takeTokens([{ key: full, limit: 1, windowMs: W }]);
        const d = await b.takeTokens([
          { key: free, limit: 1, windowMs: W, aheadMs: 5 * W },
          { key: full, limit: 1, windowMs: W },
        ]);
        expect(d.granted).toBe(false);
        expect(d.full).toBe(1);
        expect(d.retryInMs).toBeGreaterThan(0);
        expect(d.retryInMs).toBeLessThanOrEqual(W);
        // Nothing was taken of the free budget (all or none).
        expect((await a.takeTokens([{ key: free, limit: 1, windowMs: W }])).granted).toBe(true);
      },
    );
  });

  describe('instances', () => {
    it('see each other through the shared backing, including an instance opened later', async () => {
      const key = fresh('shared');
      await a.set(key, { from: 'a' });
      const c = await src.open();
      opened.push(c);
      expect(await c.get(key)).toEqual({ from: 'a' });
      await c.push(key, 'q');
      expect(await a.length(key)).toBe(1);
    });
  });
}
